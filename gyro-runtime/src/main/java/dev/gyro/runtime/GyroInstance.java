package dev.gyro.runtime;

import dev.gyro.app.Classification;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.wire.RoutingTable;
import dev.gyro.protocol.ConveyorBelt;
import dev.gyro.protocol.DurableState;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.runtime.db.InstanceLock;
import dev.gyro.runtime.db.MetadataStore;
import dev.gyro.runtime.db.OrderedCommits;
import dev.gyro.runtime.hook.LinkDelay;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One Gyro instance: the application's transactions, the coordination runtime and one DBMS instance (paper
 * Section III, Figure 1). This class only wires the parts together and runs their lifecycle
 * (docs/architecture.md, "The runtime shell"):
 * <ul>
 *   <li>{@link InstanceServer}: the gRPC endpoint, a client service and a peer service on executors of their own;</li>
 *   <li>{@link RequestRouter}: routes a request, forwards what another instance owns;</li>
 *   <li>{@link LocalExecutor}: Algorithm 1, lines 2-4, on a bounded pool of request threads;</li>
 *   <li>{@link SessionGate}: parks a request until the gsn its client saw is applied here;</li>
 *   <li>{@link GlobalExecutor}: Algorithm 1, lines 6 and 14-18, one request at a time or a whole round at once
 *       where the DBMS has commit ordering (paper Appendix B);</li>
 *   <li>{@link BeltLoop} and {@link BeltActions}: the only thread that touches the {@link ConveyorBelt}, performing
 *       its actions in order; fail-stop;</li>
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
    private Database db;
    private InstanceLock lock;
    /** Where the token stands here, as of the belt's last event: what a starting peer is told (RingAgreement). */
    private volatile RingAgreement.Position position;
    private LinkDelay links = LinkDelay.NONE;
    private ScheduledExecutorService timers;
    private ExecutorService requestThreads;
    private SessionGate session;
    private LocalExecutor local;
    private GlobalExecutor globals;
    private BeltLoop loop;
    private PeerLinks peers;
    private RequestRouter router;
    private InstanceServer server;
    private boolean parallelGlobals;
    private InstanceMetrics metrics;
    private RingWatch ring;
    private HttpEndpoint http;
    private volatile List<io.grpc.ManagedChannel> statusChannels; // to every instance, made at the first /ring.json
    private volatile byte[] ringJson;
    private volatile long ringJsonAt;

    public GyroInstance(InstanceConfig config) {
        this(config, null);
    }

    /**
     * An instance that runs as the leader of its ring position's replicated group (docs/decisions.md, decision 24), on
     * {@code replicated}: a view of the leading replica's database whose write transactions commit through the group's
     * log ({@link Database#replicatedBy}), or null for an instance on a database of its own. The replica owns that
     * database, has created its tables and stamped it; this instance recovers the belt from it and never closes it.
     */
    public GyroInstance(InstanceConfig config, Database replicated) {
        if (replicated != null && !replicated.replicated())
            throw new IllegalArgumentException(replicated + " is not a replicated group's view of its database");
        this.replicated = replicated;
        this.config = config;
        this.self = config.self();
        this.catalog = new TransactionCatalog(config.application().transactions());
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

    /** Opens the database, recovers the protocol state it records, and starts serving. */
    public GyroInstance start() throws IOException {
        try {
            // The backend follows from the database (a SQLite file or a JDBC URL); its dialect picks the pool sizes
            // (SQLite: one write connection, so writers queue in the pool instead of polling the file lock).
            Dialect dialect;
            DurableState state;
            if (replicated != null) {
                dialect = replicated.dialect();
                db = replicated;
                // A write transaction through the group: it begins once the replica's database holds the whole log,
                // so the belt resumes from what the group committed (decision 24); its first row is replicated too.
                state = db.inTransaction(false, c -> MetadataStore.load(c, self));
            } else {
                dialect = Dialect.forTarget(config.databaseTarget());
                db = Database.open(dialect, config.databaseTarget(), dialect.instanceOptions());
                // Held until close: the same instance started twice on one database is refused here, before it reads
                // or writes anything (docs/decisions.md, decision 13).
                lock = InstanceLock.acquire(dialect, db.jdbcUrl(), self);
                state = db.inTransaction(false, c -> {
                    prepare(c, config);
                    return MetadataStore.load(c, self);
                });
            }
            stats.appliedGsn(state.lastGsn());
            log.info("instance {} recovered: last gsn {}, token {}", self, state.lastGsn(), state.tokenStatus());
            // Globals run a whole round at once where the DBMS has commit ordering (Appendix B; docs/decisions.md,
            // decision 6) or OrderedCommits makes it (decision 20); elsewhere the window is one request.
            // A replicated group's leader runs one write transaction at a time (its writer lock, decision 22).
            parallelGlobals = replicated == null && (dialect.parallelGlobals() || dialect.orderedCommits());
            int window = parallelGlobals ? dialect.instanceOptions().writePoolSize() : 1;
            links = config.hooks().links().open(self);
            timers = Threads.timer(self);
            requestThreads = Threads.bounded(self, "req", config.requestThreads(), config.maxQueuedRequests());
            metrics = new InstanceMetrics(self, catalog.names(), stats);
            metrics.database(db);
            metrics.requestPool((java.util.concurrent.ThreadPoolExecutor) requestThreads);
            ring = new RingWatch(self, config.addresses(), stats::queuedGlobals);
            metrics.ring("gyro.peers.unreachable", "peers this instance has not reached for longer than the alarm bound",
                    ring, RingWatch::unreachablePeers);
            metrics.ring("gyro.token.unacknowledged.seconds", "how long the token this instance passed waits for"
                    + " its acknowledgement (0 once acknowledged)", ring, RingWatch::tokenUnacknowledgedSeconds);
            metrics.ring("gyro.ring.broken", "1 while this instance reports a broken ring", ring, RingWatch::broken);
            session = new SessionGate(state.lastGsn(), timers);
            Replies replies = new Replies(self, stats);
            local = new LocalExecutor(self, db, localTransactions, config.hooks().gate(), replies, stats, requestIds,
                    r -> RequestRouter.partitionOf(routing, r));
            globals = new GlobalExecutor(self, db, catalog, config.hooks().gate(), replies, stats, session, requestIds,
                    r -> RequestRouter.partitionOf(routing, r), Threads.fixed(self, "global", window),
                    dialect.orderedCommits() && window > 1 ? new OrderedCommits(window) : null,
                    new PhaseClock(metrics));
            PeerCheck check = new PeerCheck(config);
            peers = new PeerLinks(self, config.addresses(), links, config.network().transport(), check.headers(), ring);
            // A replicated group's leader starts on what its group's log committed (decision 24): the log, not a peer,
            // vouches for its database, and asking the peers would lengthen every failover by their answers' wait.
            if (replicated == null) agreeWithTheRing(state);
            ConveyorBelt belt = new ConveyorBelt(config.beltConfig(links, parallelGlobals)
                    .withUpdatesAhead(true).withTrimToken(true), state,
                    config.hooks().clock().getAsLong());
            position = RingAgreement.Position.of(belt);
            loop = new BeltLoop(belt, Threads.single(self, "belt"), this::failStop, b -> {
                stats.belt(b.role().name(), b.queuedGlobals());
                position = RingAgreement.Position.of(b);
            });
            globals.attach(loop);
            Database database = db;
            router = new RequestRouter(self, routing, catalog, local, globals, peers, session, requestThreads, replies,
                    stats, metrics, id -> {
                        byte[] r = database.inTransaction(true, c -> MetadataStore.recordedReply(c, id));
                        return r == null ? null : Reply.decode(r);
                    });
            // The belt exists before the server accepts anything, so no request or message can find it missing.
            loop.start(new BeltActions(self, db, peers, globals, session, stats, loop, closed::get,
                    new BeltActions.TokenEvents() {
                        @Override
                        public void sent(int to, long hop) {
                            if (ring.tokenSent(to, hop)) metrics.tokenPassed();
                        }

                        @Override
                        public void received(long hop, int updates) {
                            metrics.tokenReceived();
                            log.debug("instance {} received the token of hop {} with {} update(s) to apply", self,
                                    hop, updates);
                        }
                    }));
            server = new InstanceServer(config, check, router, loop::submit, routing.toJson(),
                    this::statusJson, () -> position.encode(), ring::received).start();
            if (config.http() != null)
                http = new HttpEndpoint(self, config.http(), metrics::scrape, this::statusJson, this::ringJson);
            // Once a second: the request rates Status reports, whether the ring has been broken for too long, and
            // whether a peer stopped acknowledging belt messages.
            PeerLinks peerLinks = peers;
            timers.scheduleAtFixedRate(() -> {
                metrics.sample();
                peerLinks.check();
                ring.check();
            }, 1, 1, TimeUnit.SECONDS);
            timers.scheduleAtFixedRate(() -> loop.submit(b -> b.onTick(config.hooks().clock().getAsLong())),
                    config.tickMillis(), config.tickMillis(), TimeUnit.MILLISECONDS);
            log.info("instance {} of cluster {} serving {} on {} (listening on {}, {}){}", self,
                    config.network().clusterId(), config.application().name(), config.address(), config.bindHost(),
                    config.network().transport(), http == null ? "" : "; metrics and live view on " + http.url());
            return this;
        } catch (SQLException e) {
            close();
            throw new IllegalStateException("instance " + self + " cannot open its database " + config.describeDatabase()
                    + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            close(); // lets go of the database and its lock: a refused start leaves nothing behind
            throw e;
        } catch (IOException e) {
            close();
            throw new IOException("instance " + self + " cannot listen on " + config.address() + ": " + e.getMessage(), e);
        }
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

    /** Refuses to serve on a database the ring has moved past (RingAgreement), before the belt exists. */
    private void agreeWithTheRing(DurableState state) {
        int n = config.addresses().size();
        if (n == 1) return;
        Map<Integer, RingAgreement.Position> answers = peers.positions(AGREEMENT_DEADLINE);
        String refusal = RingAgreement.refusal(self, n, state, answers);
        if (refusal != null) {
            log.error(refusal);
            throw new IllegalStateException(refusal);
        }
        if (answers.isEmpty()) {
            // A new ring starts all at once, so nobody answering is the rule there; later it deserves a warning.
            boolean fresh = state.lastGsn() == 0 && (state.token() == null || state.token().hop() == 0);
            String text = "instance {} could not check its database against the ring: no other instance answered (all"
                    + " starting?); if it is behind the ring, it stops when the token comes, before applying anything";
            if (fresh) log.info(text, self);
            else log.warn(text, self);
        } else
            log.info("instance {} agrees with the ring: instances {} answered, none knows of a later token", self,
                    answers.keySet());
    }

    /** How long a starting instance waits for its peers to say where the token stands. */
    static final java.time.Duration AGREEMENT_DEADLINE = java.time.Duration.ofSeconds(5);

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
        return db;
    }

    /** True when this instance runs each round's global requests concurrently (its DBMS has commit ordering). */
    public boolean parallelGlobals() {
        return parallelGlobals;
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
        return router.call(request);
    }

    /**
     * Watches what every request of this instance reads and writes ({@link RequestObserver#NONE}, the default,
     * stops watching): the dynamic check of Definition 1, for tests and diagnosis.
     */
    public void observeRequests(RequestObserver observer) {
        local.observe(observer);
        globals.observe(observer);
    }

    /**
     * Tells {@code observer} where each global request's time went here, by phase, and what each visit of the token
     * did ({@link PhaseObserver#NONE}, the default, tells nothing): for benchmarks and diagnosis.
     */
    public void observePhases(PhaseObserver observer) {
        globals.clock().observe(observer);
    }

    /** Where its HTTP endpoint serves /metrics, /status.json, /ring.json and the live view; null if it has none. */
    public String httpUrl() {
        return http == null ? null : http.url();
    }

    /** Everything its metrics registry holds, as Prometheus text (what /metrics serves). */
    public String metricsText() {
        return metrics.scrape();
    }

    /** The instance's state as the Status method reports it (JSON). */
    public byte[] statusJson() {
        Map<String, Object> more = new java.util.LinkedHashMap<>(links.status());
        if (metrics != null) {
            more.put("localPerSecond", metrics.perSecond(false));
            more.put("globalPerSecond", metrics.perSecond(true));
            more.put("localLatencyMs", metrics.meanMillis(false));
            more.put("globalLatencyMs", metrics.meanMillis(true));
        }
        if (ring != null) more.putAll(ring.status());
        if (http != null) more.put("http", http.url());
        return stats.json(self, config.address(), parallelGlobals, session == null ? 0 : session.waiting(), more);
    }

    /**
     * Every instance's status, asked through their Status methods over the cluster's transport (this instance's own
     * certificate is a client certificate of the cluster), at most twice a second however many pages ask.
     */
    private byte[] ringJson() {
        long now = System.nanoTime();
        byte[] cached = ringJson;
        if (cached != null && now - ringJsonAt < 500_000_000L) return cached;
        synchronized (this) {
            if (ringJson != null && System.nanoTime() - ringJsonAt < 500_000_000L) return ringJson;
            List<io.grpc.ManagedChannel> channels = statusChannels;
            if (channels == null) {
                List<io.grpc.ManagedChannel> made = new ArrayList<>();
                for (String a : config.addresses()) made.add(config.network().transport().channel(a));
                statusChannels = channels = made;
            }
            byte[] json = dev.gyro.wire.RingStatus.toJsonBytes(dev.gyro.wire.RingStatus.ask(channels,
                    config.addresses(), java.time.Duration.ofSeconds(1)));
            ringJson = json;
            ringJsonAt = System.nanoTime();
            return json;
        }
    }

    /** Fail-stop: log why, stop serving, then let the process decide (docs/decisions.md, decision 11). */
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

    /** Stops serving. The database keeps everything that committed; a restart resumes from it. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        if (timers != null) timers.shutdownNow();
        if (http != null) http.close();
        if (statusChannels != null) statusChannels.forEach(io.grpc.ManagedChannel::shutdownNow);
        if (server != null) server.close();
        if (loop != null) loop.close();
        if (globals != null) globals.close();
        if (session != null) session.close();
        if (requestThreads != null) {
            requestThreads.shutdownNow();
            try {
                requestThreads.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (peers != null) peers.close();
        else links.close();
        if (db != null) db.close();
        if (metrics != null) metrics.close();
        if (lock != null) lock.close();
    }
}
