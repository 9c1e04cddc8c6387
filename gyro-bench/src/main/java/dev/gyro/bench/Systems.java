package dev.gyro.bench;

import dev.gyro.app.Application;
import dev.gyro.app.Call;
import dev.gyro.app.Classification;
import dev.gyro.app.Kind;
import dev.gyro.app.Outcome;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.Value;
import dev.gyro.cluster.Backend;
import dev.gyro.emulation.Capacity;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.runtime.db.Database;
import dev.gyro.emulation.wan.Site;
import dev.gyro.emulation.wan.Wan;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** The systems under test of this module: gyro, read-only, centralized and centralized-jdbc. */
public final class Systems {

    private static final Logger log = LoggerFactory.getLogger(Systems.class);

    /**
     * Connections per pool (read-write and read-only) of {@code centralized-jdbc} on a server backend: each client
     * of the paper had a connection of its own; our servers allow 200 ({@code PostgresServer}), and wan-scale's
     * heaviest point has 320 clients, so past 180 they queue for a connection as they would for the server's.
     */
    private static final int JDBC_POOL = 90;

    private Systems() {}

    public static final List<String> NAMES = List.of("gyro", "read-only", "centralized", "centralized-jdbc");

    /**
     * The system of that name: one of {@link #NAMES}, or one a module on the class path provides through
     * {@link java.util.ServiceLoader} (the ShardingSphere peer lives in its own module, with its own dependencies).
     */
    public static SystemUnderTest byName(String name) {
        return switch (name) {
            case "gyro" -> gyro();
            case "read-only" -> readOnly();
            case "centralized" -> centralized();
            case "centralized-jdbc" -> centralizedJdbc();
            default -> {
                if (name.matches(java.util.regex.Pattern.quote(ReplicatedGyroSystem.PREFIX) + "[2-9]"))
                    yield new ReplicatedGyroSystem(Integer.parseInt(name.substring(ReplicatedGyroSystem.PREFIX.length())));
                for (SystemUnderTest s : java.util.ServiceLoader.load(SystemUnderTest.class))
                    if (s.name().equals(name)) yield s;
                throw new IllegalArgumentException("unknown system '" + name + "' (known: "
                        + String.join(", ", known()) + ")");
            }
        };
    }

    /** Every system this class path can measure: {@link #NAMES} and the provided ones. */
    public static List<String> known() {
        List<String> out = new ArrayList<>(NAMES);
        for (SystemUnderTest s : java.util.ServiceLoader.load(SystemUnderTest.class))
            if (!out.contains(s.name())) out.add(s.name());
        return out;
    }

    /** Gyro's Conveyor Belt runtime with the application's own classification. */
    public static SystemUnderTest gyro() {
        return new GyroSystem("gyro", "Gyro (Conveyor Belt) with the application's classification", false);
    }

    /**
     * The paper's read-only baseline (Section VII): Gyro where only read-only transactions are local and
     * everything else is global, i.e. a replicated database whose writes are totally ordered.
     */
    public static SystemUnderTest readOnly() {
        return new GyroSystem("read-only", "Gyro with only read-only transactions local, every other one global "
                + "(the paper's read-only baseline)", true);
    }

    /** One database, no Gyro: every transaction runs directly on it through a JDBC pool. */
    public static SystemUnderTest centralized() {
        return new CentralizedSystem(false);
    }

    /**
     * One database, no Gyro, and the application at each client's site talking JDBC to it: under WAN emulation
     * every statement and the commit cross the WAN ({@link RemoteConnection}). This is the paper's centralized
     * baseline (Section VII-D): "a single server deployment of standard MySQL", whose clients at the five sites used
     * it directly; {@link #centralized()} is the kinder deployment with the application next to the database.
     * Without WAN emulation it runs each call as {@link #centralized()} does.
     */
    public static SystemUnderTest centralizedJdbc() {
        return new CentralizedSystem(true);
    }

    /**
     * The read-only baseline's classification, derived from the application's: a read-only transaction stays
     * local (routed by its first partitioning parameter; since every write is then global, every instance holds
     * all data it reads), every other transaction becomes global.
     */
    public static Classification readOnlyClassification(Classification own) {
        List<Classification.Rule> rules = new ArrayList<>();
        for (Classification.Rule r : own.rules()) {
            if (r.readOnly())
                rules.add(new Classification.Rule(r.name(), Kind.LOCAL, true,
                        r.partitionBy().isEmpty() ? List.of() : List.of(r.partitionBy().get(0)),
                        "read-only baseline: read-only, so local"));
            else
                rules.add(new Classification.Rule(r.name(), Kind.GLOBAL, false, r.partitionBy(),
                        "read-only baseline: writes, so global"));
        }
        return new Classification(rules);
    }

    private record GyroSystem(String name, String describe, boolean readOnlyBaseline) implements SystemUnderTest {
        @Override
        public Deployment deploy(Setup setup) throws Exception {
            Application app = setup.app();
            int scale = setup.scale();
            long seed = setup.seed();
            LocalCluster cluster = setup.createDatabases(app, setup.instances(), n -> {});
            Capacity capacity = setup.capacity();
            try {
                if (readOnlyBaseline) cluster.withClassification(readOnlyClassification(app.classification()));
                // Instances at the paper's sites in order (G, J, US, ...): Section VII-A
                cluster.withWan(setup.wan().place(cluster.size()));
                cluster.withCapacity(capacity).startAll();
                PhaseBreakdown.Log phases = new PhaseBreakdown.Log();
                for (int i = 0; i < cluster.size(); i++) cluster.instance(i).observePhases(phases);
                // The application calls its instance in-process, as the paper deploys Gyro and as every baseline
                // here runs next to its databases; -Dgyro.bench.client=true sends through the client library instead.
                Target target = Boolean.getBoolean("gyro.bench.client")
                        ? new GyroTarget(cluster.addresses(), cluster.wan()) : new InProcessTarget(cluster);
                return new Deployment() {
                    public PhaseBreakdown.Log phases() {
                        return phases;
                    }

                    public Target target() {
                        return target;
                    }

                    public int databases() {
                        return cluster.size();
                    }

                    public List<String> settleAndCheck() throws Exception {
                        List<String> problems = new ArrayList<>();
                        if (!cluster.awaitQuiet(60_000)) problems.add("the ring did not become quiet within 60 s");
                        problems.addAll(ClusterBenchmark.check(cluster, app, scale, seed).violations());
                        return problems;
                    }

                    public List<Capacity> servers() {
                        List<Capacity> out = new ArrayList<>();
                        for (int i = 0; i < cluster.size(); i++) out.add(cluster.capacity(i));
                        return out;
                    }

                    public void close() {
                        try {
                            target.close();
                        } finally {
                            cluster.close();
                        }
                    }
                };
            } catch (Exception | Error e) {
                cluster.close();
                throw e;
            }
        }
    }

    /** @param jdbcAcrossWan the application at the client's site ({@link #centralizedJdbc()}) */
    private record CentralizedSystem(boolean jdbcAcrossWan) implements SystemUnderTest {
        public String name() {
            return jdbcAcrossWan ? "centralized-jdbc" : "centralized";
        }

        public String describe() {
            return jdbcAcrossWan ? "one database instance, no Gyro, the application at each client's site: under WAN "
                    + "emulation every SQL statement and the commit cross the WAN (the paper's centralized MySQL)"
                    : "one database instance, no Gyro: transactions run directly on it through pooled JDBC, the "
                    + "application next to the database";
        }

        @Override
        public Deployment deploy(Setup setup) throws Exception {
            Application app = setup.app();
            int scale = setup.scale();
            long seed = setup.seed();
            Backend backend = setup.backend();
            Capacity capacity = setup.capacity();
            // A cluster of one, never started: it creates and loads the database exactly as Gyro's are.
            LocalCluster one = setup.createDatabases(app, 1, n -> {});
            try {
                Database.Options options = backend.dialect().instanceOptions();
                // A session holds its connection across WAN round trips: a pool as large as the server allows, so
                // that sessions wait for the database, not for a connection (SQLite writes one at a time whatever
                // the pool).
                if (jdbcAcrossWan && backend != Backend.SQLITE)
                    options = options.withPoolSizes(Math.max(options.writePoolSize(), JDBC_POOL),
                            Math.max(options.readPoolSize(), JDBC_POOL));
                // A transaction that lasts several WAN round trips overlaps many more others, so it loses more races
                // (TPC-W's createEmptyCart, MAX + 1, at 40 clients gave up after the default 10 attempts): as many
                // attempts as 2pc gets, backing off up to a second.
                if (jdbcAcrossWan) options = options.withRetries(50, Duration.ofMillis(10), Duration.ofSeconds(1));
                Database db = Database.open(backend.dialect(), one.jdbcUrl(0), options);
                // Under WAN emulation the one database is at the first site, Germany: the paper's LAN site, and its
                // one-location configuration (locations are added G, J, US, B, A; Section VII-A).
                CentralizedTarget target = new CentralizedTarget(app, db, capacity.copy(), setup.wan().place(1),
                        jdbcAcrossWan);
                return new Deployment() {
                    public Target target() {
                        return target;
                    }

                    public int databases() {
                        return 1;
                    }

                    public List<String> settleAndCheck() throws Exception {
                        try (Connection c = one.connect(0)) {
                            return new ArrayList<>(Checks.run(app, app.audit(scale, seed), List.of(c),
                                    PartitionMap.uniform(1)).violations());
                        }
                    }

                    public List<Capacity> servers() {
                        return List.of(target.capacity);
                    }

                    public void close() {
                        if (jdbcAcrossWan && target.calls.sum() > 0)
                            log.info("centralized-jdbc: {} transactions, {} round trips to the database ({} each)",
                                    target.calls.sum(), target.roundTrips.sum(), String.format(Locale.ROOT,
                                            "%.2f", (double) target.roundTrips.sum() / target.calls.sum()));
                        try {
                            db.close();
                        } finally {
                            one.close();
                        }
                    }
                };
            } catch (Exception | Error e) {
                one.close();
                throw e;
            }
        }
    }

    /**
     * The centralized baseline's target: each call is one serializable transaction on the single database, run
     * through the same {@link Database} (pool, retries on lost races) and the same emulated server
     * ({@link Capacity}) as a Gyro instance runs its requests. Reports each call under the class the application's
     * classification gives it, so latencies per class compare with Gyro's.
     *
     * <p>With {@code jdbcAcrossWan} under WAN emulation the call's round trip is not one but one per statement and
     * one for the commit ({@link RemoteConnection}); the emulated slot is then held for the service time only, as
     * 2pc's branches hold theirs, so that a WAN wait between two statements does not occupy the server.
     */
    static final class CentralizedTarget implements Target {
        private final TransactionCatalog catalog;
        private final Classification classification;
        private final Database db;
        final Capacity capacity;
        private final AtomicLong requests = new AtomicLong();

        private final Wan.Placement wan;
        private final boolean jdbcAcrossWan;
        private final AtomicInteger opened = new AtomicInteger();
        /** Transactions committed over the WAN and the round trips they took, statements and commits. */
        final LongAdder calls = new LongAdder(), roundTrips = new LongAdder();

        CentralizedTarget(Application app, Database db, Capacity capacity, Wan.Placement wan, boolean jdbcAcrossWan) {
            this.catalog = new TransactionCatalog(app.transactions());
            this.classification = app.classification();
            this.db = db;
            this.capacity = capacity;
            this.wan = wan;
            this.jdbcAcrossWan = jdbcAcrossWan;
        }

        /**
         * Under WAN emulation the k-th channel is a client at {@link Wan.Placement#clientSite}(k) that pays its
         * site's one-way delay to the database's site each way (no Gyro, so no nearer instance to go to).
         */
        @Override
        public Channel open() {
            return open(wan.emulated() ? opened.getAndIncrement() : 0);
        }

        /** Session k's client at {@link Wan.Placement#clientSite}(k), as Gyro's session k is. */
        @Override
        public Channel open(int k) {
            if (!wan.emulated()) return call -> execute(call, 0);
            Site site = Wan.Placement.clientSite(k);
            Duration oneWay = wan.clientOneWay(site, 0);
            // centralized-jdbc: no delay around the call, one around each of its statements instead
            if (jdbcAcrossWan) return new WanChannel(site, Duration.ZERO, call -> execute(call, oneWay.toNanos()));
            return new WanChannel(site, oneWay, call -> execute(call, 0));
        }

        /** Runs the call; {@code statementOneWay} &gt; 0: from that far away, statement by statement. */
        private Result execute(Call call, long statementOneWay) {
            List<Value> params = Invocations.parameters(call);
            String kind;
            boolean readOnly;
            TransactionCatalog.Entry entry;
            try {
                Classification.Rule rule = classification.rule(call.transaction());
                kind = rule.kind().label();
                readOnly = rule.readOnly();
                entry = catalog.get(call.transaction());
            } catch (RuntimeException e) {
                return new Result(new Outcome(Outcome.Status.FAILED, List.of(), e.getMessage()), "");
            }
            long now = System.currentTimeMillis();
            long seed = requests.incrementAndGet();
            try {
                Object result = statementOneWay > 0 ? runAcross(statementOneWay, readOnly, entry, params, now, seed)
                        : runHere(readOnly, entry, params, now, seed);
                return new Result(Invocations.ok(result), kind);
            } catch (Exception e) {
                return new Result(Invocations.failed(call, e), kind);
            }
        }

        /** The application next to the database: the call holds an emulated slot throughout, as Gyro's do. */
        private Object runHere(boolean readOnly, TransactionCatalog.Entry entry, List<Value> params, long now,
                               long seed) throws Exception {
            try (dev.gyro.runtime.hook.TransactionGate.Slot slot = capacity.enter()) {
                return db.inTransaction(readOnly, c -> entry.invoke(Invocations.context(c, now, seed), params));
            }
        }

        /** The application {@code oneWay} away: each statement and the commit a round trip. */
        private Object runAcross(long oneWay, boolean readOnly, TransactionCatalog.Entry entry, List<Value> params,
                                 long now, long seed) throws Exception {
            LongAdder trips = new LongAdder(); // this call's, failed attempts included
            Object result = db.inTransaction(readOnly, c -> {
                capacity.enter().close(); // the server's work on this transaction: its service time
                Object r = entry.invoke(Invocations.context(RemoteConnection.across(c, oneWay, trips), now, seed),
                        params);
                RemoteConnection.away(oneWay); // the COMMIT on its way: the locks are held until it arrives
                trips.increment();
                return r;
            });
            RemoteConnection.away(oneWay); // and the commit's reply
            calls.increment();
            roundTrips.add(trips.sum());
            return result;
        }

        @Override
        public void close() {}
    }
}
