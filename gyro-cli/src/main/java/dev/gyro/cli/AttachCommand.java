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

    @Option(names = "--processes", paramLabel = "N", defaultValue = "1", description = "run N processes of the command,"
            + " each beside its own instance of a ring of N (mutual TLS between them); a call another instance owns runs"
            + " there (default: ${DEFAULT-VALUE}, one process over every instance)")
    int processes;

    @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "the application's command line, beginning with java")
    List<String> command = new ArrayList<>();

    /** What FILE says, checked. */
    record Config(Backend backend, int instances, Path classification, Path dir, boolean check,
                  List<Map<String, String>> audits, String capacity, boolean instancesGiven) {}

    @Override
    public Integer call() throws Exception {
        Config c;
        try {
            c = read(config);
        } catch (IllegalArgumentException e) {
            System.err.println("gyro attach: " + e.getMessage());
            return 2;
        }
        if (processes != 1) return several(c);
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
     * {@code --processes N}: N processes of the command, each beside its own instance of a ring of N on free loopback
     * ports with fresh certificates (docs/decisions/38-attached-processes.md). Each process's start-up writes to its own
     * instance's database; position 0 checks the ring once every process is done.
     */
    private int several(Config c) throws Exception {
        String refused = processes < 2 || processes > 64 ? "--processes " + processes + ": from 2 to 64 processes"
                : c.instancesGiven() && c.instances() != processes ? "instances: " + c.instances() + " but --processes "
                + processes + ": each process hosts one instance"
                : c.check() || !c.audits().isEmpty() ? "check and audits are not built for several processes: run the"
                + " application in one process for them" : null;
        if (refused != null) {
            System.err.println("gyro attach: " + refused);
            return 2;
        }
        Path instances = c.dir().resolve("instances");
        if (!agent && (command.isEmpty() || !Path.of(command.get(0)).getFileName().toString().equals("java"))) {
            System.err.println("gyro attach: give the application's command line after --, beginning with java");
            return 2;
        }
        if (!agent && Files.exists(instances)) {
            System.err.println("gyro attach: " + instances + " holds the instances of an earlier run: remove it, or"
                    + " give another dir");
            return 2;
        }
        Files.createDirectories(c.dir());
        dev.gyro.agent.ProcessRing ring = dev.gyro.agent.ProcessRing.create(c.dir(), processes, "attach");
        List<dev.gyro.servers.DatabaseServer> servers = new ArrayList<>();
        try {
            List<String> javaagents = new ArrayList<>();
            for (int p = 0; p < processes; p++) {
                String db = "";
                if (c.backend().serverKind() != null && !agent) {
                    dev.gyro.servers.DatabaseServer s = dev.gyro.servers.DatabaseServer.create(c.backend().serverKind(),
                            dev.gyro.cluster.LocalCluster.serverDirectory(instances, p)).start();
                    servers.add(s);
                    s.createDatabase(dev.gyro.cluster.LocalCluster.DATABASE);
                    db = ",db=" + s.jdbcUrl(dev.gyro.cluster.LocalCluster.DATABASE);
                }
                javaagents.add("-javaagent:" + agentJar(c.dir()) + "=classification=" + c.classification() + ",dir="
                        + instances + db + ring.options(p) + (c.capacity() != null ? ",capacity=" + c.capacity() : ""));
            }
            if (agent) {
                javaagents.forEach(System.out::println);
                return 0;
            }
            List<Process> started = new ArrayList<>();
            List<Thread> copies = new ArrayList<>();
            for (int p = 0; p < processes; p++) {
                List<String> run = new ArrayList<>(command);
                run.add(1, javaagents.get(p));
                Process process = new ProcessBuilder(run).redirectErrorStream(true).start();
                started.add(process);
                String prefix = "[" + p + "] ";
                Thread copy = new Thread(() -> {
                    try (java.io.BufferedReader in = process.inputReader(StandardCharsets.UTF_8)) {
                        for (String line = in.readLine(); line != null; line = in.readLine())
                            System.out.println(prefix + line);
                    } catch (IOException e) {
                        System.out.println(prefix + "output lost: " + e.getMessage());
                    }
                }, "gyro-attach-output-" + p);
                copy.start();
                copies.add(copy);
            }
            String failed = null;
            for (int p = 0; p < processes; p++) {
                int status = started.get(p).waitFor();
                copies.get(p).join();
                if (status != 0 && failed == null) failed = "process " + p + " exited with status " + status;
            }
            if (failed == null) failed = check(instances);
            System.out.println(failed == null ? "attach: OK" : "attach: FAILED: " + failed);
            return failed == null ? 0 : 1;
        } finally {
            for (dev.gyro.servers.DatabaseServer s : servers) s.stop();
        }
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
                audits(file, map.get("audits")), capacity == null ? null : String.valueOf(capacity), n != null);
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
