package dev.gyro.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the records of the design decisions true to their rules (docs/decisions/README.md,
 * docs/decisions/14-self-explaining-repo.md): every record a file of the repository cites exists, the index lists
 * every record and nothing else, each record has its status line and its three headings and fits on one screen, and
 * no file cites the single decisions file the records replaced. Each failure names the file and line at fault.
 *
 * <p>The test runs in gyro-cli, so the repository root is {@code ..}. Files are those git tracks or would track
 * (untracked but not ignored), so build output is never read; without git, the tree is walked, skipping
 * {@code target/} and {@code .git/}.
 */
class DecisionRecordsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path RECORDS = ROOT.resolve("docs/decisions");
    private static final int MAX_LINES = 60;
    private static final Pattern RECORD_NAME = Pattern.compile("\\d{2}-[a-z0-9]+(?:-[a-z0-9]+)*\\.md");
    /** A record cited by path: {@code docs/decisions/NN-slug.md}, or {@code decisions/NN-slug.md}. */
    private static final Pattern CITED_PATH = Pattern.compile("decisions/(\\d{2}-[A-Za-z0-9_-]*\\.md)");
    /** A Markdown link from one record (or the index) to another, relative to docs/decisions/. */
    private static final Pattern SIBLING_LINK = Pattern.compile("]\\((\\d{2}-[A-Za-z0-9_-]*\\.md)(?:#[^)]*)?\\)");
    private static final Pattern TITLE = Pattern.compile("# (\\d+)\\. \\S.*");
    private static final Pattern STATUS =
            Pattern.compile("Status: (accepted|superseded by \\d+|withdrawn|designed, not built)");
    /** A row of the index's table: number, [title](file), status. */
    private static final Pattern INDEX_ROW =
            Pattern.compile("\\|\\s*(\\d+)\\s*\\|\\s*\\[[^]]+]\\(([^)]+)\\)\\s*\\|\\s*([^|]+?)\\s*\\|");
    private static final List<String> HEADINGS = List.of("## Context", "## Decision", "## Consequences");
    /** The file the records replaced; spelled in two parts so that this test does not cite it itself. */
    private static final String OLD_FILE = "docs/decisions" + ".md";

    @Test
    void everyCitedRecordExists() {
        List<String> faults = new ArrayList<>();
        for (Path file : textFiles()) {
            List<String> lines = lines(file);
            boolean inRecords = file.getParent() != null && file.getParent().equals(RECORDS);
            for (int i = 0; i < lines.size(); i++) {
                check(CITED_PATH, lines.get(i), file, i, faults);
                if (inRecords) {
                    check(SIBLING_LINK, lines.get(i), file, i, faults);
                }
            }
        }
        assertThat(faults).as("citations of decision records that do not exist").isEmpty();
    }

    @Test
    void theIndexListsEveryRecordAndNothingElse() {
        Path index = RECORDS.resolve("README.md");
        Map<String, Integer> listed = new LinkedHashMap<>();
        List<String> faults = new ArrayList<>();
        List<String> lines = lines(index);
        for (int i = 0; i < lines.size(); i++) {
            Matcher row = INDEX_ROW.matcher(lines.get(i));
            if (!row.lookingAt()) {
                continue;
            }
            String name = row.group(2);
            listed.put(name, i + 1);
            Path record = RECORDS.resolve(name);
            if (!RECORD_NAME.matcher(name).matches() || !Files.isRegularFile(record)) {
                faults.add(at(index, i) + "lists " + name + ", which is no record in docs/decisions/");
                continue;
            }
            List<String> recordLines = lines(record);
            Matcher title = TITLE.matcher(recordLines.isEmpty() ? "" : recordLines.get(0));
            if (!title.matches() || !title.group(1).equals(row.group(1))) {
                faults.add(at(index, i) + "gives number " + row.group(1) + " to " + name + ", whose title line is \""
                        + (recordLines.isEmpty() ? "" : recordLines.get(0)) + "\"");
            }
            String status = recordLines.stream().filter(l -> l.startsWith("Status: ")).findFirst().orElse("Status: ?");
            if (!status.substring("Status: ".length()).equals(row.group(3))) {
                faults.add(at(index, i) + "gives " + name + " the status \"" + row.group(3) + "\", the record says \""
                        + status + "\"");
            }
        }
        for (Path record : records()) {
            String name = record.getFileName().toString();
            if (!listed.containsKey(name)) {
                faults.add(rel(record) + ":1: is not listed in the table of " + rel(index));
            }
        }
        assertThat(faults).as("the index %s against the records", rel(index)).isEmpty();
    }

    @Test
    void everyRecordHasItsShape() {
        List<String> faults = new ArrayList<>();
        List<Path> records = records();
        assertThat(records).as("records in %s", rel(RECORDS)).isNotEmpty();
        for (Path record : records) {
            String name = record.getFileName().toString();
            List<String> lines = lines(record);
            if (!RECORD_NAME.matcher(name).matches()) {
                faults.add(rel(record) + ":1: a record's name is NN-short-slug.md (lower case)");
            }
            if (lines.size() > MAX_LINES) {
                faults.add(rel(record) + ":" + (MAX_LINES + 1) + ": " + lines.size() + " lines, more than "
                        + MAX_LINES + ": a record fits on one screen; measurements go to bench-results/");
            }
            Matcher title = TITLE.matcher(lines.isEmpty() ? "" : lines.get(0));
            if (!title.matches()) {
                faults.add(rel(record) + ":1: the first line is not a title \"# N. Title\"");
            } else if (Integer.parseInt(title.group(1)) != Integer.parseInt(name.substring(0, 2))) {
                faults.add(rel(record) + ":1: titled decision " + title.group(1) + " in a file numbered "
                        + name.substring(0, 2));
            }
            int status = indexOf(lines, l -> l.startsWith("Status:"));
            if (status < 0) {
                faults.add(rel(record) + ":1: no line \"Status: ...\"");
            } else if (!STATUS.matcher(lines.get(status)).matches()) {
                faults.add(at(record, status) + "\"" + lines.get(status)
                        + "\" is not one of accepted, superseded by N, withdrawn, designed, not built");
            }
            int previous = status;
            for (String heading : HEADINGS) {
                int at = indexOf(lines, heading::equals);
                if (at < 0) {
                    faults.add(rel(record) + ":1: no heading \"" + heading + "\"");
                } else if (at < previous) {
                    faults.add(at(record, at) + "\"" + heading + "\" is out of order (Status, then "
                            + String.join(", ", HEADINGS) + ")");
                } else {
                    previous = at;
                }
            }
        }
        assertThat(faults).as("the shape of the records in %s", rel(RECORDS)).isEmpty();
    }

    /**
     * The single decisions file is gone; nothing may cite it. README.md at the root is not excepted: it is repointed
     * when it is merged, and until then this test names its lines.
     */
    @Test
    void noFileCitesTheOldDecisionsFile() {
        List<String> faults = new ArrayList<>();
        for (Path file : textFiles()) {
            List<String> lines = lines(file);
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).contains(OLD_FILE)) {
                    faults.add(at(file, i) + lines.get(i).strip());
                }
            }
        }
        assertThat(faults).as("citations of %s, which docs/decisions/ replaced", OLD_FILE).isEmpty();
    }

    private static void check(Pattern pattern, String line, Path file, int i, List<String> faults) {
        Matcher m = pattern.matcher(line);
        while (m.find()) {
            String name = m.group(1);
            if (!Files.isRegularFile(RECORDS.resolve(name))) {
                faults.add(at(file, i) + "cites " + name + ", which is not in docs/decisions/");
            }
        }
    }

    private static List<Path> records() {
        try (Stream<Path> files = Files.list(RECORDS)) {
            return files.filter(p -> p.getFileName().toString().matches("\\d{2}-.*\\.md")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The repository's text files, as git sees them (tracked, or untracked and not ignored). */
    private static List<Path> textFiles() {
        Set<Path> files = new TreeSet<>();
        try {
            Process git = new ProcessBuilder("git", "ls-files", "--cached", "--others", "--exclude-standard", "-z")
                    .directory(ROOT.toFile()).redirectErrorStream(false).start();
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (git.waitFor() == 0) {
                for (String name : out.split("\0")) {
                    if (!name.isEmpty()) {
                        files.add(ROOT.resolve(name));
                    }
                }
            }
        } catch (IOException e) {
            files.clear();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (files.isEmpty()) {
            try (Stream<Path> walk = Files.walk(ROOT)) {
                walk.filter(Files::isRegularFile)
                        .filter(p -> {
                            Path r = ROOT.relativize(p);
                            for (Path part : r) {
                                String s = part.toString();
                                if (s.equals("target") || s.equals(".git")) {
                                    return false;
                                }
                            }
                            return true;
                        })
                        .forEach(files::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files.stream().filter(Files::isRegularFile).filter(DecisionRecordsTest::isText).toList();
    }

    private static boolean isText(Path file) {
        try {
            byte[] bytes = Files.readAllBytes(file);
            for (int i = 0; i < Math.min(bytes.length, 8000); i++) {
                if (bytes[i] == 0) {
                    return false;
                }
            }
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (MalformedInputException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int indexOf(List<String> lines, Predicate<String> p) {
        for (int i = 0; i < lines.size(); i++) {
            if (p.test(lines.get(i))) {
                return i;
            }
        }
        return -1;
    }

    private static String at(Path file, int index) {
        return rel(file) + ":" + (index + 1) + ": ";
    }

    private static String rel(Path file) {
        return ROOT.relativize(file).toString();
    }
}
