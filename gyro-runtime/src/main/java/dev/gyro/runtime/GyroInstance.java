package dev.gyro.runtime;

import dev.gyro.driver.BeltLoop;
import dev.gyro.driver.BeltActions;
import dev.gyro.app.Classification;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.wire.RoutingTable;
import dev.gyro.protocol.ConveyorBelt;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.MetadataStore;
import dev.gyro.runtime.hook.PhaseObserver;
import dev.gyro.runtime.hook.RequestObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One Gyro instance: the application's transactions, the coordination runtime and one DBMS instance (paper
 * Section III, Figure 1). This class only runs the lifecycle of its parts, which {@link InstanceParts} builds once
 * (docs/architecture.md, "The runtime shell"):
 * <ul>
 *   <li>{@link InstanceServer}: the gRPC endpoint, a client service and a peer service on executors of their own;</li>
 *   <li>{@link RequestRouter}: routes a request, forwards what another instance owns;</li>
 *   <li>{@link LocalExecutor}: Algorithm 1, lines 2-4, on a bounded pool of request threads;</li>
 *   <li>{@link SessionGate}: parks a request until the gsn its client saw is applied here;</li>
 *   <li>{@link GlobalExecutor}: Algorithm 1, lines 6 and 14-18, one request at a time or a whole round at once
 *       where the DBMS has commit ordering (paper Appendix B);</li>
 *   <li>{@link BeltLoop} and {@link BeltActions}: the driver, the only thread that touches the {@link ConveyorBelt},
 *       feeding it events and performing its actions in order; fail-stop;</li>
 *   <li>{@link InstanceStats}: what the Status method reports.</li>
 * </ul>
 */
public final class GyroInstance implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(GyroInstance.class);

    private final InstanceConfig config;
    private final int self;
    private final TransactionCatalog catalog;
    private final RoutingTable routing;
    private final Map<String, LocalExecutor.LocalTransaction> localTransactions = new HashMap<>();
    private final InstanceStats stats = new InstanceStats();
    private final AtomicLong requestIds = new AtomicLong(1);
    private final AtomicBoolean closed = new AtomicBoolean();

    private final Database replicated;
    /** Built once by {@link #start()}; null before. */
    private volatile InstanceParts parts;
    /** Built by {@link #prepare()}, handed to the parts by {@link #start()}; null otherwise. */
    private volatile StandbyParts standby;

    public GyroInstance(InstanceConfig config) {
        this(config, null);
    }

    /**
     * An instance that runs as the leader of its ring position's replicated group
     * (docs/decisions/24-ring-on-groups.md), on {@code replicated}: a view of the leading replica's database whose
     * write transactions commit through the group's log ({@link Database#replicatedBy}), or null for an instance on a
     * database of its own. The replica owns that database, has created its tables and stamped it; this instance
     * recovers the belt from it and never closes it.
     */
    public GyroInstance(InstanceConfig config, Database replicated) {
        if (replicated != null && !replicated.replicated())
            throw new IllegalArgumentException(replicated + " is not a replicated group's view of its database");
        this.replicated = replicated;
        this.config = config;
        this.self = config.self();
        this.catalog = config.application().catalog();
        Classification classification = config.classification();
        classification.validateAgainst(catalog);
        List<RoutingTable.Route> routes = new ArrayList<>();
        for (String name : catalog.names()) {
            Classification.Rule rule = classification.rule(name);
            TransactionCatalog.Entry e = catalog.get(name);
            int[] keys = rule.partitionBy().stream().mapToInt(e::parameterIndex).toArray();
            routes.add(new RoutingTable.Route(name, rule.kind().label(), keys));
            localTransactions.put(name, new LocalExecutor.LocalTransaction(e, rule.readOnly()));
        }
        this.routing = new RoutingTable(config.partitionMap(), config.addresses(), routes);
    }

    /**
     * Opens the database, recovers the protocol state it records, and starts serving. Called once, on the caller's
     * thread.
     *
     * @throws IllegalStateException when the database cannot be opened or the ring refuses it; nothing is left open
     * @throws IOException           when the instance cannot listen on its address
     */
    public GyroInstance start() throws IOException {
        if (parts != null) throw new IllegalStateException("instance " + self + " is started already");
        StandbyParts ahead = standby;
        standby = null;
        InstanceParts p = new InstanceParts(config, replicated, catalog, routing, localTransactions, stats, requestIds,
                closed::get, this::failStop, ahead);
        parts = p;
        if (closed.get()) p.close(); // closed while it started
        log.info("instance {} of cluster {} serving {} on {} (listening on {}, {}){}", self,
                config.network().clusterId(), config.application().name(), config.address(), config.bindHost(),
                config.network().transport(), p.http == null ? "" : "; metrics and live view on " + p.http.url());
        return this;
    }

    /**
     * Builds, before {@link #start()}, what the instance needs that does not depend on its database: its threads,
     * metrics, and links to its peers (not connected yet). A replica that follows its group prepares the instance it
     * starts once it leads, so that a failover waits only for the belt's recovery from the database
     * (docs/decisions/41-failover-on-a-loaded-machine.md). Closing the instance closes them. On the caller's thread.
     */
    public GyroInstance prepare() {
        if (parts != null || standby != null) throw new IllegalStateException("instance " + self + " is prepared already");
        StandbyParts ahead = new StandbyParts(config, catalog, routing, stats);
        standby = ahead;
        if (closed.get()) ahead.close(); // closed while it was prepared
        return this;
    }

    /**
     * Makes a database ready for an instance: the application's schema, Gyro's metadata tables, the cluster's stamp.
     * A replicated group's replicas each do it on their own database before the group starts (decision 24): DDL is not
     * row images, and every replica reaches the same state by it.
     */
    public static void prepare(Connection c, InstanceConfig config) throws SQLException {
        config.application().createSchema(c);
        MetadataStore.createTables(c);
        MetadataStore.claim(c, config.network().clusterId());
    }

    public int id() {
        return self;
    }

    public RoutingTable routing() {
        return routing;
    }

    /** The highest gsn whose writes are in this instance's database. */
    public long appliedGsn() {
        return stats.appliedGsn();
    }

    /** The belt's role ({@link ConveyorBelt.Role}), STARTING before it runs, STOPPED once the instance stopped itself. */
    public String role() {
        return stats.role();
    }

    public Database database() {
        return parts.db;
    }

    /** True when this instance runs each round's global requests concurrently (its DBMS has commit ordering). */
    public boolean parallelGlobals() {
        return parts.parallelGlobals;
    }

    /** The most global requests this instance has had executing at the same time (1 when run one at a time). */
    public int mostGlobalsAtOnce() {
        return stats.mostGlobalsAtOnce();
    }

    /** True once the instance has stopped, closed or stopped itself (fail-stop). */
    public boolean stopped() {
        return closed.get();
    }

    /**
     * Runs a request from inside this instance's process, as the paper deploys Gyro (Figure 1): the same routing as
     * a request that arrives over the network; a request this instance does not own is forwarded to its owner.
     * Blocks until the reply.
     */
    public Reply call(Request request) {
        return parts.router.call(request);
    }

    /**
     * Runs a global request at this instance, whichever instance owns its partition (an attached application's global
     * call runs where it arrived, docs/decisions/38-attached-processes.md). Blocks until the reply.
     *
     * @throws IllegalArgumentException when the request is not global
     */
    public Reply callHere(Request request) {
        RoutingTable.Decision d = routing.decide(request.transaction(), request.parameters(), self);
        if (d == null || !d.global()) throw new IllegalArgumentException(request + " is not a global request");
        return parts.router.callHere(request);
    }

    /**
     * A call to instance {@code to} that its process answers ({@code InstanceConfig.withPeerCalls}), over the ring's
     * link: the future completes with the answer, or fails (unreachable, refused, no answer within {@code millis}).
     */
    public java.util.concurrent.CompletableFuture<byte[]> callPeer(int to, byte[] body, long millis) {
        return parts.peers.call(to, body, millis);
    }

    /**
     * A local request of this instance whose work runs on the caller's own thread, between this call and its
     * {@link OpenLocal#commit()} or {@link OpenLocal#rollback()} (an attached application's call, run at once with no
     * coordination as every local request is, docs/decisions/34-attaching.md).
     *
     * @throws java.sql.SQLException when it cannot begin
     */
    public OpenLocal openLocal(Request request) throws java.sql.SQLException {
        return parts.local.open(request);
    }

    /** A local request open on its caller's thread ({@link #openLocal}). */
    public interface OpenLocal {
        /** The connection the caller's work runs on, in the request's transaction. */
        java.sql.Connection connection();

        /** Commits; when that fails the transaction is rolled back and the failure thrown. */
        void commit() throws java.sql.SQLException;

        void rollback();
    }

    /**
     * Watches what every request of this instance reads and writes ({@link RequestObserver#NONE}, the default,
     * stops watching): the dynamic check of Definition 1, for tests and diagnosis.
     */
    public void observeRequests(RequestObserver observer) {
        parts.local.observe(observer);
        parts.globals.observe(observer);
    }

    /**
     * Tells {@code observer} where each global request's time went here, by phase, and what each visit of the token
     * did ({@link PhaseObserver#NONE}, the default, tells nothing): for benchmarks and diagnosis.
     */
    public void observePhases(PhaseObserver observer) {
        parts.globals.clock().observe(observer);
    }

    /**
     * Tells {@code observer} of each bucket move's copy here, and lets it say when the cutover is asked for
     * ({@link dev.gyro.runtime.hook.MoveObserver#NONE}, the default: at once): for tests.
     */
    public void observeMoves(dev.gyro.runtime.hook.MoveObserver observer) {
        parts.globals.observeMoves(observer);
    }

    /** Where its HTTP endpoint serves /metrics, /status.json, /ring.json and the live view; null if it has none. */
    public String httpUrl() {
        return parts.http == null ? null : parts.http.url();
    }

    /** Everything its metrics registry holds, as Prometheus text (what /metrics serves). */
    public String metricsText() {
        return parts.metrics.scrape();
    }

    /** The instance's state as the Status method reports it (JSON). */
    public byte[] statusJson() {
        return parts.statusJson();
    }

    /** Fail-stop: log why, stop serving, then let the process decide (docs/decisions/11-fail-stop.md). */
    private void failStop(Throwable cause) {
        String reason = cause.getMessage() == null ? cause.toString() : cause.getMessage();
        if (replicated != null) // routine in a group: its replica stopped leading, or a write's fate is the log's to say
            log.warn("instance {} stops at this replica: {}. The replica that leads its group next starts it again from"
                    + " its database.", self, reason);
        else
            log.error("instance {} stops: {}. Its database keeps what committed; restart it to recover from there.",
                    self, reason, cause);
        stats.stopped(reason);
        // Not on the belt loop's thread, which closing waits for.
        Thread stopper = new Thread(() -> {
            close();
            config.hooks().failStop().stopped(self, reason, cause);
        }, "gyro-" + self + "-stop");
        stopper.setDaemon(false);
        stopper.start();
    }

    /**
     * Stops answering at once, as a crash does to an instance's connections: its server stops listening and the calls
     * in flight are cancelled, so clients and peers turn elsewhere now; {@link #close()} stops the rest. For a replica
     * killed inside one process, whose group log takes a while to close (InstanceReplica). Any thread, any time.
     */
    public void stopServing() {
        InstanceParts p = parts;
        if (p != null) p.server.close();
    }

    /** Stops serving. The database keeps everything that committed; a restart resumes from it. Any thread, any time. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        InstanceParts p = parts;
        if (p != null) p.close();
        StandbyParts ahead = standby; // prepared, never started
        if (ahead != null) ahead.close();
    }
}
