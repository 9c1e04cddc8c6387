package dev.gyro.agent;

import dev.gyro.agent.bridge.Bridge;
import dev.gyro.app.Classification;
import dev.gyro.check.AccessLog;
import dev.gyro.check.ReadFromChecker;
import dev.gyro.cluster.Backend;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.emulation.Capacity;
import dev.gyro.runtime.GyroInstance;
import dev.gyro.servers.DatabaseServer;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.matcher.ElementMatchers;

import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Gyro attached to an unmodified application as a Java agent ({@code java -javaagent:gyro-agent.jar=OPTIONS ...},
 * docs/decisions/34-attaching.md): the classification's methods are resolved against the application's classes (a
 * mismatch stops the application before its {@code main}, with every problem named), and each call of one of them is
 * a request ({@link Calls}); at exit, the calls of each transaction are reported on standard error.
 *
 * <p>OPTIONS, comma-separated: {@code classification=FILE}, the classification file naming the application's methods;
 * {@code dir=DIR}, to run the calls over instances whose databases are in DIR ({@code instances=N}, 3 by default;
 * {@code backend=sqlite|postgres|mariadb}, SQLite by default, throwaway servers otherwise), taking the application's
 * connections over ({@link Takeover}); without {@code dir}, calls are only counted. {@code check=true} records every
 * request's reads and writes and checks at exit that none read from a local request of another partition (Definition
 * 1): for tests and diagnosis (every read runs twice). {@code audits=FILE} asks the application's own consistency
 * conditions of its database as a whole before the first call and at exit ({@link Audits}). {@code capacity=CxMms}
 * (e.g. {@code 2x20ms}) gives each database the capacity emulation of {@code gyro bench} (docs/benchmark-method.md):
 * every request takes one of C slots of its instance's emulated server and spends M ms in it first; without {@code
 * dir}, each call takes a slot of one emulated server in front of the application's own database from the method's
 * entry to its exit (the baseline of {@code gyro bench attach}, docs/decisions/36-attached-benchmark.md).
 */
public final class GyroAgent {

    /** Standard error lines begin with this. */
    static final String PREFIX = "gyro agent: ";

    private GyroAgent() {}

    public static void premain(String options, Instrumentation instrumentation) {
        try {
            attach(options, instrumentation);
        } catch (IllegalArgumentException e) {
            System.err.println(PREFIX + e.getMessage());
            System.err.println(PREFIX + "not attached; the application does not start");
            System.exit(2);
        }
    }

    static void attach(String options, Instrumentation instrumentation) {
        Map<String, String> given = options(options);
        String file = given.get("classification");
        if (file == null) throw new IllegalArgumentException("no classification=FILE in the agent's options");
        Path path = Path.of(file);
        if (!Files.isReadable(path)) throw new IllegalArgumentException("classification " + path + " cannot be read");
        Classification classification;
        try {
            classification = Classification.read(path);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
        List<AttachedMethod> methods = AttachedMethods.resolve(classification, ClassLoader.getSystemClassLoader());
        Capacity capacity = capacity(given);
        Calls.attach(methods);
        registerOwnDrivers();
        Bridge.install(new Bridge.Handler() {
            @Override
            public Object enter(String key, Object[] args) {
                return Calls.enter(key, args);
            }

            @Override
            public void exit(Object call, Throwable thrown) {
                Calls.exit(call, thrown);
            }

            @Override
            public java.sql.Connection instead(java.sql.Driver driver, String url) throws java.sql.SQLException {
                return Takeover.instead(driver, url);
            }

            @Override
            public java.sql.Connection insteadOf(Object dataSource) throws java.sql.SQLException {
                return Takeover.insteadOf(dataSource);
            }

            @Override
            public void narrowed(Object dataSource) throws java.sql.SQLException {
                Takeover.narrowed(dataSource);
            }
        });
        Set<String> owners = methods.stream().map(m -> m.method().getDeclaringClass().getName())
                .collect(Collectors.toSet());
        ElementMatcher.Junction<MethodDescription> classified = ElementMatchers.none();
        for (AttachedMethod m : methods) classified = classified.or(ElementMatchers.is(m.method()));
        ElementMatcher.Junction<MethodDescription> advised = classified;
        new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION) // resolving loaded the classes already
                .with(AgentBuilder.Listener.StreamWriting.toSystemError().withErrorsOnly())
                .type(ElementMatchers.namedOneOf(owners.toArray(String[]::new)))
                .transform((builder, type, loader, module, domain) -> builder
                        .visit(Advice.to(CallAdvice.class).on(advised.and(ElementMatchers.not(ElementMatchers.returns(void.class)))))
                        .visit(Advice.to(CallAdvice.Void.class).on(advised.and(ElementMatchers.returns(void.class)))))
                .installOn(instrumentation);
        Audits audits = given.containsKey("audits") ? Audits.read(Path.of(given.get("audits"))) : null;
        if (audits != null && !given.containsKey("dir"))
            throw new IllegalArgumentException("audits=" + given.get("audits") + " needs dir=DIR: audits ask the instances");
        if (given.containsKey("position"))
            runBeside(given, capacity, methods, instrumentation);
        else if (given.containsKey("dir"))
            runOver(Path.of(given.get("dir")), instances(given), backend(given), "true".equals(given.get("check")),
                    capacity, audits, methods, instrumentation);
        else if (capacity.emulated()) Calls.passThrough(capacity);
        Runtime.getRuntime().addShutdownHook(new Thread(GyroAgent::report, "gyro-agent-report"));
        System.err.println(PREFIX + "attached to " + methods.size() + " transaction method(s)"
                + (capacity.emulated() ? "; " + capacity.describe() : ""));
    }

    /** {@code capacity=CxMms}: C transactions at a time, M ms each; {@link Capacity#PLAIN} when not given. */
    static Capacity capacity(Map<String, String> given) {
        String c = given.get("capacity");
        if (c == null) return Capacity.PLAIN;
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("([0-9]{1,4})x([0-9]{1,6})ms").matcher(c.strip());
        if (m.matches() && Integer.parseInt(m.group(1)) >= 1)
            return Capacity.of(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)));
        throw new IllegalArgumentException("capacity=" + c + ": CxMms, C transactions at a time (at least 1) for M ms"
                + " each, e.g. capacity=2x20ms");
    }

    /**
     * Registers the JDBC drivers of Gyro's own class loader with {@code DriverManager}, which found only the
     * application's when it first looked (docs/decisions/34-attaching.md): Gyro's connections to the instances' databases
     * use Gyro's drivers, the application's use its own.
     */
    private static void registerOwnDrivers() {
        for (java.util.Iterator<java.sql.Driver> it = java.util.ServiceLoader.load(java.sql.Driver.class,
                GyroAgent.class.getClassLoader()).iterator(); it.hasNext(); ) {
            try {
                java.sql.Driver d = it.next();
                if (d.getClass().getClassLoader() == GyroAgent.class.getClassLoader()) java.sql.DriverManager.registerDriver(d);
            } catch (java.util.ServiceConfigurationError | java.sql.SQLException e) {
                // a driver that does not load is one Gyro does not use
            }
        }
    }

    private static Backend backend(Map<String, String> given) {
        try {
            return Backend.parse(given.getOrDefault("backend", "sqlite"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("backend=" + given.get("backend") + ": " + e.getMessage());
        }
    }

    private static int instances(Map<String, String> given) {
        String n = given.getOrDefault("instances", "3");
        try {
            int i = Integer.parseInt(n);
            if (i >= 1 && i <= 64) return i;
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("instances=" + n + ": a number of instances from 1 to 64");
    }

    /**
     * Calls run as requests over {@code n} instances on databases of {@code backend} in {@code dir} (throwaway servers
     * for PostgreSQL and MariaDB, started now): the application's connections are taken over at once (its schema and
     * data reach every instance's database), and the instances start before the application's main. At exit, once the
     * ring is quiet, whether every instance applied the same global requests is written to {@code dir/outcome.txt}.
     */
    private static void runOver(Path dir, int n, Backend backend, boolean check, Capacity capacity, Audits audits,
                                List<AttachedMethod> methods, Instrumentation instrumentation) {
        AccessLog accesses = check || audits != null ? new AccessLog() : null; // audits merge the local writes
        AttachedApplication app = new AttachedApplication("attached", methods);
        LocalCluster cluster;
        try {
            Files.createDirectories(dir);
            cluster = LocalCluster.create(backend, dir.toAbsolutePath(), app, n, 1, 0, loaded -> {})
                    .withCapacity(capacity);
        } catch (java.io.IOException | java.sql.SQLException | RuntimeException e) {
            throw new IllegalArgumentException("the instances' databases in " + dir + " could not be made: " + e.getMessage());
        }
        List<String> urls = java.util.stream.IntStream.range(0, n).mapToObj(cluster::jdbcUrl).toList();
        Takeover takeover = takeOver(n, urls, instrumentation);
        // The instances start now, before the application's main: their start-up never delays the application's first
        // call (a benchmark's measured window), and the databases are theirs from the start.
        try {
            cluster.startAll();
        } catch (java.io.IOException | RuntimeException e) {
            cluster.close();
            throw new IllegalArgumentException("the instances did not start: " + e.getMessage());
        }
        if (accesses != null) for (int i = 0; i < n; i++) cluster.instance(i).observeRequests(accesses);
        Attachment attachment = new Attachment(java.util.stream.IntStream.range(0, n).mapToObj(cluster::instance).toList());
        runOverRest(dir, n, check, audits, cluster, takeover, accesses, attachment);
    }

    /**
     * The application's connections taken over from now on: those to {@code urls}, the instances' own databases, left
     * alone; outside calls, a statement runs on each of the {@code n} instances' databases.
     */
    private static Takeover takeOver(int n, List<String> urls, Instrumentation instrumentation) {
        Takeover takeover = new Takeover(n, urls::get, url -> urls.stream().anyMatch(u -> sameDatabase(u, url)));
        Takeover.activate(takeover);
        new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION) // a driver may be loaded already
                .type(ElementMatchers.isSubTypeOf(java.sql.Driver.class).and(ElementMatchers.not(ElementMatchers.isInterface())))
                .transform((builder, type, loader, module, domain) -> builder.visit(ConnectAdvice.DRIVER))
                .type(ElementMatchers.isSubTypeOf(javax.sql.DataSource.class).and(ElementMatchers.not(ElementMatchers.isInterface())),
                        ElementMatchers.not(ElementMatchers.is(GyroAgent.class.getClassLoader()))) // not Gyro's own pools
                .transform((builder, type, loader, module, domain) -> builder.visit(ConnectAdvice.DATA_SOURCE))
                .installOn(instrumentation);
        return takeover;
    }

    private static void runOverRest(Path dir, int n, boolean check, Audits audits, LocalCluster cluster,
                                    Takeover takeover, AccessLog accesses, Attachment attachment) {
        List<String> auditFailures = new java.util.concurrent.CopyOnWriteArrayList<>();
        attachment.beforeFirstCall(() -> {
            dev.gyro.runtime.db.Database first = cluster.instance(0).database();
            try (java.sql.Connection c = first.readConnection()) {
                try {
                    if (n > 1) warnOfGeneratedKeys(c, first);
                    if (audits != null) audits.before(c);
                } finally {
                    first.rollback(c);
                }
            } catch (java.sql.SQLException e) {
                if (audits != null) auditFailures.add(e.getMessage());
                else System.err.println(PREFIX + "cannot read the schema the application made: " + e.getMessage());
            }
        });
        System.err.println(PREFIX + n + " instances serve from " + dir);
        Calls.runThrough(attachment);
        java.util.concurrent.CompletableFuture<Void> checked = new java.util.concurrent.CompletableFuture<>();
        DatabaseServer.holdAtExit(checked); // the checks below ask the servers
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                stop(dir, takeover, cluster, n, check, accesses, audits, auditFailures, attachment);
            } finally {
                checked.complete(null);
            }
        }, "gyro-agent-stop"));
    }

    /**
     * Once the application made its schema (at its first call): the columns whose values each instance's database
     * generates (auto-increment, serial, identity), named on standard error. Each instance has its own generator, so
     * two local requests at two instances may be given the same key (docs/attach.md, "Generated keys").
     */
    private static void warnOfGeneratedKeys(java.sql.Connection c, dev.gyro.runtime.db.Database db)
            throws java.sql.SQLException {
        List<String> generated = new ArrayList<>();
        List<String> tables = new ArrayList<>();
        // The application's own database and schema: the connection's (MariaDB names databases as catalogs)
        try (java.sql.ResultSet rs = c.getMetaData().getTables(c.getCatalog(), c.getSchema(), "%",
                new String[] {"TABLE"})) {
            while (rs.next()) {
                String table = rs.getString("TABLE_NAME");
                if (table.startsWith("gyro_") || table.startsWith("sqlite_")) continue;
                tables.add(table);
            }
        }
        for (String table : tables)
            for (String column : db.tables().table(c, null, table).autoIncrementColumns())
                generated.add(table + "." + column);
        if (!generated.isEmpty())
            System.err.println(PREFIX + "keys the database generates (" + String.join(", ", generated) + ") come from"
                    + " each instance's own generator: local requests at two instances may be given the same key, so"
                    + " such a key is unique within its partition only (docs/attach.md, \"Generated keys\")");
    }

    /**
     * This process is one of several, each beside its instance of a ring (docs/decisions/38-attached-processes.md):
     * {@code position=P} of {@code ring=HOST:PORT/HOST:PORT/...}, its certificates in {@code tls=DIR} (or plaintext
     * with {@code insecure=true}), its database {@code db=URL|FILE} (default: the SQLite file of instance P in {@code
     * dir}). The application's start-up writes to this instance's database only; the processes meet before their
     * first calls and at exit, where position 0 checks the ring and writes {@code dir/outcome.txt}.
     */
    private static void runBeside(Map<String, String> given, Capacity capacity, List<AttachedMethod> methods,
                                  Instrumentation instrumentation) {
        if (!given.containsKey("dir")) throw new IllegalArgumentException("position= needs dir=DIR, where the outcome goes");
        if (!given.containsKey("ring"))
            throw new IllegalArgumentException("position= needs ring=HOST:PORT/HOST:PORT/..., every instance's address in"
                    + " ring order");
        if ("true".equals(given.get("check")) || given.containsKey("audits"))
            throw new IllegalArgumentException("check=true and audits= are not built for several processes (each beside"
                    + " its instance): run the application in one process for them (docs/attach.md)");
        List<String> ring = List.of(given.get("ring").split("/"));
        int position = positionIn(given.get("position"));
        if (position < 0 || position >= ring.size())
            throw new IllegalArgumentException("position=" + given.get("position") + ": a position in the ring of "
                    + ring.size() + " instances, 0 to " + (ring.size() - 1));
        List<String> problems = Processes.refusals(methods);
        if (!problems.isEmpty())
            throw new IllegalArgumentException("the classification's methods cannot run in several processes, each"
                    + " beside its instance:\n  " + String.join("\n  ", problems));
        Path dir = Path.of(given.get("dir"));
        dev.gyro.wire.Transport transport;
        if (given.containsKey("tls") == "true".equals(given.get("insecure")))
            throw new IllegalArgumentException("give the ring's certificates with tls=DIR, or insecure=true, exactly one");
        try {
            transport = given.containsKey("tls") ? dev.gyro.wire.Transport.mutualTls(new dev.gyro.wire.tls.TlsFiles(
                    Path.of(given.get("tls")).toAbsolutePath()), dev.gyro.wire.Transport.instanceIdentity(position))
                    : dev.gyro.wire.Transport.insecure();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("tls=" + given.get("tls") + ": " + e.getMessage());
        }
        String target = given.getOrDefault("db", LocalCluster.databaseFile(dir, position).toString());
        Processes processes = new Processes(position, ring.size(), methods);
        GyroInstance instance;
        try {
            Files.createDirectories(dir);
            dev.gyro.runtime.InstanceConfig config = dev.gyro.runtime.InstanceConfig.of(position, ring, target,
                            new AttachedApplication("attached", methods))
                    .withNetwork(new dev.gyro.runtime.InstanceConfig.Network(transport, null, null))
                    .withPeerCalls(processes);
            if (capacity.emulated()) config = config.withGate(capacity.copy());
            Takeover takeover = takeOver(1, List.of(dev.gyro.runtime.db.Dialect.forTarget(target).jdbcUrl(target)),
                    instrumentation);
            instance = new GyroInstance(config).start();
            Attachment attachment = new Attachment(instance, processes);
            processes.serve(instance, attachment);
            attachment.beforeFirstCall(processes::meetBeforeFirstCall);
            Calls.runThrough(attachment);
            Calls.beside(processes);
            System.err.println(PREFIX + "instance " + position + " of " + ring.size() + " serves on " + ring.get(position)
                    + " (" + transport + ", database " + target.replaceAll("(?i)(password=)[^&;]*", "$1***") + ")");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                String outcome = processes.meetAtExit();
                if (position == 0) {
                    try {
                        Files.writeString(dir.resolve(OUTCOME), outcome + System.lineSeparator());
                    } catch (java.io.IOException e) {
                        System.err.println(PREFIX + "cannot write " + dir.resolve(OUTCOME) + ": " + e.getMessage());
                    }
                }
                attachment.close();
                instance.close();
                if (!takeover.serving()) System.err.println(PREFIX + "instance " + position + ": no call began here");
            }, "gyro-agent-stop"));
        } catch (java.io.IOException | RuntimeException e) {
            throw new IllegalArgumentException("instance " + position + " did not start: " + e.getMessage());
        }
    }

    private static int positionIn(String p) {
        try {
            return Integer.parseInt(p);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** At exit: the checks, their outcome written to {@code dir/outcome.txt}; then the instances stop. */
    private static void stop(Path dir, Takeover takeover, LocalCluster cluster, int n, boolean check, AccessLog accesses,
                             Audits audits, List<String> auditFailures, Attachment attachment) {
        String outcome = !takeover.serving() ? "FAILED: no call of a classified method ran"
                : agree(cluster, n, check ? accesses : null);
        if (audits != null && outcome.startsWith("OK")) outcome = audit(outcome, audits, auditFailures, cluster, n,
                accesses);
        attachment.close();
        try {
            Files.writeString(dir.resolve(OUTCOME), outcome + System.lineSeparator());
        } catch (java.io.IOException e) {
            System.err.println(PREFIX + "cannot write " + dir.resolve(OUTCOME) + ": " + e.getMessage());
        }
        cluster.close();
    }

    /** Where the agent says, at exit, whether the instances agree: {@code OK ...} or {@code FAILED: why}. */
    public static final String OUTCOME = "outcome.txt";

    /**
     * Once the ring is quiet: whether every instance applied the same global requests, and, with {@code accesses}, whether
     * any request read what a local request of another partition wrote (Definition 1, the dynamic check).
     */
    private static String agree(LocalCluster cluster, int n, AccessLog accesses) {
        try {
            if (!cluster.awaitQuiet(60_000)) return "FAILED: the ring did not become quiet within 60 s of the exit";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "FAILED: interrupted while the ring became quiet";
        }
        long first = cluster.instance(0).appliedGsn();
        for (int i = 1; i < n; i++) {
            long gsn = cluster.instance(i).appliedGsn();
            if (gsn != first)
                return "FAILED: instance " + i + " applied global requests up to gsn " + gsn + ", instance 0 up to " + first;
        }
        if (accesses == null) return "OK: every instance applied global requests 1 to " + first;
        List<ReadFromChecker.Violation> violations = ReadFromChecker.check(accesses.all());
        if (!violations.isEmpty())
            return "FAILED: " + violations.size() + " read(s) from a local request of another partition (Definition 1),"
                    + " the first: " + violations.get(0);
        return "OK: every instance applied global requests 1 to " + first + "; the accesses of " + accesses.size()
                + " requests checked: none read from a local request of another partition (Definition 1)";
    }

    /**
     * The audits' values at exit, asked of the logical database (the instances are quiet, {@link #agree}): the outcome,
     * {@code FAILED} when one cannot be asked or has not its expected value, then one line per audit.
     */
    private static String audit(String outcome, Audits audits, List<String> failures, LocalCluster cluster, int n,
                                AccessLog accesses) {
        List<String> problems = new ArrayList<>(failures);
        StringBuilder lines = new StringBuilder();
        try {
            Audits.Result r = audits.after(java.util.stream.IntStream.range(0, n)
                    .mapToObj(i -> cluster.instance(i).database()).toList(), accesses.all());
            for (String line : r.lines()) lines.append(System.lineSeparator()).append(line);
            problems.addAll(r.failures());
        } catch (java.sql.SQLException | RuntimeException e) {
            problems.add("the audits could not be asked at exit: " + e.getMessage());
        }
        return (problems.isEmpty() ? outcome : "FAILED: " + String.join("; ", problems)) + lines;
    }

    /** The same database: the URLs agree up to their query (a password, options). */
    private static boolean sameDatabase(String a, String b) {
        return a.split("\\?")[0].equals(b.split("\\?")[0]);
    }

    /** Each transaction's calls, one line each. */
    private static void report() {
        Attachment a = Calls.attachment();
        for (Calls.Transaction t : Calls.transactions()) {
            String ran = "";
            if (a != null) {
                Attachment.Figures f = a.figures(t.name());
                ran = ": " + f.local() + " committed as local requests"
                        + (f.forwarded() > 0 ? " (" + f.forwarded() + " at other processes' instances)" : "") + ", "
                        + f.global() + " as global requests, " + f.notCommitted() + " not committed";
            }
            System.err.println(PREFIX + t.name() + ": " + t.calls() + " call(s)" + ran
                    + (t.failed() > 0 ? "; " + t.failed() + " ended with an exception" : ""));
        }
        Processes beside = Calls.beside();
        if (beside != null)
            System.err.println(PREFIX + beside.served.local() + " call(s) of other processes committed here, "
                    + beside.served.notCommitted() + " not committed");
        if (CallTiming.passed() > 0)
            System.err.printf(java.util.Locale.ROOT, "%sa local call's method passed through, entry to exit, mean of %d:"
                    + " %.1f us%n", PREFIX, CallTiming.passed(), CallTiming.passedMicros());
        if (CallTiming.calls() > 0)
            System.err.println(PREFIX + "a local call's time, mean of " + CallTiming.calls() + ": "
                    + CallTiming.describe());
    }

    /** {@code key=value,key=value}. */
    static Map<String, String> options(String options) {
        Map<String, String> m = new LinkedHashMap<>();
        if (options == null || options.isBlank()) return m;
        List<String> unknown = new ArrayList<>();
        for (String part : options.split(",")) {
            int eq = part.indexOf('=');
            String key = eq < 0 ? part : part.substring(0, eq);
            if (!Set.of("classification", "dir", "instances", "backend", "check", "audits", "capacity", "position",
                    "ring", "tls", "insecure", "db").contains(key))
                unknown.add(key);
            m.put(key, eq < 0 ? "" : part.substring(eq + 1));
        }
        if (!unknown.isEmpty())
            throw new IllegalArgumentException("unknown agent option(s) " + unknown + "; known: classification=FILE,"
                    + " dir=DIR, instances=N, backend=sqlite|postgres|mariadb, check=true, audits=FILE,"
                    + " capacity=CxMms; for one of several processes: position=P, ring=HOST:PORT/..., tls=DIR or"
                    + " insecure=true, db=URL|FILE");
        return m;
    }
}
