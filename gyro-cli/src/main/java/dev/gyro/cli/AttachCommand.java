package dev.gyro.cli;

import dev.gyro.agent.GyroAgent;
import dev.gyro.cluster.Backend;
import org.yaml.snakeyaml.Yaml;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs an unmodified application's own command line with Gyro attached (docs/decisions/34-attaching.md), then checks
 * the instances and says {@code attach: OK} or {@code attach: FAILED: why}.
 */
@Command(name = "attach", mixinStandardHelpOptions = true,
        description = "Run an unmodified Java application with Gyro attached: its classified methods run as requests over"
                + " the instances FILE describes, e.g. gyro attach --config attach.yaml -- java -cp app.jar Main."
                + " FILE (YAML): backend (sqlite, postgres or mariadb: throwaway databases), instances (a count),"
                + " classification (the file naming the application's methods), dir (the instances' folder, default"
                + " gyro-attach beside FILE), check (true: record every access and check Definition 1 at the end),"
                + " audits (a list of name, sql and optional expect: queries of one value asked of the application's"
                + " database as a whole before the first call and at exit), capacity (CxMms, e.g. 2x20ms: each"
                + " database serves C transactions at a time, M ms each, the capacity emulation of gyro bench).")
final class AttachCommand implements java.util.concurrent.Callable<Integer> {

    private static final Set<String> KEYS = Set.of("backend", "instances", "classification", "dir", "check",
            "audits", "capacity");

    @Option(names = "--config", paramLabel = "FILE", required = true, description = "what to attach: see above")
    Path config;

    @Option(names = "--agent", description = "print the -javaagent argument for those who start java themselves, and exit")
    boolean agent;

    @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "the application's command line, beginning with java")
    List<String> command = new ArrayList<>();

    /** What FILE says, checked. */
    record Config(Backend backend, int instances, Path classification, Path dir, boolean check,
                  List<Map<String, String>> audits, String capacity) {}

    @Override
    public Integer call() throws Exception {
        Config c;
        try {
            c = read(config);
        } catch (IllegalArgumentException e) {
            System.err.println("gyro attach: " + e.getMessage());
            return 2;
        }
        Path instances = c.dir().resolve("instances");
        String javaagent = "-javaagent:" + agentJar(c.dir()) + "=classification=" + c.classification() + ",dir="
                + instances + ",instances=" + c.instances() + ",backend=" + c.backend().label()
                + (c.check() ? ",check=true" : "") + (c.audits().isEmpty() ? "" : ",audits=" + auditsFile(c))
                + (c.capacity() != null ? ",capacity=" + c.capacity() : "");
        if (agent) {
            System.out.println(javaagent);
            return 0;
        }
        if (command.isEmpty() || !Path.of(command.get(0)).getFileName().toString().equals("java")) {
            System.err.println("gyro attach: give the application's command line after --, beginning with java");
            return 2;
        }
        if (Files.exists(instances)) {
            System.err.println("gyro attach: " + instances + " holds the instances of an earlier run: remove it, or"
                    + " give another dir");
            return 2;
        }
        List<String> run = new ArrayList<>(command);
        run.add(1, javaagent);
        int status = new ProcessBuilder(run).inheritIO().start().waitFor();
        String failed = status != 0 ? "the command exited with status " + status : check(instances);
        System.out.println(failed == null ? "attach: OK" : "attach: FAILED: " + failed);
        return failed == null ? 0 : 1;
    }

    /**
     * What the agent found at the application's exit (docs/decisions/34-attaching.md), its first line the verdict, then
     * the audits' values: null if the instances agree and every audit holds.
     */
    static String check(Path instances) throws IOException {
        Path outcome = instances.resolve(GyroAgent.OUTCOME);
        if (!Files.exists(outcome)) return "the agent left no outcome in " + outcome + " (did it attach?)";
        List<String> said = Files.readString(outcome, StandardCharsets.UTF_8).strip().lines().toList();
        String verdict = said.isEmpty() ? "" : said.get(0);
        if (verdict.startsWith("OK")) System.out.println("gyro attach: " + verdict.replaceFirst("^OK: ", ""));
        said.stream().skip(1).forEach(line -> System.out.println("gyro attach: " + line)); // the audits
        return verdict.startsWith("OK") ? null : verdict.replaceFirst("^FAILED: ", "");
    }

    /** The audits, as the agent reads them ({@code audits=FILE}): a JSON list in the run's folder. */
    private static Path auditsFile(Config c) throws IOException {
        Files.createDirectories(c.dir());
        Path file = c.dir().resolve("audits.json");
        new com.fasterxml.jackson.databind.ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(file.toFile(),
                c.audits());
        return file;
    }

    /** The {@code audits} list: each a name, an sql query and, optionally, the value it must have at exit. */
    private static List<Map<String, String>> audits(Path file, Object given) {
        if (given == null) return List.of();
        if (!(given instanceof List<?> list))
            throw new IllegalArgumentException(file + ": audits: a list of {name, sql, expect}, not " + given);
        List<Map<String, String>> out = new ArrayList<>();
        for (Object o : list) {
            if (!(o instanceof Map<?, ?> m) || !(m.get("name") instanceof String) || !(m.get("sql") instanceof String)
                    || !Set.of("name", "sql", "expect").containsAll(m.keySet().stream().map(String::valueOf).toList()))
                throw new IllegalArgumentException(file + ": audits: each audit has a name, an sql query and optionally"
                        + " expect (its value at exit), not " + o);
            Map<String, String> a = new java.util.LinkedHashMap<>();
            a.put("name", (String) m.get("name"));
            a.put("sql", (String) m.get("sql"));
            if (m.get("expect") != null) a.put("expect", String.valueOf(m.get("expect")));
            out.add(a);
        }
        return out;
    }

    static Config read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException("--config " + file + ": no such file");
        Object root;
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            root = new Yaml().load(in);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(file + ": not valid YAML: " + e.getMessage());
        }
        if (!(root instanceof Map<?, ?> map)) throw new IllegalArgumentException(file + ": expected keys " + KEYS);
        for (Object k : map.keySet())
            if (!KEYS.contains(String.valueOf(k)))
                throw new IllegalArgumentException(file + ": unknown key '" + k + "' (known: " + KEYS + ")");
        Backend backend;
        try {
            Object b = map.get("backend");
            backend = Backend.parse(b == null ? "sqlite" : String.valueOf(b));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": backend: " + e.getMessage());
        }
        Object n = map.get("instances");
        int instances = n == null ? 3 : n instanceof Integer i && i >= 1 && i <= 64 ? i : -1;
        if (instances < 0) throw new IllegalArgumentException(file + ": instances: a count from 1 to 64, not " + n);
        Path folder = file.toAbsolutePath().getParent();
        Object cls = map.get("classification");
        if (cls == null) throw new IllegalArgumentException(file + ": no classification (the file naming the"
                + " application's methods, as gyro analyze writes it)");
        Path classification = folder.resolve(String.valueOf(cls));
        if (!Files.isReadable(classification))
            throw new IllegalArgumentException(file + ": classification " + classification + " cannot be read");
        Object dir = map.get("dir"), check = map.get("check");
        if (check != null && !(check instanceof Boolean))
            throw new IllegalArgumentException(file + ": check: true or false, not " + check);
        Object capacity = map.get("capacity");
        if (capacity != null && !String.valueOf(capacity).matches("[0-9]{1,4}x[0-9]{1,6}ms"))
            throw new IllegalArgumentException(file + ": capacity: CxMms (C transactions at a time, M ms each, e.g."
                    + " 2x20ms), not " + capacity);
        return new Config(backend, instances, classification,
                folder.resolve(dir == null ? "gyro-attach" : String.valueOf(dir)), Boolean.TRUE.equals(check),
                audits(file, map.get("audits")), capacity == null ? null : String.valueOf(capacity));
    }

    /**
     * The agent's jar in {@code dir}: the bridge, and a manifest naming Gyro's own jars (this command's class path),
     * which the agent loads apart from the application's (docs/decisions/34-attaching.md).
     */
    static Path agentJar(Path dir) throws IOException {
        return dev.gyro.agent.AgentJar.write(dir, System.getProperty("surefire.test.class.path",
                System.getProperty("java.class.path")));
    }
}
