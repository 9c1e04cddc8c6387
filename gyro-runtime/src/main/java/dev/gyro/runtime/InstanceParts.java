package dev.gyro.runtime;

import dev.gyro.driver.BeltLoop;
import dev.gyro.driver.BeltActions;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.protocol.BeltEvent;
import dev.gyro.protocol.ConveyorBelt;
import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.Message;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.runtime.db.InstanceLock;
import dev.gyro.runtime.db.BucketRows;
import dev.gyro.runtime.db.MetadataStore;
import dev.gyro.runtime.db.OrderedCommits;
import dev.gyro.runtime.hook.LinkDelay;
import dev.gyro.wire.Reply;
import dev.gyro.wire.RoutingTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The running parts of one {@link GyroInstance}, each built once, in order (the database and recovery first, the
 * server last), and closed in the reverse order by {@link #close()}. A part that cannot be built closes those built
 * before it, so a refused start leaves nothing behind (docs/architecture.md, "The runtime shell").
 *
 * <p>Built and closed on the caller's thread; close is called once.
 */
final class InstanceParts implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(InstanceParts.class);

    /** How long a starting instance waits for its peers to say where the token stands. */
    static final java.time.Duration AGREEMENT_DEADLINE = java.time.Duration.ofSeconds(5);

    /** What is closed on close, the last built first. */
    private final Deque<AutoCloseable> built = new ArrayDeque<>();
    private final InstanceConfig config;
    private final int self;
    final Database db;
    final boolean parallelGlobals;
    final LinkDelay links;
    final ScheduledExecutorService timers;
    final InstanceMetrics metrics;
    final RingWatch ring;
    final SessionGate session;
    final LocalExecutor local;
    final GlobalExecutor globals;
    final PeerLinks peers;
    final BeltLoop loop;
    final RequestRouter router;
    final Buckets buckets;
    final RingMembers members;
    final InstanceServer server;
    final HttpEndpoint http;
    private final InstanceStats stats;
    /** Where the token stands here, as of the belt's last event: what a starting peer is told (RingAgreement). */
    private volatile RingAgreement.Position position;
    private volatile List<io.grpc.ManagedChannel> statusChannels; // to every instance, made at the first /ring.json
    private volatile byte[] ringJson;
    private volatile long ringJsonAt;

    /**
     * @param replicated the replicated group's view of the leader's database, or null for a database of its own
     * @param closed     true once the instance is closing
     * @param failStop   told once why the belt loop stopped the instance
     * @param standby    the parts built ahead ({@link GyroInstance#prepare()}), owned from now on; null: built here
     */
    InstanceParts(InstanceConfig config, Database replicated, TransactionCatalog catalog, RoutingTable routing,
                  Map<String, LocalExecutor.LocalTransaction> localTransactions, InstanceStats stats,
                  AtomicLong requestIds, BooleanSupplier closed, Consumer<Throwable> failStop, StandbyParts standby)
            throws IOException {
        this.config = config;
        this.self = config.self();
        this.stats = stats;
        try {
            // The backend follows from the database (a SQLite file or a JDBC URL); its dialect picks the pool sizes
            // (SQLite: one write connection, so writers queue in the pool instead of polling the file lock).
            Dialect dialect;
            DurableState state;
            BucketRows.Loaded map;
            java.util.TreeMap<Integer, String> joined;
            if (replicated != null) {
                dialect = replicated.dialect();
                db = replicated; // the replica owns it: never closed here
                // A write transaction through the group: it begins once the replica's database holds the whole log,
                // so the belt resumes from what the group committed (decision 24); its first row is replicated too.
                // One transaction for all it reads: each transaction of a new leader waits a round of its group
                // (a read index), and a failover waits for this one (docs/decisions/41-failover-on-a-loaded-machine.md).
                Recovered r = db.inTransaction(false, c -> new Recovered(MetadataStore.load(c, self),
                        BucketRows.load(c, routing.map()), RingMembers.joined(c)));
                state = r.state();
                map = r.map();
                joined = r.joined();
            } else {
                dialect = Dialect.forTarget(config.databaseTarget());
                db = built(Database.open(dialect, config.databaseTarget(), dialect.instanceOptions()));
                // Held until close: the same instance started twice on one database is refused here, before it reads
                // or writes anything (docs/decisions/13-secure-by-default.md).
                built(InstanceLock.acquire(dialect, db.jdbcUrl(), self));
                state = db.inTransaction(false, c -> {
                    GyroInstance.prepare(c, config);
                    return MetadataStore.load(c, self);
                });
                map = db.inTransaction(true, c -> BucketRows.load(c, routing.map()));
                joined = db.inTransaction(true, RingMembers::joined);
            }
            // The buckets moved since the ring started, as this database applied them (decision 43), and the instances
            // that joined it (decision 44).
            List<String> configured = routing.addresses();
            List<String> all = joinedAddresses(configured, joined);
            for (int i = 0; i < configured.size(); i++) // members reached at another address since (decision 47)
                if (!all.get(i).equals(configured.get(i)))
                    routing.moveAddress(i, all.get(i), state.ring() != null ? state.ring().epoch() : 0);
            routing.adoptAddresses(all);
            members = new RingMembers(self, routing, state.ring() != null ? state.ring()
                    : dev.gyro.protocol.Ring.initial(config.partitionMap().instances()));
            routing.adopt(map.map());
            buckets = new Buckets(self, routing, map.gsn(), config.classification().partitionedTables());
            stats.appliedGsn(state.lastGsn());
            log.info("instance {} recovered: last gsn {}, token {}", self, state.lastGsn(), state.tokenStatus());
            // Globals run a whole round at once where the DBMS has commit ordering (Appendix B;
            // docs/decisions/06-commit-ordering.md) or OrderedCommits makes it (decision 20); elsewhere the window is
            // one request. A replicated group's leader runs one write transaction at a time (its writer lock, decision
            // 22).
            parallelGlobals = replicated == null && (dialect.parallelGlobals() || dialect.orderedCommits());
            int window = parallelGlobals ? dialect.instanceOptions().writePoolSize() : 1;
            // Built ahead by a replica that follows its group (GyroInstance.prepare), else now.
            StandbyParts ahead = built(standby != null ? standby : new StandbyParts(config, catalog, routing, stats));
            links = ahead.links;
            timers = ahead.timers;
            ExecutorService requestThreads = ahead.requestThreads;
            metrics = ahead.metrics;
            ring = ahead.ring;
            peers = ahead.peers;
            ExecutorService probes = ahead.probes;
            metrics.database(db);
            db.failures().health().name("instance " + self + "'s " + dialect.name() + " database");
            metrics.ring("gyro.map.version", "the version of the partition map this instance routes by", buckets,
                    b -> b.map().version());
            metrics.ring("gyro.buckets.owned", "how many of the map's buckets this instance owns", buckets,
                    b -> b.map().bucketsOf(self).length);
            metrics.ring("gyro.buckets.moving", "buckets this instance has closed for a move now", buckets,
                    Buckets::closedNow);
            metrics.ring("gyro.buckets.moved", "buckets moved away from this instance since it started", buckets,
                    Buckets::movedAway);
            metrics.ring("gyro.buckets.move.phase", "the phase of the move of buckets away from this instance in"
                    + " progress: 0 none, 1 copying, 2 catching up, 3 cut over", buckets, Buckets::movePhase);
            metrics.count("gyro.bucket.rows.moved", "rows moves shipped from this instance to the buckets' new owners:"
                    + " copied, and caught up at the cutover", buckets, Buckets::rowsMoved);
            session = built(new SessionGate(state.lastGsn(), timers));
            Replies replies = new Replies(self, config.address(), stats);
            local = new LocalExecutor(self, db, localTransactions, config.hooks().gate(), replies, stats, requestIds,
                    r -> RequestRouter.partitionOf(routing, r));
            globals = built(new GlobalExecutor(self, db, catalog, config.hooks().gate(), replies, stats, session,
                    requestIds, r -> RequestRouter.partitionOf(routing, r), Threads.fixed(self, "global", window),
                    dialect.orderedCommits() && window > 1 ? new OrderedCommits(window) : null,
                    new PhaseClock(metrics), timers));
            PeerCheck check = new PeerCheck(config, members::ring);
            members.attach(peers, ring);
            // A replicated group's leader starts on what its group's log committed (decision 24): the log, not a peer,
            // vouches for its database, and asking the peers would lengthen every failover by their answers' wait.
            // The agreement's hop arithmetic is that of the first ring; once the ring changed, the belt's own check of the
            // hops it receives tells a database behind the ring (decision 44).
            if (replicated == null && state.ring() == null) agreeWithTheRing(state);
            ConveyorBelt belt = new ConveyorBelt(config.beltConfig(links, parallelGlobals)
                    .withUpdatesAhead(true).withTrimToken(true), state, config.hooks().clock().getAsLong());
            position = RingAgreement.Position.of(belt);
            Ticks ticks = new Ticks(timers, config.tickMillis(), this::tick);
            loop = built(new BeltLoop(self, belt, Threads.single(self, "belt"), failStop, view -> {
                stats.belt(view.role().name(), view.queuedGlobals());
                position = new RingAgreement.Position(view.receivedHop(), view.successorHasHop(), view.lastGsn());
                ticks.want(view.waitsForTime());
            }, BeltLoop.Recorder.NONE, config.hooks().clock()));
            globals.attach(loop);
            Database database = db;
            router = new RequestRouter(self, routing, catalog, local, globals, peers, session, requestThreads, replies,
                    stats, metrics, (id, deadline) -> {
                        byte[] r = database.inTransaction(true, deadline, c -> MetadataStore.recordedReply(c, id));
                        return r == null ? null : Reply.decode(r);
                    }, buckets);
            globals.attach(new GlobalExecutor.Moves(buckets, new BucketMove(self, db, routing, buckets,
                    buckets.tables(), new RetryRule(self, db, closed)), new RingChange(self, db, routing, members,
                    loop::receivedHop, new RetryRule(self, db, closed)), routing, router::reroute));
            // The belt exists before the server accepts anything, so no request or message can find it missing.
            loop.start(new BeltActions(self, new JdbcBeltStore(self, db, closed).moving(buckets, members), peers, globals, loop::step,
                    new ShellProgress(stats, session, new ShellProgress.TokenEvents() {
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

                        @Override
                        public void heard(Message message) {
                            ring.received(message);
                        }
                    })));
            server = built(new InstanceServer(config, check, router, loop::step, routing::toJson,
                    this::statusJson, () -> position.encode()).start());
            http = config.http() == null ? null
                    : built(new HttpEndpoint(self, config.http(), metrics::scrape, this::statusJson, this::ringJson));
            built(() -> {
                List<io.grpc.ManagedChannel> channels = statusChannels;
                if (channels != null) channels.forEach(io.grpc.ManagedChannel::shutdownNow);
            });
            // Once a second: the request rates Status reports, whether the ring has been broken for too long, and
            // whether the database answers; more often, whether a peer stopped acknowledging belt messages.
            timers.scheduleAtFixedRate(peers::check, PeerLinks.CHECK_EVERY.toMillis(), PeerLinks.CHECK_EVERY.toMillis(),
                    TimeUnit.MILLISECONDS);
            timers.scheduleAtFixedRate(() -> {
                metrics.sample();
                ring.check();
                db.failures().health().check(probes);
            }, 1, 1, TimeUnit.SECONDS);
            built(timers::shutdownNow); // closed first: no tick after close begins
        } catch (SQLException e) {
            close();
            throw new IllegalStateException("instance " + self + " cannot open its database " + config.describeDatabase()
                    + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            close(); // lets go of the database and its lock: a refused start leaves nothing behind
            throw e;
        } catch (IOException e) {
            close();
            String listening = config.bindHost() + ":" + config.port();
            throw new IOException("instance " + self + " cannot listen on " + listening
                    + (config.network().bind() == null ? "" : " (--bind/bind, for its address " + config.address() + ")")
                    + ": " + e.getMessage(), e);
        }
    }

    /** What a replicated group's new leader reads from its database to resume the belt, in one transaction. */
    private record Recovered(DurableState state, BucketRows.Loaded map, java.util.TreeMap<Integer, String> joined) {}

    /** {@code configured}, followed by the addresses of the instances that joined the ring since (decision 44). */
    private static List<String> joinedAddresses(List<String> configured, java.util.TreeMap<Integer, String> joined) {
        List<String> all = new ArrayList<>(configured);
        joined.forEach((id, address) -> {
            while (all.size() <= id) all.add(address);
            all.set(id, address);
        });
        return all;
    }

    /** The protocol timer (Ticks: only while the belt waits for time). */
    private void tick() {
        loop.step(new BeltEvent.Tick(config.hooks().clock().getAsLong()));
    }

    private <T extends AutoCloseable> T built(T part) {
        built.push(part);
        return part;
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

    /** The instance's state as the Status method reports it (JSON). */
    byte[] statusJson() {
        Map<String, Object> more = new java.util.LinkedHashMap<>(links.status());
        more.put("localPerSecond", metrics.perSecond(false));
        more.put("globalPerSecond", metrics.perSecond(true));
        more.put("localLatencyMs", metrics.meanMillis(false));
        more.put("globalLatencyMs", metrics.meanMillis(true));
        more.putAll(ring.status());
        more.putAll(db.failures().health().status());
        more.putAll(buckets.status());
        more.put("bucketRequests", router.load().counts());
        if (http != null) more.put("http", http.url());
        return stats.json(self, config.address(), parallelGlobals, session.waiting(), more);
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

    /** Closes every part built, the last built first. The database keeps everything that committed. */
    @Override
    public void close() {
        for (AutoCloseable part; (part = built.poll()) != null; ) {
            try {
                part.close();
            } catch (Exception e) {
                log.warn("instance {}: closing {} failed: {}", self, part, e.toString());
            }
        }
    }
}
