package dev.gyro.runtime;

import com.zaxxer.hikari.HikariPoolMXBean;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.hook.PhaseObserver;
import dev.gyro.wire.Reply;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * The instance's metrics in one Micrometer registry, scraped as Prometheus text from its HTTP endpoint
 * (docs/decisions/18-watching.md). The request path pays one map lookup, one counter increment and one timer
 * record: the meters of a transaction are made once, the first time it ends with a given outcome, and found again
 * without allocating. Transactions are the catalog's only, so a client naming others cannot grow the label set.
 *
 * <p>Also keeps the recent request rates and mean latencies that the Status method reports (and so {@code gyro
 * cluster status} and the live view), sampled once a second from the same timers.
 */
final class InstanceMetrics implements AutoCloseable {

    private static final Reply.Status[] OUTCOMES = Reply.Status.values();
    /** Latency histogram buckets: from a local read on SQLite (tens of microseconds) to a global stuck behind a slow ring. */
    private static final Duration[] BUCKETS = {Duration.ofNanos(100_000), Duration.ofNanos(250_000),
            Duration.ofNanos(500_000), Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5),
            Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100),
            Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500),
            Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30)};
    private static final String UNKNOWN = "unknown";

    /** The meters of one transaction, per class (local, global) and outcome, made when first needed. */
    private final class TxMeters {
        final String name;
        final AtomicReferenceArray<Counter> counters = new AtomicReferenceArray<>(2 * OUTCOMES.length);
        final AtomicReferenceArray<Timer> timers = new AtomicReferenceArray<>(2);

        TxMeters(String name) {
            this.name = name;
        }

        void record(boolean global, Reply.Status outcome, long nanos) {
            int c = global ? 1 : 0;
            Counter n = counters.get(c * OUTCOMES.length + outcome.ordinal());
            if (n == null) n = counter(c, outcome);
            n.increment();
            Timer t = timers.get(c);
            if (t == null) t = timer(c);
            t.record(nanos, TimeUnit.NANOSECONDS);
        }

        /** The counter of OK requests of class {@code c} and its timer, at zero. */
        void registerAtZero(int c) {
            counter(c, Reply.Status.OK);
            timer(c);
        }

        private Counter counter(int c, Reply.Status outcome) {
            Counter n = Counter.builder("gyro.requests").description("requests answered by this instance")
                    .tag("transaction", name).tag("class", CLASSES[c])
                    .tag("outcome", outcome.name().toLowerCase(java.util.Locale.ROOT)).register(registry);
            counters.set(c * OUTCOMES.length + outcome.ordinal(), n);
            return n;
        }

        private Timer timer(int c) {
            Timer t = Timer.builder("gyro.request.latency")
                    .description("from the request's arrival at this instance to its reply")
                    .tag("transaction", name).tag("class", CLASSES[c]).serviceLevelObjectives(BUCKETS)
                    .register(registry);
            timers.set(c, t);
            return t;
        }
    }

    private static final String[] CLASSES = {"local", "global"};

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<String, TxMeters> transactions = new HashMap<>();
    private final TxMeters unknown = new TxMeters(UNKNOWN);
    private final Timer rotation;
    private final Timer[] globalPhases = new Timer[PhaseObserver.Phase.values().length];
    private final Timer tokenApply;
    private final Timer tokenHold;
    private final DistributionSummary updatesPerHop;
    private final DistributionSummary globalsPerVisit;
    private final DistributionSummary updatesCarried;
    private final JvmGcMetrics gc = new JvmGcMetrics();
    private volatile long rotationStart; // nanoTime when this instance last passed the token, 0: none since

    // The last sample (once a second): request counts and total latency per class, and the rates since the one before.
    private final long[] lastCount = new long[2];
    private final double[] lastNanos = new double[2];
    private long lastSampleAt = System.nanoTime();
    private volatile double[] perSecond = {0, 0};
    private volatile double[] meanMillis = {0, 0};

    /**
     * @param classOf each transaction's class in the routing table ({@code local}, {@code global} or
     *                {@code local-or-global}): its request counters (outcome ok) and latency timers exist at zero from
     *                the start, so that a rate or an alert on them sees a series before the first request
     */
    InstanceMetrics(int self, Collection<String> transactionNames, Function<String, String> classOf,
                    InstanceStats stats) {
        registry.config().commonTags("gyro_instance", Integer.toString(self));
        for (String name : transactionNames) {
            TxMeters m = new TxMeters(name);
            transactions.put(name, m);
            String kind = classOf.apply(name);
            for (int c = 0; c < CLASSES.length; c++)
                if (kind == null || kind.equals("local-or-global") || kind.equals(CLASSES[c])) m.registerAtZero(c);
        }
        FunctionCounter.builder("gyro.token.passes", stats, s -> s.tokenPasses.sum())
                .description("tokens this instance passed to the next").register(registry);
        rotation = Timer.builder("gyro.token.rotation")
                .description("from passing the token until it comes back round the ring (parked time elsewhere included)")
                .serviceLevelObjectives(BUCKETS).register(registry);
        for (PhaseObserver.Phase p : PhaseObserver.Phase.values())
            globalPhases[p.ordinal()] = Timer.builder("gyro.global.phase")
                    .description("a global request's time at its owner, by phase (they add up to its latency)")
                    .tag("phase", p.label()).serviceLevelObjectives(BUCKETS).register(registry);
        tokenApply = Timer.builder("gyro.token.apply")
                .description("applying a received token's updates and recording it (one DBMS transaction)")
                .serviceLevelObjectives(BUCKETS).register(registry);
        tokenHold = Timer.builder("gyro.token.hold")
                .description("from the token's arrival (or the request that woke it) to passing it on")
                .serviceLevelObjectives(BUCKETS).register(registry);
        updatesPerHop = DistributionSummary.builder("gyro.token.apply.updates")
                .description("state updates applied from one received token").register(registry);
        globalsPerVisit = DistributionSummary.builder("gyro.token.visit.globals")
                .description("global requests executed during one visit of the token (its rounds' snapshots)")
                .register(registry);
        updatesCarried = DistributionSummary.builder("gyro.token.pass.updates")
                .description("state updates the token carried when this instance passed it").register(registry);
        gauge("gyro.global.queue.length", "global requests waiting for or executing with the token", stats,
                s -> s.queuedGlobals());
        gauge("gyro.last.gsn", "the highest gsn whose writes are in this instance's database", stats,
                s -> s.appliedGsn());
        gauge("gyro.globals.executing", "global requests executing now", stats, s -> s.globalsRunning());
        FunctionCounter.builder("gyro.updates.applied", stats, s -> s.updatesApplied.sum())
                .description("other instances' state updates applied here").register(registry);
        FunctionCounter.builder("gyro.updates.ahead", stats, s -> s.updatesAhead.sum())
                .description("of those, the ones applied ahead of the token, sent by their origin at commit")
                .register(registry);
        FunctionCounter.builder("gyro.forwarded", stats, s -> s.forwarded.sum())
                .description("requests forwarded to the instance that owns them").register(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
    }

    private <T> void gauge(String name, String description, T on, ToDoubleFunction<T> value) {
        Gauge.builder(name, on, value).description(description).register(registry);
    }

    /**
     * The database's retries of lost races, its connection pools (HikariCP's own counts), and whether it is down
     * (unreachable, or the instance retrying work on it: DatabaseHealth).
     */
    void database(Database db) {
        Gauge.builder("gyro.database.down", db.failures().health(), h -> h.downGauge())
                .description("1 while this instance's database is unreachable or the instance retries work on it")
                .register(registry);
        FunctionCounter.builder("gyro.retries", db, Database::retries)
                .description("transactions run again after losing a race in the database").register(registry);
        for (Map.Entry<String, HikariPoolMXBean> p : db.pools().entrySet()) {
            HikariPoolMXBean pool = p.getValue();
            String name = p.getKey();
            Gauge.builder("gyro.db.connections", pool, HikariPoolMXBean::getActiveConnections).tag("pool", name)
                    .tag("state", "active").description("database connections in use").register(registry);
            Gauge.builder("gyro.db.connections", pool, HikariPoolMXBean::getIdleConnections).tag("pool", name)
                    .tag("state", "idle").register(registry);
            Gauge.builder("gyro.db.connections.pending", pool, HikariPoolMXBean::getThreadsAwaitingConnection)
                    .tag("pool", name).description("threads waiting for a database connection").register(registry);
        }
    }

    /** The instance's request threads: how many run and how many wait (the pool refuses beyond its bound). */
    void requestPool(java.util.concurrent.ThreadPoolExecutor pool) {
        Gauge.builder("gyro.request.threads.active", pool, java.util.concurrent.ThreadPoolExecutor::getActiveCount)
                .register(registry);
        Gauge.builder("gyro.request.threads.queued", pool, p -> p.getQueue().size()).register(registry);
    }

    /** A gauge read from {@code watch} (the ring's health). */
    <T> void ring(String name, String description, T watch, ToDoubleFunction<T> value) {
        gauge(name, description, watch, value);
    }

    /** A counter read from {@code watch}. */
    <T> void count(String name, String description, T watch, ToDoubleFunction<T> value) {
        FunctionCounter.builder(name, watch, value).description(description).register(registry);
    }

    /** A request this instance answered, {@code startNanos} being {@link System#nanoTime()} at its arrival. */
    void request(String transaction, boolean global, Reply.Status outcome, long startNanos) {
        TxMeters m = transactions.get(transaction);
        (m == null ? unknown : m).record(global, outcome, System.nanoTime() - startNanos);
    }

    /** This instance passed the token on (counted by {@link InstanceStats}): a rotation starts. */
    void tokenPassed() {
        rotationStart = System.nanoTime();
    }

    /** The token came back to this instance: one rotation since it passed it. */
    void tokenReceived() {
        long start = rotationStart;
        if (start != 0) rotation.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        rotationStart = 0;
    }

    /** One global request's time by phase ({@link PhaseObserver.Phase} ordinals). */
    void globalPhases(long[] nanos) {
        for (int i = 0; i < nanos.length; i++) globalPhases[i].record(nanos[i], TimeUnit.NANOSECONDS);
    }

    /** A received token's {@code updates} were applied in {@code nanos}. */
    void tokenApplied(int updates, long nanos) {
        tokenApply.record(nanos, TimeUnit.NANOSECONDS);
        updatesPerHop.record(updates);
    }

    /** The token's visit here ended with passing it on. */
    void tokenVisit(PhaseObserver.TokenVisit v) {
        tokenHold.record(v.holdNanos(), TimeUnit.NANOSECONDS);
        globalsPerVisit.record(v.globals());
        updatesCarried.record(v.updatesCarried());
    }

    /** Once a second: the request rates and mean latencies since the last sample. */
    synchronized void sample() {
        long now = System.nanoTime();
        double seconds = (now - lastSampleAt) / 1e9;
        if (seconds <= 0) return;
        double[] rate = new double[2];
        double[] mean = new double[2];
        for (int c = 0; c < 2; c++) {
            long count = 0;
            double nanos = 0;
            for (TxMeters m : transactions.values()) {
                Timer t = m.timers.get(c);
                if (t == null) continue;
                count += t.count();
                nanos += t.totalTime(TimeUnit.NANOSECONDS);
            }
            long n = count - lastCount[c];
            rate[c] = n / seconds;
            mean[c] = n == 0 ? 0 : (nanos - lastNanos[c]) / n / 1e6;
            lastCount[c] = count;
            lastNanos[c] = nanos;
        }
        lastSampleAt = now;
        perSecond = rate;
        meanMillis = mean;
    }

    /** Requests per second over the last sample, local and global. */
    double perSecond(boolean global) {
        return perSecond[global ? 1 : 0];
    }

    /** Mean latency in milliseconds over the last sample, local and global (0 when none ended). */
    double meanMillis(boolean global) {
        return meanMillis[global ? 1 : 0];
    }

    /** Everything, as Prometheus text (format 0.0.4). */
    String scrape() {
        return registry.scrape();
    }

    @Override
    public void close() {
        gc.close();
        registry.close();
    }
}
