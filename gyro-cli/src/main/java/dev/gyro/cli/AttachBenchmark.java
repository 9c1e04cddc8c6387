package dev.gyro.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.gyro.agent.GyroAgent;
import dev.gyro.servers.DatabaseServer;
import dev.gyro.servers.ServerKind;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.DoubleSummaryStatistics;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * {@code gyro bench attach}: CMU BenchBase, built from its own source and run unmodified by its own driver, with Gyro
 * attached over 1, 2, 4 and 8 instances against BenchBase on one database, side by side in one run, every database
 * with the capacity emulation of {@code gyro bench} (docs/decisions/36-attached-benchmark.md); then the agent's own
 * cost on the local path: the same runs at a fixed rate without capacity emulation, with the agent at one instance and
 * without any agent, p50 latency side by side. Writes README.md, results.json and throughput.png.
 */
final class AttachBenchmark {

    static final String NAME = "attach";
    /** Each database's emulated server, as in every scenario of gyro bench (docs/benchmark-method.md). */
    static final String CAPACITY = "2x20ms";
    private static final String ONE_DATABASE = "one database";
    /**
     * Seconds of warm-up before a run that measures the agent's cost (at a fixed rate, one terminal): 3,000 calls at
     * 100/s, enough for the JIT to compile Gyro's per-call code (docs/benchmarks.md, "CMU BenchBase, unmodified").
     */
    private static final int OVERHEAD_WARMUP = 30;
    /** The agent attached with no instance and no emulation: its advice on the methods alone, calls only counted. */
    private static final String PASS_THROUGH = "agent passing through";
    private static final String NO_AGENT = "no agent";
    /** The configurations of a round measuring the agent's cost: BenchBase alone, the agent's advice alone, Gyro. */
    private static final List<String> COST_SYSTEMS = List.of(NO_AGENT, PASS_THROUGH, "agent");
    /**
     * The rates the agent's cost is measured at, on one terminal: 100 requests/s, the machine idle between calls (each
     * call finds its code and data gone cold from the processor's caches), and back to back ({@code unlimited}), as
     * on a loaded server.
     */
    private static final List<String> COST_RATES = List.of("100", "unlimited");
    /** The agent's line at exit on where a local call's time went. */
    private static final String TIMING = "gyro agent: a local call's time, ";
    /** The agent's line at exit on how long a local call's method took where it passed calls through. */
    private static final String PASSED = "gyro agent: a local call's method passed through, ";

    /** One of BenchBase's benchmarks, at a scale factor. */
    record Benchmark(String name, String scale) {}

    /** What a run measures. */
    record Settings(List<Benchmark> benchmarks, List<Integer> instances, int terminals, int warmup, int time,
                    List<Benchmark> overhead, List<String> overheadRates, int overheadTime, int overheadRounds) {

        static Settings full() {
            return new Settings(List.of(new Benchmark("tatp", "0.1"), new Benchmark("voter", "1"),
                    new Benchmark("tpcc", "1")), List.of(1, 2, 4, 8), 32, 5, 15,
                    List.of(new Benchmark("voter", "1"), new Benchmark("tatp", "0.1")), COST_RATES, 20, 3);
        }

        /** A few minutes: TATP and Voter at 1 and 4 instances, short runs; the agent's cost on Voter. */
        static Settings quick() {
            return new Settings(List.of(new Benchmark("tatp", "0.1"), new Benchmark("voter", "1")), List.of(1, 4), 16,
                    2, 8, List.of(new Benchmark("voter", "1")), COST_RATES, 10, 2);
        }

        /**
         * Only the benchmarks named (of tatp, voter, tpcc; null: all), in both parts, and only Gyro's points at the
         * instance counts given (null: all; one database is always measured beside them).
         */
        Settings only(List<String> names, List<Integer> counts) {
            if (names != null)
                for (String n : names)
                    if (Stream.of("tatp", "voter", "tpcc").noneMatch(n::equals))
                        throw new IllegalArgumentException("--benchmarks: tatp, voter or tpcc, not " + n);
            if (counts != null)
                for (int n : counts)
                    if (n < 1 || n > 64) throw new IllegalArgumentException("--instances: 1 to 64, not " + n);
            return new Settings(benchmarks.stream().filter(b -> names == null || names.contains(b.name())).toList(),
                    counts == null ? instances : counts.stream().sorted().distinct().toList(), terminals, warmup, time,
                    overhead.stream().filter(b -> names == null || names.contains(b.name())).toList(), overheadRates,
                    overheadTime, overheadRounds);
        }

        int points() {
            return benchmarks.size() * (instances.size() + 1)
                    + COST_SYSTEMS.size() * overhead.size() * overheadRates.size() * overheadRounds;
        }
    }

    /**
     * One run of BenchBase: its own figures (from its summary file), and what Gyro said at its exit.
     *
     * @param system     "one database", "gyro" or, for the overhead, "no agent", "agent passing through" / "agent"
     * @param unexpected BenchBase's "Unexpected SQL Errors" (0 when it listed none)
     * @param outcome    the agent's outcome at exit ({@code OK ...} or {@code FAILED: ...}); null without Gyro
     * @param notRun     why the run gave no figures; null when it did
     * @param machine    the share of this machine's cores busy over the measured window, or null
     */
    record Point(String benchmark, String system, int instances, int terminals, String rate, double throughput,
                 double goodput, double p50Ms, double p99Ms, double meanMs, long requests, long unexpected,
                 long retried, String outcome, String notRun, Double machine, double seconds, String timing,
                 int round, Double jvmCpuMicrosPerRequest) {

        boolean ran() {
            return notRun == null;
        }
    }

    private final Settings settings;
    private final boolean quick;
    private final Path source;
    private final Path out;
    private final PrintStream say;
    private final String command;

    /**
     * @param only      the benchmarks to run (null: every one of the form)
     * @param instances the instance counts of Gyro's points (null: those of the form)
     */
    AttachBenchmark(boolean quick, List<String> only, List<Integer> instances, Path source, Path out, PrintStream say,
                    String command) {
        this.quick = quick;
        this.settings = (quick ? Settings.quick() : Settings.full()).only(only, instances);
        this.source = source.toAbsolutePath().normalize();
        this.out = out.toAbsolutePath().normalize(); // BenchBase runs in a folder of its own: every path absolute
        this.say = say;
        this.command = command;
    }

    /** Runs every point and writes the report; 0 when every point ran and every Gyro run ended OK. */
    int run() throws Exception {
        if (!Files.isRegularFile(source.resolve("pom.xml"))) {
            say.println("bench: FAILED: BenchBase's source is not at " + source + " (--benchbase DIR; docs/testing.md,"
                    + " \"CMU BenchBase\")");
            return 2;
        }
        Optional<Path> jdk = jdk23();
        if (jdk.isEmpty()) {
            say.println("bench: FAILED: BenchBase needs a JDK of version 23 or later under /usr/lib/jvm; there is none");
            return 2;
        }
        long started = System.nanoTime();
        Path work = OwnedFolder.fresh(out.resolve(".work"), "--out");
        say.printf(Locale.ROOT, "Gyro bench attach: BenchBase %s on PostgreSQL, one database against Gyro at %s"
                        + " instances, every database %s; %d terminals, %d s + %d s warm-up each; then the agent's cost"
                        + " (%s at %s requests/s, 1 terminal, no emulation): %d runs%n",
                settings.benchmarks().stream().map(b -> b.name() + " (scale " + b.scale() + ")").toList(),
                settings.instances(), describe(CAPACITY), settings.terminals(), settings.time(), settings.warmup(),
                settings.overhead().stream().map(Benchmark::name).toList(), String.join(" and ", settings.overheadRates()),
                settings.points());
        Path benchbase = build(jdk.get());
        Path agentJar = AttachCommand.agentJar(work);
        List<Point> points = new ArrayList<>();
        int i = 0;
        for (Benchmark b : settings.benchmarks()) {
            Path classification = analyze(b.name(), work);
            points.add(progress(++i, started, point(benchbase, jdk.get(), agentJar, classification, work, b,
                    ONE_DATABASE, 1, settings.terminals(), null, settings.time(), CAPACITY)));
            for (int n : settings.instances())
                points.add(progress(++i, started, point(benchbase, jdk.get(), agentJar, classification, work, b,
                        "gyro", n, settings.terminals(), null, settings.time(), CAPACITY)));
        }
        for (Benchmark b : settings.overhead()) {
            Path classification = work.resolve(b.name() + ".json");
            if (!Files.exists(classification)) classification = analyze(b.name(), work);
            // Rounds of the three, each round in another order: at a p50 of a few tenths of a millisecond, two runs of
            // one configuration differ by more than the target, so one run of each could not tell 10% apart
            // (docs/benchmarks.md, "CMU BenchBase, unmodified")
            for (String rate : settings.overheadRates())
                for (int round = 0; round < settings.overheadRounds(); round++)
                    for (int k = 0; k < COST_SYSTEMS.size(); k++) {
                        String system = COST_SYSTEMS.get((k + round) % COST_SYSTEMS.size());
                        points.add(progress(++i, started, point(benchbase, jdk.get(), system.equals(NO_AGENT) ? null
                                : agentJar, classification, work, b, system, 1, 1, rate, settings.overheadTime(), null,
                                round)));
                    }
        }
        double wall = (System.nanoTime() - started) / 1e9;
        for (Benchmark b : settings.benchmarks())
            Files.copy(work.resolve(b.name() + ".json"), out.resolve(b.name() + "-classification.json"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        OwnedFolder.delete(work);
        String plot = plot(points);
        Files.writeString(out.resolve("README.md"), report(points, plot, wall));
        writeJson(points, wall);
        say.println();
        say.print(table(points));
        if (!settings.overhead().isEmpty()) say.print(overheadTable(points));
        say.printf(Locale.ROOT, "%nwrote %s, %s, %s (%.0f s)%n", out.resolve("README.md"), out.resolve("results.json"),
                out.resolve(plot), wall);
        List<String> failed = new ArrayList<>();
        for (Point p : points) {
            if (!p.ran()) failed.add(label(p) + ": not run: " + p.notRun());
            else if (p.outcome() != null && !p.outcome().startsWith("OK"))
                failed.add(label(p) + ": " + p.outcome());
        }
        if (failed.isEmpty()) {
            say.printf("bench: OK (attach, %d points run, every Gyro run's instances applied the same global requests)%n",
                    points.size());
            return 0;
        }
        say.println("bench: FAILED: " + String.join(" | ", failed));
        return 1;
    }

    private Point progress(int i, long started, Point p) {
        say.printf(Locale.ROOT, "[%2d/%d %4.0fs] %s%n", i, settings.points(), (System.nanoTime() - started) / 1e9,
                !p.ran() ? label(p) + "  not run: " + p.notRun()
                        : String.format(Locale.ROOT, "%-28s %7.0f /s  p50 %8.2f ms  p99 %8.2f ms%s%s%s", label(p),
                        p.throughput(), p.p50Ms(), p.p99Ms(),
                        p.unexpected() > 0 ? "  " + p.unexpected() + " unexpected SQL errors" : "",
                        p.machine() == null ? "" : String.format(Locale.ROOT, "  machine %.0f%% busy", 100 * p.machine()),
                        p.outcome() == null ? "" : "  " + (p.outcome().startsWith("OK") ? "OK" : p.outcome())));
        return p;
    }

    private static String label(Point p) {
        return p.benchmark() + " " + (p.system().equals("gyro") || p.system().equals("agent")
                ? p.system() + " " + p.instances() + (p.instances() == 1 ? " instance" : " instances") : p.system())
                + (COST_SYSTEMS.contains(p.system()) ? " " + rateLabel(p.rate()) : "")
                + (p.round() > 0 ? " #" + (p.round() + 1) : "");
    }

    private static String describe(String capacity) {
        String[] cm = capacity.replace("ms", "").split("x");
        return "serving " + cm[0] + " transactions at a time, " + cm[1] + " ms each";
    }

    // ----------------------------------------------------------------------------------------- BenchBase itself

    /** A JDK that runs BenchBase (its jars are Java 23 bytecode), or none. */
    static Optional<Path> jdk23() throws IOException {
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) return Optional.empty();
        try (Stream<Path> all = Files.list(jvms)) {
            return all.filter(j -> Files.isExecutable(j.resolve("bin/javac"))).filter(j -> {
                try {
                    String release = Files.readString(j.resolve("release"));
                    int at = release.indexOf("JAVA_VERSION=\"");
                    return at >= 0 && Integer.parseInt(release.substring(at + 14).split("[.\"]")[0]) >= 23;
                } catch (IOException | RuntimeException e) {
                    return false;
                }
            }).sorted().findFirst();
        }
    }

    /**
     * BenchBase built as shipped with its PostgreSQL profile (docs/testing.md, "CMU BenchBase"), in a copy of its source
     * (the source stays untouched), once: later runs reuse the build in the system's temporary folder.
     */
    private Path build(Path jdk) throws Exception {
        Path at = Path.of(System.getProperty("java.io.tmpdir"), "gyro-benchbase");
        Path built = at.resolve("benchbase-postgres");
        if (Files.isRegularFile(built.resolve("benchbase.jar"))) {
            say.println("BenchBase: the build in " + built);
            return built;
        }
        say.println("BenchBase: building it from " + source + " in " + at + " (once; a few minutes) ...");
        Files.createDirectories(at);
        Path src = Files.createTempDirectory(at, "src");
        copy(source, src);
        ProcessBuilder mvn = new ProcessBuilder("mvn", "-B", "-q", "package", "-P", "postgres", "-DskipTests",
                "-Dfmt.skip=true", "-Dmaven.compiler.release=23").directory(src.toFile()).redirectErrorStream(true)
                .redirectOutput(at.resolve("build.log").toFile());
        mvn.environment().put("JAVA_HOME", jdk.toString());
        if (mvn.start().waitFor() != 0)
            throw new IllegalStateException("BenchBase did not build: see " + at.resolve("build.log"));
        if (new ProcessBuilder("tar", "-xzf", src.resolve("target/benchbase-postgres.tgz").toString())
                .directory(at.toFile()).inheritIO().start().waitFor() != 0)
            throw new IllegalStateException("BenchBase's archive did not unpack in " + at);
        return built;
    }

    /** Copies the folder {@code from}, all in it, to {@code to} (BenchBase's source is read-only: it builds in a copy). */
    static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path at = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) Files.createDirectories(at);
                else Files.copy(f, at);
            }
        }
    }

    /**
     * {@code analyze ...}: the arguments of {@code gyro analyze} for one of BenchBase's benchmarks in the source {@code
     * src}: its procedures, with the kit's statement and procedure classes, its constants and its DDL beside them.
     */
    static List<String> analyzeArguments(Path src, String benchmark, Path json) throws IOException {
        Path kit = src.resolve("src/main/java/com/oltpbenchmark");
        String constants;
        try (Stream<Path> files = Files.list(kit.resolve("benchmarks/" + benchmark))) {
            constants = files.map(f -> f.getFileName().toString()).filter(f -> f.endsWith("Constants.java"))
                    .findFirst().orElseThrow().replace(".java", "");
        }
        List<String> args = new ArrayList<>(List.of("analyze", kit.resolve("benchmarks/" + benchmark + "/procedures").toString(),
                kit.resolve("api/Procedure.java").toString(), kit.resolve("api/SQLStmt.java").toString(),
                kit.resolve("benchmarks/" + benchmark + "/" + constants + ".java").toString(),
                src.resolve("src/main/resources/benchmarks/" + benchmark + "/ddl-postgres.sql").toString(),
                "--json", json.toString()));
        // Wikipedia's worker runs two procedures in one transaction (updatePage: GetPageAnonymous, then UpdatePage):
        // its methods are the transactions, so it is analyzed too. The other kits' workers run one procedure per
        // transaction and draw its arguments inside their own methods, which would give nothing to partition by.
        if (benchmark.equals("wikipedia")) args.add(1, kit.resolve("benchmarks/wikipedia/WikipediaWorker.java").toString());
        return args;
    }

    /** The classification {@code gyro analyze} writes for a benchmark's procedures, naming each one's run method. */
    private Path analyze(String benchmark, Path work) throws Exception {
        Path json = work.resolve(benchmark + ".json");
        List<String> analyze = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
                System.getProperty("java.class.path"), Gyro.class.getName()));
        analyze.addAll(analyzeArguments(source, benchmark, json));
        Path log = work.resolve("analyze-" + benchmark + ".log");
        if (new ProcessBuilder(analyze).redirectErrorStream(true).redirectOutput(log.toFile()).start().waitFor() != 0)
            throw new IllegalStateException("gyro analyze failed on " + benchmark + ": " + Files.readString(log));
        JsonNode rules = new ObjectMapper().readTree(json.toFile()).path("transactions");
        List<String> kinds = new ArrayList<>();
        for (JsonNode r : rules) kinds.add(r.path("name").asText() + " " + r.path("class").asText());
        say.println("gyro analyze " + benchmark + ": " + String.join(", ", kinds));
        return json;
    }

    /**
     * One run of BenchBase's own driver ({@code --create --load --execute}) on its PostgreSQL sample configuration,
     * changed only in what the configuration exposes: URL, scale factor, terminals, warm-up, time, rate.
     *
     * @param system   {@code one database} and {@code no agent}: a throwaway PostgreSQL server of its own;
     *                 {@code one database} also with the agent passing calls through, each holding a slot of the
     *                 emulated server; {@code gyro} and {@code agent}: the agent over {@code n} instances
     * @param capacity the agent's {@code capacity=}, or null
     */
    private Point point(Path benchbase, Path jdk, Path agentJar, Path classification, Path work, Benchmark b,
                        String system, int n, int terminals, String rate, int time, String capacity) throws Exception {
        return point(benchbase, jdk, agentJar, classification, work, b, system, n, terminals, rate, time, capacity, 0);
    }

    /** As above, as the {@code round}-th run of its configuration (0 for the first). */
    private Point point(Path benchbase, Path jdk, Path agentJar, Path classification, Path work, Benchmark b,
                        String system, int n, int terminals, String rate, int time, String capacity, int round)
            throws Exception {
        String name = b.name() + "-" + system.replace(' ', '-') + "-" + n + (rate != null ? "-rate-" + rate : "")
                + (round > 0 ? "-" + (round + 1) : "");
        Path dir = Files.createDirectories(work.resolve(name));
        boolean gyro = system.equals("gyro") || system.equals("agent");
        DatabaseServer server = null;
        long began = System.nanoTime();
        try {
            String url;
            if (gyro) url = null; // the sample's own URL: the agent takes its connections over, it is never reached
            else {
                server = DatabaseServer.create(ServerKind.POSTGRES, dir.resolve("server")).start();
                server.createDatabase("benchbase");
                url = server.jdbcUrl("benchbase");
            }
            Path config = dir.resolve("config.xml");
            Files.writeString(config, config(benchbase, b, url, terminals, rate,
                    rate == null ? settings.warmup() : OVERHEAD_WARMUP, time));
            Path instances = dir.resolve("instances");
            List<String> run = new ArrayList<>(List.of(jdk.resolve("bin/java").toString()));
            if (agentJar != null) run.add("-javaagent:" + agentJar + "=classification=" + classification
                    + (gyro ? ",dir=" + instances + ",instances=" + n + ",backend=postgres" : "")
                    + (capacity != null ? ",capacity=" + capacity : ""));
            run.addAll(List.of("-jar", "benchbase.jar", "-b", b.name(), "-c", config.toString(), "--create=true",
                    "--load=true", "--execute=true", "-d", dir.resolve("results").toString()));
            Path log = dir.resolve("benchbase.log");
            Watched watched = runWatched(run, benchbase, log, time);
            Double machine = watched.machine();
            String output = Files.readString(log, StandardCharsets.UTF_8);
            Files.copy(log, out.resolve(name + ".log"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            String outcome = null;
            if (gyro) {
                Path said = instances.resolve(GyroAgent.OUTCOME);
                outcome = Files.exists(said) ? Files.readString(said).strip() : "FAILED: the agent left no outcome";
            }
            double seconds = (System.nanoTime() - began) / 1e9;
            Optional<Path> summary;
            try (Stream<Path> files = Files.exists(dir.resolve("results")) ? Files.list(dir.resolve("results"))
                    : Stream.empty()) {
                summary = files.filter(f -> f.getFileName().toString().endsWith(".summary.json")).findFirst();
            }
            String rateLabel = rate == null ? "unlimited" : rate;
            if (summary.isEmpty())
                return new Point(b.name(), system, n, terminals, rateLabel, 0, 0, 0, 0, 0, 0, 0, 0, outcome,
                        "BenchBase wrote no summary: " + lastLines(output), machine, seconds, null, round, null);
            JsonNode s = new ObjectMapper().readTree(summary.get().toFile());
            JsonNode latency = s.path("Latency Distribution");
            return new Point(b.name(), system, n, terminals, rateLabel, s.path("Throughput (requests/second)").asDouble(),
                    s.path("Goodput (requests/second)").asDouble(),
                    latency.path("Median Latency (microseconds)").asDouble() / 1000,
                    latency.path("99th Percentile Latency (microseconds)").asDouble() / 1000,
                    latency.path("Average Latency (microseconds)").asDouble() / 1000,
                    s.path("Measured Requests").asLong(), section(output, "Unexpected SQL Errors:"),
                    section(output, "Rejected Transactions (Server Retry):"), outcome, null, machine, seconds,
                    output.lines().filter(l -> l.startsWith(TIMING) || l.startsWith(PASSED))
                            .map(l -> l.substring(l.startsWith(TIMING) ? TIMING.length() : PASSED.length()))
                            .findFirst().orElse(null), round, watched.jvmCpuSeconds() == null
                            || s.path("Measured Requests").asLong() == 0 ? null
                            : 1e6 * watched.jvmCpuSeconds() / s.path("Measured Requests").asLong());
        } finally {
            if (server != null) server.stop();
        }
    }

    /** BenchBase's PostgreSQL sample configuration of {@code b}, with only the settings it exposes changed. */
    private static String config(Path benchbase, Benchmark b, String url, int terminals, String rate, int warmup,
                                 int time)
            throws IOException {
        String xml = Files.readString(benchbase.resolve("config/postgres/sample_" + b.name() + "_config.xml"));
        if (url != null) xml = xml.replaceFirst("<url>[^<]*</url>", java.util.regex.Matcher.quoteReplacement(
                "<url>" + url.replace("&", "&amp;") + "</url>"));
        xml = xml.replaceFirst("<scalefactor>[^<]*</scalefactor>", "<scalefactor>" + b.scale() + "</scalefactor>")
                .replaceFirst("<terminals>[^<]*</terminals>", "<terminals>" + terminals + "</terminals>")
                .replaceFirst("<time>[^<]*</time>", "<warmup>" + warmup + "</warmup><time>" + time + "</time>")
                .replaceFirst("<rate>[^<]*</rate>", "<rate>" + (rate == null ? "unlimited" : rate) + "</rate>");
        return xml;
    }

    /**
     * Runs BenchBase, its output into {@code log}; the share of this machine's cores busy over its measured window (the
     * {@code time} seconds before it printed its result), or null where /proc/stat cannot be read.
     */
    /** What a run's watcher saw over its measured window: the machine's share busy, BenchBase's JVM's CPU time. */
    record Watched(Double machine, Double jvmCpuSeconds) {}

    private static Watched runWatched(List<String> command, Path in, Path log, int time) throws Exception {
        Process p = new ProcessBuilder(command).directory(in.toFile()).redirectErrorStream(true).start();
        List<long[]> samples = new ArrayList<>(); // {nanoTime, busy, total, the JVM's CPU ticks}
        Thread sampler = new Thread(() -> {
            try {
                while (true) {
                    long[] cpu = cpu();
                    long jvm = processTicks(p.pid());
                    if (cpu != null) synchronized (samples) {
                        samples.add(new long[] {System.nanoTime(), cpu[0], cpu[1], jvm});
                    }
                    Thread.sleep(500);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "gyro-bench-cpu");
        sampler.setDaemon(true);
        sampler.start();
        Double busy = null, jvm = null;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
             PrintWriter w = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                w.println(line);
                if (busy == null && line.contains("requests/sec (throughput)")) {
                    busy = busySince(samples, time);
                    jvm = jvmCpuSince(samples, time, processTicks(p.pid()));
                }
            }
        }
        p.waitFor();
        sampler.interrupt();
        return new Watched(busy, jvm);
    }

    /**
     * CPU seconds BenchBase's JVM (and, with the agent, Gyro's instances in it) used over the measured window, from its
     * {@code /proc} ticks: a figure the machine's load changes far less than latency (docs/benchmarks.md).
     */
    private static Double jvmCpuSince(List<long[]> samples, int seconds, long now) {
        if (now < 0) return null;
        long from = System.nanoTime() - seconds * 1_000_000_000L;
        synchronized (samples) {
            for (long[] s : samples)
                if (s[0] >= from) return s[3] < 0 ? null : (now - s[3]) / (double) CLOCK_TICKS;
        }
        return null;
    }

    /** The kernel's clock ticks a second, in which /proc reports a process's CPU time (USER_HZ, 100 on Linux). */
    private static final int CLOCK_TICKS = 100;

    /** A process's user and system CPU time so far, in clock ticks ({@code /proc/PID/stat}), or -1. */
    private static long processTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14, 15)
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static Double busySince(List<long[]> samples, int seconds) {
        long[] now = cpu();
        if (now == null) return null;
        long from = System.nanoTime() - seconds * 1_000_000_000L;
        synchronized (samples) {
            long[] start = null;
            for (long[] s : samples) if (s[0] >= from) {
                start = s;
                break;
            }
            if (start == null || now[1] == start[2]) return null;
            return (double) (now[0] - start[1]) / (now[1] - start[2]);
        }
    }

    /** {busy, total} ticks of every core since boot (/proc/stat's first line), or null. */
    private static long[] cpu() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/stat"))) {
            String[] f = lines.findFirst().orElse("").trim().split("\\s+");
            long total = 0, idle = 0;
            for (int i = 1; i < Math.min(f.length, 9); i++) {
                long v = Long.parseLong(f[i]);
                total += v;
                if (i == 4 || i == 5) idle += v;
            }
            return total == 0 ? null : new long[] {total - idle, total};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** How many entries BenchBase listed under a heading of its report (0 for its {@code <EMPTY>}). */
    static long section(String output, String heading) {
        int at = output.indexOf(heading);
        if (at < 0) return 0;
        long n = 0;
        for (String line : output.substring(at).lines().skip(1).toList()) {
            String plain = line.replaceAll("\u001B\\[[0-9;]*m", "");
            if (plain.startsWith("<EMPTY>") || !plain.matches(".*\\[\\s*[0-9]+\\].*")) break;
            n += Long.parseLong(plain.replaceAll(".*\\[\\s*([0-9]+)\\].*", "$1"));
        }
        return n;
    }

    private static String lastLines(String output) {
        List<String> lines = output.lines().filter(l -> !l.isBlank()).toList();
        return String.join(" / ", lines.subList(Math.max(0, lines.size() - 3), lines.size()));
    }

    // -------------------------------------------------------------------------------------------------- report

    private Point find(List<Point> points, String benchmark, String system, int n) {
        return points.stream().filter(p -> p.benchmark().equals(benchmark) && p.system().equals(system)
                && p.instances() == n && p.ran()).findFirst().orElse(null);
    }

    private String table(List<Point> points) {
        StringBuilder t = new StringBuilder("| benchmark | one database | ");
        for (int n : settings.instances()) t.append("gyro ").append(n).append(" | ");
        for (int n : settings.instances()) t.append("gyro ").append(n).append(" / one db | ");
        t.append("\n|---|---|").append("---|".repeat(2 * settings.instances().size())).append('\n');
        for (Benchmark b : settings.benchmarks()) {
            Point base = find(points, b.name(), ONE_DATABASE, 1);
            t.append("| ").append(b.name()).append(" | ").append(cell(base)).append(" | ");
            for (int n : settings.instances()) t.append(cell(find(points, b.name(), "gyro", n))).append(" | ");
            for (int n : settings.instances()) {
                Point g = find(points, b.name(), "gyro", n);
                t.append(g == null || base == null || base.throughput() == 0 ? "-"
                        : String.format(Locale.ROOT, "%.2fx", g.throughput() / base.throughput())).append(" | ");
            }
            t.append('\n');
        }
        return t.toString();
    }

    private static String cell(Point p) {
        return p == null ? "-" : String.format(Locale.ROOT, "%.0f /s (p50 %.1f ms)", p.throughput(), p.p50Ms())
                + (p.unexpected() > 0 ? ", " + p.unexpected() + " unexpected SQL errors" : "");
    }

    private String overheadTable(List<Point> points) {
        StringBuilder t = new StringBuilder(String.format(Locale.ROOT, "%n| benchmark, 1 terminal, %d round(s) |"
                + " no agent p50 | agent passing calls through p50 | agent, 1 instance p50 | agent against none at p50"
                + " | passing through against none | no agent p99 | agent p99 | BenchBase's JVM's CPU per request: no"
                + " agent / passing through / agent |%n|---|---|---|---|---|---|---|---|---|%n",
                settings.overheadRounds()));
        for (Benchmark b : settings.overhead())
            for (String rate : settings.overheadRates()) {
                List<Point> none = all(points, b.name(), NO_AGENT, rate), through = all(points, b.name(), PASS_THROUGH,
                        rate), agent = all(points, b.name(), "agent", rate);
                t.append(String.format(Locale.ROOT, "| %s %s | %s | %s | %s | %s | %s | %s | %s | %s / %s / %s |%n",
                        b.name(), rateLabel(rate), p50s(none), p50s(through), p50s(agent), against(agent, none),
                        against(through, none), ms(median(none, Point::p99Ms)), ms(median(agent, Point::p99Ms)),
                        cpu(none), cpu(through), cpu(agent)));
            }
        return t.toString();
    }

    private static String rateLabel(String rate) {
        return rate.equals("unlimited") ? "back to back" : "at " + rate + "/s";
    }

    /** The median of the runs' JVM CPU per request, in microseconds. */
    private static String cpu(List<Point> runs) {
        List<Point> known = runs.stream().filter(p -> p.jvmCpuMicrosPerRequest() != null).toList();
        return known.isEmpty() ? "-" : String.format(Locale.ROOT, "%.0f us",
                median(known, Point::jvmCpuMicrosPerRequest));
    }

    /** The runs of one configuration at one rate that gave figures, in the order they ran. */
    private static List<Point> all(List<Point> points, String benchmark, String system, String rate) {
        return points.stream().filter(p -> p.benchmark().equals(benchmark) && p.system().equals(system)
                && p.rate().equals(rate) && p.ran()).toList();
    }

    /** The median of the runs' {@code figure}, or NaN for none. */
    static double median(List<Point> runs, java.util.function.ToDoubleFunction<Point> figure) {
        double[] v = runs.stream().mapToDouble(figure).sorted().toArray();
        if (v.length == 0) return Double.NaN;
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** The median p50, with the runs' lowest and highest where there are several. */
    private static String p50s(List<Point> runs) {
        if (runs.isEmpty()) return "-";
        String m = ms(median(runs, Point::p50Ms));
        if (runs.size() == 1) return m;
        DoubleSummaryStatistics s = runs.stream().mapToDouble(Point::p50Ms).summaryStatistics();
        return String.format(Locale.ROOT, "%s (%.3f-%.3f)", m, s.getMin(), s.getMax());
    }

    /** How much higher {@code a}'s median p50 is than {@code base}'s: per cent, and microseconds. */
    private static String against(List<Point> a, List<Point> base) {
        double x = median(a, Point::p50Ms), y = median(base, Point::p50Ms);
        if (Double.isNaN(x) || Double.isNaN(y) || y == 0) return "-";
        return String.format(Locale.ROOT, "%+.1f%% (%+.0f us)", 100 * (x / y - 1), 1000 * (x - y));
    }

    private static String ms(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.3f ms", v);
    }

    private String plot(List<Point> points) throws IOException {
        XYChart chart = new XYChartBuilder().width(900).height(560)
                .title("BenchBase, Gyro attached against one database (every database " + CAPACITY.replace("x", " x ") + ")")
                .xAxisTitle("instances").yAxisTitle("requests/s (BenchBase's own figure)").build();
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setYAxisMin(0.0);
        chart.setCustomXAxisTickLabelsFormatter(v -> Math.abs(v - Math.rint(v)) < 1e-9 ? Long.toString(Math.round(v)) : "");
        Color[] colors = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0x9467bd)};
        int c = 0, series = 0;
        List<Number> xs = new ArrayList<>(settings.instances());
        for (Benchmark b : settings.benchmarks()) {
            Color color = colors[c++ % colors.length];
            List<Number> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            for (int n : settings.instances()) {
                Point g = find(points, b.name(), "gyro", n);
                if (g != null) {
                    x.add(n);
                    y.add(g.throughput());
                }
            }
            if (!x.isEmpty()) {
                series++;
                var s = chart.addSeries(b.name() + ", gyro", x, y);
                s.setLineColor(color);
                s.setMarkerColor(color);
                s.setMarker(SeriesMarkers.CIRCLE);
            }
            Point base = find(points, b.name(), ONE_DATABASE, 1);
            if (base != null) {
                series++;
                var s = chart.addSeries(b.name() + ", one database", List.of(xs.get(0), xs.get(xs.size() - 1)),
                        List.of(base.throughput(), base.throughput()));
                s.setLineColor(color);
                s.setMarker(SeriesMarkers.NONE);
                s.setLineStyle(new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
                        new float[] {6f, 4f}, 0f));
            }
        }
        String file = "throughput.png";
        if (series > 0)
            BitmapEncoder.saveBitmap(chart, out.resolve(file).toString(), BitmapEncoder.BitmapFormat.PNG);
        return file;
    }

    /** The checkout's commit, and whether tracked files differ from it (a run of code that was not committed). */
    static String commit() {
        String c = git("rev-parse", "--short", "HEAD");
        if (c == null) return "unknown";
        String changed = git("status", "--porcelain", "--untracked-files=no");
        return changed == null || changed.isEmpty() ? c : c + " with uncommitted changes";
    }

    private static String git(String... args) {
        try {
            List<String> cmd = new ArrayList<>(List.of("git"));
            cmd.addAll(List.of(args));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return p.waitFor() == 0 ? out : null;
        } catch (IOException | InterruptedException e) {
            return null;
        }
    }

    static String machine() {
        String cpu = "";
        try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            cpu = lines.filter(l -> l.startsWith("model name")).findFirst().map(l -> l.replaceAll(".*:\\s*", ""))
                    .orElse("");
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return Runtime.getRuntime().availableProcessors() + " cores" + (cpu.isEmpty() ? "" : " (" + cpu + ")") + ", "
                + System.getProperty("os.name") + " " + System.getProperty("os.version") + "; Gyro's command on "
                + System.getProperty("java.vm.name") + " " + System.getProperty("java.version");
    }

    private String report(List<Point> points, String plot, double wall) {
        StringBuilder r = new StringBuilder();
        r.append("# gyro bench attach").append(quick ? " --quick" : "").append(": CMU BenchBase, unmodified, on Gyro"
                + " against one database\n\n");
        r.append("- command: `").append(command).append("` (commit ").append(commit()).append(", ")
                .append(java.time.LocalDate.now()).append(String.format(Locale.ROOT, ", %.0f s)%n", wall));
        r.append("- machine: ").append(machine()).append("; BenchBase on ").append(jdkName()).append('\n');
        r.append("- BenchBase built from its own source (").append(source).append(") with `-P postgres`, run by its own"
                + " driver (`--create --load --execute`) on its PostgreSQL sample configurations, changed only in URL,"
                + " scale factor, terminals, warm-up, time and rate; the classification is what `gyro analyze` wrote"
                + " (beside this file)\n");
        r.append(String.format(Locale.ROOT, "- throughput runs: %d terminals, no think time, rate unlimited, %d s"
                        + " measured after %d s of warm-up; every database (PostgreSQL, throwaway servers) %s, the"
                        + " capacity emulation of `gyro bench` (agent option `capacity=%s`); one database: BenchBase on"
                        + " its own server, the agent passing its calls through and each holding a slot of that one"
                        + " emulated server from the procedure's entry to its exit (docs/decisions/36-attached-benchmark.md)%n",
                settings.terminals(), settings.time(), settings.warmup(), describe(CAPACITY), CAPACITY));
        r.append("- scale factors: ").append(String.join(", ", settings.benchmarks().stream().map(b -> b.name() + " "
                + b.scale() + (b.name().equals("tpcc") ? " (warehouses)" : "")).toList())).append('\n');
        r.append("- figures are BenchBase's own (its summary file: requests/s, median and 99th percentile latency), from"
                + " this one run; ratios are of that one run\n\n");
        r.append("## Throughput\n\n").append(table(points)).append("\n![throughput](").append(plot).append(")\n\n");
        r.append("## Every run\n\n| run | requests/s | p50 ms | p99 ms | mean ms | retried (40001) |"
                + " unexpected SQL errors | machine busy | Gyro at exit |\n|---|---|---|---|---|---|---|---|---|\n");
        for (Point p : points)
            r.append(!p.ran() ? "| " + label(p) + " | not run: " + p.notRun().replace('|', '/') + " ||||||||\n"
                    : String.format(Locale.ROOT, "| %s%s | %.0f | %.2f | %.2f | %.2f | %d | %d | %s | %s |%n",
                    label(p), "", p.throughput(),
                    p.p50Ms(), p.p99Ms(), p.meanMs(), p.retried(), p.unexpected(),
                    p.machine() == null ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * p.machine()),
                    p.outcome() == null ? "-" : p.outcome().replace('|', '/')));
        if (settings.overhead().isEmpty()) return r.toString();
        r.append("\n## The agent's own cost on the local path\n\nThe same BenchBase run on 1 terminal at 100"
                + " requests/s (the machine idle between calls, whose code and data go cold in the processor's caches)"
                + " and back to back (as on a loaded server), no capacity emulation: BenchBase on a PostgreSQL server of its own with no agent, the same with the"
                + " agent passing its calls through (its advice on the methods alone: no instance), against the agent"
                + " with one Gyro instance on a PostgreSQL server of its own (target: within 10% at p50), in rounds of"
                + " the three, each round in another order; each column the median of the rounds' p50s (lowest-highest)."
                + " The agent passing calls through changes nothing on the calls' JDBC path: how far it lies from no"
                + " agent is how far two runs of one configuration lie apart. BenchBase's JVM's CPU per request: its"
                + " user and system CPU time over the measured window (/proc) over the requests measured; with the"
                + " agent, Gyro's instance runs in that JVM, so the difference is Gyro's whole CPU cost per call, a"
                + " figure the machine's load stretches far less than latency.\n")
                .append(overheadTable(points));
        for (Point p : points)
            if (p.system().equals("agent") && p.timing() != null)
                r.append("\nWhere a local call's time went with the agent (").append(label(p)).append("): ")
                        .append(p.timing()).append(".\n");
            else if (p.system().equals(PASS_THROUGH) && p.timing() != null)
                r.append("\nThe agent passing calls through (").append(label(p)).append("): a local call's"
                        + " method, ").append(p.timing()).append(" (its statements on BenchBase's own connection).\n");
        return r.toString();
    }

    private static String jdkName() {
        try {
            return jdk23().map(j -> j.getFileName().toString()).orElse("?");
        } catch (IOException e) {
            return "?";
        }
    }

    private void writeJson(List<Point> points, double wall) throws IOException {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("scenario", NAME);
        root.put("command", command);
        root.put("commit", commit());
        root.put("machine", machine());
        root.put("capacity", CAPACITY);
        root.put("settings", settings);
        root.put("wallSeconds", Math.round(wall));
        root.put("points", points);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.resolve("results.json").toFile(), root);
    }
}
