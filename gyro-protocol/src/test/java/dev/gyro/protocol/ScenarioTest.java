package dev.gyro.protocol;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Golden-transcript tests of the Conveyor Belt (etcd-raft's datadriven style). Each file in
 * {@code src/test/resources/scenarios} is a script of commands, each followed by {@code ----} and the exact
 * transcript it must produce (see {@link ScenarioHarness} for the commands). A mismatch fails with a diff of
 * the whole file.
 *
 * <p>After a deliberate change of behaviour, regenerate the transcripts and review the diff with git:
 * {@code mvn -B -f gyro-protocol/pom.xml test -Dtest=ScenarioTest -Dgyro.rewrite=true}.
 */
class ScenarioTest {

    @TestFactory
    Stream<DynamicTest> scenarios() throws IOException, URISyntaxException {
        Path dir = Paths.get(ScenarioTest.class.getResource("/scenarios").toURI());
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(p -> p.toString().endsWith(".txt")).sorted().toList();
        }
        if (files.isEmpty()) throw new IllegalStateException("no scenarios in " + dir);
        return files.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> runScript(f)));
    }

    private static void runScript(Path file) throws IOException {
        List<String> lines = new ArrayList<>(Files.readAllLines(file, StandardCharsets.UTF_8));
        while (!lines.isEmpty() && lines.get(lines.size() - 1).isBlank()) lines.remove(lines.size() - 1);
        String expected = String.join("\n", lines);
        String actual = replay(lines);
        boolean scriptError = actual.contains(ScenarioHarness.SCRIPT_ERROR);
        if (actual.equals(expected) && !scriptError) return;
        if (Boolean.getBoolean("gyro.rewrite")) {
            Path source = Paths.get(System.getProperty("basedir", "."), "src/test/resources/scenarios",
                    file.getFileName().toString());
            Files.writeString(source, actual + "\n", StandardCharsets.UTF_8);
            if (!scriptError) return;
        }
        if (scriptError) fail(file.getFileName() + " has a script error:\n" + actual);
        fail(file.getFileName() + " does not match its transcript (- expected, + actual):\n" + diff(expected, actual));
    }

    /** Runs the file's commands and returns the file as it would read with the transcripts they produced. */
    static String replay(List<String> lines) {
        ScenarioHarness harness = new ScenarioHarness();
        List<String> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank() || line.startsWith("#")) {
                out.add(line);
                continue;
            }
            out.add(line);
            out.add("----");
            out.add(harness.run(line));
            i++; // the ---- line (a missing one shows up in the diff)
            if (i < lines.size() && !lines.get(i).equals("----")) i--;
            while (i + 1 < lines.size() && !lines.get(i + 1).isEmpty()) i++; // skip the old transcript
        }
        while (!out.isEmpty() && out.get(out.size() - 1).isEmpty()) out.remove(out.size() - 1);
        return String.join("\n", out);
    }

    /** A line diff (longest common subsequence) with line numbers of the expected file and 3 lines of context. */
    static String diff(String expected, String actual) {
        String[] a = expected.split("\n", -1), b = actual.split("\n", -1);
        int[][] lcs = new int[a.length + 1][b.length + 1];
        for (int i = a.length - 1; i >= 0; i--)
            for (int j = b.length - 1; j >= 0; j--)
                lcs[i][j] = a[i].equals(b[j]) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
        List<String> rows = new ArrayList<>();
        List<Boolean> changed = new ArrayList<>();
        int i = 0, j = 0;
        while (i < a.length || j < b.length) {
            if (i < a.length && j < b.length && a[i].equals(b[j])) {
                rows.add(String.format("%4d   %s", i + 1, a[i]));
                changed.add(false);
                i++;
                j++;
            } else if (i < a.length && (j == b.length || lcs[i + 1][j] >= lcs[i][j + 1])) {
                rows.add(String.format("%4d - %s", i + 1, a[i++]));
                changed.add(true);
            } else {
                rows.add(String.format("%4s + %s", "", b[j++]));
                changed.add(true);
            }
        }
        StringBuilder s = new StringBuilder();
        int lastShown = -1;
        for (int r = 0; r < rows.size(); r++) {
            boolean near = false;
            for (int k = Math.max(0, r - 3); k <= Math.min(rows.size() - 1, r + 3); k++) near |= changed.get(k);
            if (!near) continue;
            if (lastShown >= 0 && r > lastShown + 1) s.append("   ...\n");
            s.append(rows.get(r)).append('\n');
            lastShown = r;
        }
        return s.toString();
    }
}
