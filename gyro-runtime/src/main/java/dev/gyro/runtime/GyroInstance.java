package dev.gyro.runtime;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gyro.app.BadRequestException;
import dev.gyro.app.Classification;
import dev.gyro.app.Kind;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.app.UserAbort;
import dev.gyro.client.Reply;
import dev.gyro.client.Request;
import dev.gyro.client.RoutingTable;
import dev.gyro.client.Wire;
import dev.gyro.protocol.Action;
import dev.gyro.protocol.Codec;
import dev.gyro.protocol.ConveyorBelt;
import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.MalformedMessageException;
import dev.gyro.protocol.Message;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.CapturingConnection;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.MetadataStore;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.runtime.db.UpdateApplier;
import dev.gyro.runtime.wan.LinkDelay;
import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One Gyro instance: the application's transactions, the coordination runtime and one DBMS instance (paper
 * Section III, Figure 1). A thin shell around the pure {@link ConveyorBelt}:
 * <ul>
 *   <li>local requests run at once on a request thread, concurrently with everything else, and reply
 *       (Algorithm 1, lines 2-4); nothing else is on their path;</li>
 *   <li>global requests are queued in the belt (line 6) and wait for the token;</li>
 *   <li>one event-loop thread owns the belt and feeds it events; one primary thread performs the belt's actions
 *       strictly in the order they were asked for (apply updates, execute globals, persist and pass the token),
 *       so a token is never sent before it is recorded as passed. Globals run one at a time where the DBMS lacks
 *       commit ordering (SQLite has a single writer; PostgreSQL's SSI lets a transaction serialized first commit
 *       last); on MariaDB/InnoDB each round's snapshot runs concurrently on the global threads, gsns taken in
 *       commit order (paper Appendix B, DESIGN.md decision 6).</li>
 * </ul>
 */
public final class GyroInstance implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(GyroInstance.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final InstanceConfig config;
    private final int self;
    private final TransactionCatalog catalog;
    private final Classification classification;
    private final RoutingTable routing;

    private Database db;
    private ConveyorBelt belt;
    private Server server;
    private PeerLinks peers;
    private final ExecutorService loop;
    private final ExecutorService primary;
    private final ExecutorService requestThreads;
    private ExecutorService globalThreads; // parallel globals only
    private final java.util.concurrent.atomic.AtomicInteger globalsRunning = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger mostGlobalsAtOnce = new java.util.concurrent.atomic.AtomicInteger();
    /** Held from taking a gsn to committing and reporting it, so that gsn order is commit order (parallel globals). */
    private final java.util.concurrent.locks.ReentrantLock commitLock = new java.util.concurrent.locks.ReentrantLock();
    private final ScheduledExecutorService ticker;

    private final AtomicLong nextRequestId = new AtomicLong(1);
    private final Map<Long, PendingGlobal> pending = new ConcurrentHashMap<>();
    private final Object gsnMonitor = new Object();
    private volatile long appliedGsn;
    private volatile String role = "STARTING";
    private volatile int queued;
    private volatile boolean closed;

    private final AtomicLong localCount = new AtomicLong();
    private final AtomicLong globalCount = new AtomicLong();
    private final AtomicLong forwardedCount = new AtomicLong();
    private final AtomicLong abortedCount = new AtomicLong();
    private final AtomicLong failedCount = new AtomicLong();
    private final AtomicLong updatesApplied = new AtomicLong();
    private final AtomicLong tokenPasses = new AtomicLong();

    /** What the local path needs of a transaction, found with one lookup (STYLE.md lesson 8: keep it lean). */
    private record LocalTransaction(TransactionCatalog.Entry entry, boolean readOnly) {}

    private final Map<String, LocalTransaction> localTransactions = new java.util.HashMap<>();

    // Benchmarks' emulated server (DESIGN.md "Benchmark method"): every request's transaction passes through it.
    private final Capacity capacity;

    // Dynamic check of Definition 1 (tests and diagnosis): null, the default, records nothing.
    private volatile dev.gyro.runtime.check.AccessLog accessLog;

    private record PendingGlobal(Request request, long arrivedAt, java.util.function.Consumer<Reply> reply) {}

    public GyroInstance(InstanceConfig config) {
        this.config = config;
        this.self = config.self();
        this.catalog = new TransactionCatalog(config.application().transactions());
        this.classification = config.classification();
        this.capacity = config.capacity();
        classification.validateAgainst(catalog);
        List<RoutingTable.Route> routes = new ArrayList<>();
        for (String name : catalog.names()) {
            Classification.Rule rule = classification.rule(name);
            TransactionCatalog.Entry e = catalog.get(name);
            int[] keys = rule.partitionBy().stream().mapToInt(e::parameterIndex).toArray();
            routes.add(new RoutingTable.Route(name, rule.kind().label(), keys));
            localTransactions.put(name, new LocalTransaction(e, rule.readOnly()));
        }
        this.routing = new RoutingTable(config.partitionMap(), config.addresses(), routes);
        this.loop = Executors.newSingleThreadExecutor(named("gyro-" + self + "-loop"));
        this.primary = Executors.newSingleThreadExecutor(named("gyro-" + self + "-primary"));
        this.requestThreads = Executors.newFixedThreadPool(config.requestThreads(), named("gyro-" + self + "-req"));
        this.ticker = Executors.newSingleThreadScheduledExecutor(named("gyro-" + self + "-tick"));
    }

    /** Opens the database, recovers the protocol state it records, and starts serving. */
    public GyroInstance start() throws IOException {
        try {
            // The backend follows from the database (a SQLite file or a JDBC URL); its dialect picks the pool sizes
            // (SQLite: one write connection, so writers queue in the pool instead of polling the file lock).
            Dialect dialect = Dialect.forTarget(config.databaseTarget());
            db = Database.open(dialect, config.databaseTarget(), dialect.instanceOptions());
            DurableState state = db.inTransaction(false, c -> {
                config.application().createSchema(c);
                MetadataStore.createTables(c);
                return MetadataStore.load(c, self);
            });
            appliedGsn = state.lastGsn();
            log.info("instance {} recovered: last gsn {}, token {}", self, state.lastGsn(), state.tokenStatus());
            // The belt exists before the server accepts anything, so no request or message can find it missing.
            // Globals run in parallel exactly where the DBMS has commit ordering (Appendix B; DESIGN.md decision 6).
            if (dialect.parallelGlobals())
                globalThreads = Executors.newFixedThreadPool(dialect.instanceOptions().writePoolSize(),
                        named("gyro-" + self + "-global"));
            belt = new ConveyorBelt(config.beltConfig().withParallelGlobals(dialect.parallelGlobals()), state,
                    System.currentTimeMillis());
            // WAN emulation (benchmarks) delays every message to a peer; off, LinkDelay.NONE costs nothing.
            LinkDelay delay = LinkDelay.of(self, config.wan());
            if (delay.emulated())
                log.info("instance {} at {} ({}): WAN emulation on, {}", self, config.wan().siteOf(self).displayName(),
                        config.wan().siteOf(self).abbreviation(), config.wan());
            peers = new PeerLinks(self, config.addresses(), delay);
            server = Grpc.newServerBuilderForPort(config.port(), InsecureServerCredentials.create())
                    .executor(requestThreads)
                    .maxInboundMessageSize(Wire.MAX_MESSAGE_BYTES)
                    .addService(ServerServiceDefinition.builder(Wire.CLIENT_SERVICE)
                            .addMethod(Wire.EXECUTE, ServerCalls.asyncUnaryCall(this::execute))
                            .addMethod(Wire.DESCRIBE, ServerCalls.asyncUnaryCall((req, out) -> respond(out, routing.toJson())))
                            .addMethod(Wire.STATUS, ServerCalls.asyncUnaryCall((req, out) -> respond(out, statusJson())))
                            .build())
                    .addService(ServerServiceDefinition.builder(Wire.PEER_SERVICE)
                            .addMethod(Wire.DELIVER, ServerCalls.asyncUnaryCall(this::deliver))
                            .build())
                    .build()
                    .start();
            onLoop(() -> {}); // performs what the recovered belt asks for first (e.g. resend a passed token)
            ticker.scheduleAtFixedRate(() -> onLoop(() -> belt.onTick(System.currentTimeMillis())),
                    config.tickMillis(), config.tickMillis(), TimeUnit.MILLISECONDS);
            log.info("instance {} serving {} on {}", self, config.application().name(), config.address());
            return this;
        } catch (SQLException e) {
            close();
            throw new IllegalStateException("instance " + self + " cannot open its database " + config.describeDatabase()
                    + ": " + e.getMessage(), e);
        } catch (IOException e) {
            close();
            throw new IOException("instance " + self + " cannot listen on " + config.address() + ": " + e.getMessage(), e);
        }
    }

    public int id() {
        return self;
    }

    public RoutingTable routing() {
        return routing;
    }

    public long appliedGsn() {
        return appliedGsn;
    }

    public String role() {
        return role;
    }

    /** The emulated server every request's transaction passes through ({@link Capacity#PLAIN}: none). */
    public Capacity capacity() {
        return capacity;
    }

    public Database database() {
        return db;
    }

    /** What this instance's links to its peers cost ({@link LinkDelay#NONE} unless WAN emulation is on). */
    LinkDelay linkDelay() {
        return peers.delay();
    }

    /** True when this instance runs each round's global requests concurrently (its DBMS has commit ordering). */
    public boolean parallelGlobals() {
        return globalThreads != null;
    }

    /** The most global requests this instance has had executing at the same time (1 when run one at a time). */
    public int mostGlobalsAtOnce() {
        return Math.max(mostGlobalsAtOnce.get(), globalCount.get() > 0 ? 1 : 0);
    }

    // ---------------------------------------------------------------- client requests

    private void execute(byte[] body, StreamObserver<byte[]> out) {
        Request request;
        try {
            request = Request.decode(body);
        } catch (MalformedMessageException e) {
            respond(out, Reply.error(Reply.Status.BAD_REQUEST, "malformed request: " + e.getMessage(), self).encode());
            return;
        }
        handle(request, reply -> respond(out, reply.encode()));
    }

    /**
     * Runs a request from inside this instance's process, as the paper deploys Gyro (instrumentation inside the
     * application server, Figure 1): the same routing as a request that arrives over the network; a request this
     * instance does not own is forwarded to its owner. Blocks until the reply.
     */
    public Reply call(Request request) {
        RoutingTable.Decision d = routing.decide(request.transaction(), request.parameters(), self);
        if (d != null && d.owner() == self && !d.global()) return executeLocal(request); // the lean local path
        java.util.concurrent.CompletableFuture<Reply> reply = new java.util.concurrent.CompletableFuture<>();
        handle(request, reply::complete);
        return reply.join();
    }

    private void handle(Request request, java.util.function.Consumer<Reply> reply) {
        RoutingTable.Decision d = routing.decide(request.transaction(), request.parameters(), self);
        if (d == null) {
            // Unknown transaction or too few parameters: the catalog produces the exact error.
            try {
                catalog.get(request.transaction()).arguments(null, request.parameters());
                reply.accept(Reply.error(Reply.Status.BAD_REQUEST, "cannot route " + request, self));
            } catch (BadRequestException e) {
                reply.accept(Reply.error(Reply.Status.BAD_REQUEST, e.getMessage(), self));
            }
            return;
        }
        if (d.owner() != self) {
            if (request.forwarded()) {
                reply.accept(Reply.error(Reply.Status.UNAVAILABLE, "request " + request + " was forwarded to instance "
                        + self + " but routes to instance " + d.owner() + ": partition maps disagree", self));
            } else {
                forward(d.owner(), request, reply);
            }
            return;
        }
        if (d.global()) {
            enqueueGlobal(request, reply);
        } else {
            reply.accept(executeLocal(request));
        }
    }

    /** An instance that receives a request for another forwards it (issue 2, item 6). */
    private void forward(int owner, Request request, java.util.function.Consumer<Reply> out) {
        forwardedCount.incrementAndGet();
        LinkDelay delay = peers.delay(); // WAN emulation: the request and its reply each cross the link once
        byte[] body = request.asForwarded().encode();
        delay.send(owner, () -> {
            var call = peers.channel(owner).newCall(Wire.EXECUTE,
                    CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS));
            ClientCalls.asyncUnaryCall(call, body, new StreamObserver<>() {
                @Override
                public void onNext(byte[] value) {
                    delay.receive(owner, () -> {
                        try {
                            out.accept(Reply.decode(value));
                        } catch (MalformedMessageException e) {
                            out.accept(Reply.error(Reply.Status.FAILED, "instance " + owner
                                    + " sent a malformed reply: " + e.getMessage(), self));
                        }
                    });
                }

                @Override
                public void onError(Throwable t) {
                    peers.channel(owner).resetConnectBackoff();
                    delay.receive(owner, () -> out.accept(Reply.error(Reply.Status.UNAVAILABLE, "instance " + owner
                            + " at " + config.addresses().get(owner) + ", which owns " + request
                            + ", is unreachable: " + Status.fromThrowable(t).getCode(), self)));
                }

                @Override
                public void onCompleted() {}
            });
        });
    }

    /**
     * Records what every request of this instance reads and writes into {@code log}, for the dynamic check of
     * Definition 1 ({@link dev.gyro.runtime.check.ReadFromChecker}). Every read then runs twice: for tests and
     * diagnosis, not production. Null stops recording.
     */
    public void recordAccesses(dev.gyro.runtime.check.AccessLog log) {
        this.accessLog = log;
    }

    private List<Value> partitionOf(Request request) {
        RoutingTable.Route route = routing.route(request.transaction());
        List<Value> out = new ArrayList<>();
        for (int k : route.keys()) out.add(request.parameters().get(k));
        return out;
    }

    /** Algorithm 1, lines 2-4: run now, on this instance's DBMS, and reply. */
    private Reply executeLocal(Request request) {
        if (!awaitGsn(request.afterGsn()))
            return Reply.error(Reply.Status.UNAVAILABLE, "instance " + self + " has not yet applied gsn "
                    + request.afterGsn() + " (at " + appliedGsn + ")", self);
        LocalTransaction local = localTransactions.get(request.transaction());
        if (local == null)
            return Reply.error(Reply.Status.BAD_REQUEST, "unknown transaction '" + request.transaction() + "'", self);
        TransactionCatalog.Entry entry = local.entry();
        long id = nextRequestId.getAndIncrement();
        long now = System.currentTimeMillis();
        dev.gyro.runtime.check.AccessLog log = accessLog;
        if (log != null) return executeLocalRecorded(request, local, id, now, log);
        try (Capacity.Slot slot = capacity.enter()) {
            Object result = db.inTransaction(local.readOnly(),
                    c -> entry.invoke(new RequestContext(c, now, seed(id)), request.parameters()));
            localCount.incrementAndGet();
            return new Reply(Reply.Status.OK, "", values(result), self, Kind.LOCAL.label(), 0);
        } catch (Exception e) {
            return failure(request, e);
        }
    }

    private Reply executeLocalRecorded(Request request, LocalTransaction local, long id, long now,
                                       dev.gyro.runtime.check.AccessLog log) {
        long start = System.nanoTime();
        Object[] seen = new Object[2];
        try (Capacity.Slot slot = capacity.enter()) {
            Object result = db.inTransaction(local.readOnly(), c -> {
                dev.gyro.runtime.check.RequestRecorder rec =
                        new dev.gyro.runtime.check.RequestRecorder(c, db.dialect(), db.tables());
                Object r = local.entry().invoke(new RequestContext(rec.connection(), now, seed(id)), request.parameters());
                seen[0] = rec.reads();
                seen[1] = rec.writes();
                return r;
            });
            log.add(accessOf(request, false, start, seen));
            localCount.incrementAndGet();
            return new Reply(Reply.Status.OK, "", values(result), self, Kind.LOCAL.label(), 0);
        } catch (Exception e) {
            return failure(request, e);
        }
    }

    @SuppressWarnings("unchecked")
    private dev.gyro.runtime.check.Access accessOf(Request request, boolean global, long start, Object[] seen) {
        return new dev.gyro.runtime.check.Access(self, request.transaction(), request.parameters(), partitionOf(request),
                global, start, System.nanoTime(), (java.util.Set<dev.gyro.runtime.check.RowRef>) seen[0],
                (java.util.Set<dev.gyro.runtime.check.RowRef>) seen[1]);
    }

    private void enqueueGlobal(Request request, java.util.function.Consumer<Reply> out) {
        long id = nextRequestId.getAndIncrement();
        pending.put(id, new PendingGlobal(request, System.currentTimeMillis(), out));
        onLoop(() -> {
            if (!belt.onGlobalRequest(id)) {
                pending.remove(id);
                out.accept(Reply.error(Reply.Status.OVERLOADED, "instance " + self + " already has "
                        + config.maxQueuedGlobals() + " global requests waiting for the token", self));
            }
        });
    }

    private Reply failure(Request request, Throwable e) {
        Throwable cause = e;
        while (cause instanceof java.lang.reflect.UndeclaredThrowableException || cause instanceof RuntimeException
                && cause.getCause() != null && !(cause instanceof UserAbort) && !(cause instanceof BadRequestException))
            cause = cause.getCause();
        if (cause instanceof BadRequestException) return Reply.error(Reply.Status.BAD_REQUEST, cause.getMessage(), self);
        if (cause instanceof UserAbort) {
            abortedCount.incrementAndGet();
            return Reply.error(Reply.Status.ABORTED, cause.getMessage(), self);
        }
        failedCount.incrementAndGet();
        log.debug("request {} failed", request, e);
        return Reply.error(Reply.Status.FAILED, request.transaction() + " failed and was rolled back: " + cause, self);
    }

    // ---------------------------------------------------------------- the Conveyor Belt shell

    private void deliver(byte[] body, StreamObserver<byte[]> out) {
        Message m;
        try {
            m = Codec.decodeMessage(body);
        } catch (MalformedMessageException e) {
            log.warn("instance {} rejected a malformed message: {}", self, e.getMessage());
            out.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
            return;
        }
        respond(out, new byte[0]);
        onLoop(() -> belt.onMessage(m));
    }

    /** Runs an event on the loop thread, then hands the belt's actions to the primary thread, in order. */
    private void onLoop(Runnable event) {
        if (closed) return;
        try {
            loop.execute(() -> {
                if (closed) return;
                try {
                    event.run();
                } catch (IllegalArgumentException | IllegalStateException e) {
                    log.error("instance {}: protocol event rejected: {}", self, e.getMessage());
                }
                if (belt == null) return;
                List<Action> actions = belt.ready();
                role = belt.role().name();
                queued = belt.queuedGlobals();
                if (!actions.isEmpty()) primary.execute(() -> perform(actions));
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closing
        }
    }

    private void perform(List<Action> actions) {
        for (Action a : actions) {
            if (closed) return;
            if (a instanceof Action.Send s) {
                peers.send(s.to(), s.message());
            } else if (a instanceof Action.ApplyUpdates au) {
                applyUpdates(au);
            } else if (a instanceof Action.ExecuteGlobals round) {
                executeGlobals(round);
            } else if (a instanceof Action.ExecuteGlobal eg) {
                executeGlobal(eg);
            } else if (a instanceof Action.PassToken pt) {
                retryForever("record the token of hop " + pt.token().hop() + " as passed",
                        () -> db.inTransaction(false, c -> {
                            MetadataStore.recordPassed(c, pt.token());
                            return null;
                        }));
                tokenPasses.incrementAndGet();
                peers.send(pt.to(), new Message.TokenPass(self, pt.token()));
            }
        }
    }

    /** Algorithm 1, lines 8-12, atomically with recording the token and the last applied gsn. */
    private void applyUpdates(Action.ApplyUpdates au) {
        retryForever("apply the updates of hop " + au.token().hop(), () -> db.inTransaction(false, c -> {
            for (StateUpdate u : au.updates()) UpdateApplier.apply(c, db.dialect(), u.changes());
            MetadataStore.recordReceived(c, au.token(), au.lastGsn());
            return null;
        }));
        updatesApplied.addAndGet(au.updates().size());
        advanceGsn(au.lastGsn());
        long hop = au.token().hop();
        onLoop(() -> belt.onUpdatesApplied(hop));
    }

    /** Algorithm 1, lines 15-17: execute, capture the writes as row images, reply. */
    private void executeGlobal(Action.ExecuteGlobal eg) {
        PendingGlobal p = pending.remove(eg.requestId());
        StateUpdate update = null;
        Reply reply;
        if (p == null) {
            reply = null; // cannot happen: requests are registered before the belt sees them
        } else {
            // ahead of queued local requests: the token waits for this one (Capacity, Section VII-C)
            try (Capacity.Slot slot = capacity.enterAhead()) {
                TransactionCatalog.Entry entry = catalog.get(p.request().transaction());
                StateUpdate[] written = new StateUpdate[1];
                dev.gyro.runtime.check.AccessLog log = accessLog;
                Object[] seen = new Object[2];
                long start = System.nanoTime();
                Object result = db.inTransaction(false, c -> {
                    written[0] = null;
                    dev.gyro.runtime.check.RequestRecorder rec = log == null ? null
                            : new dev.gyro.runtime.check.RequestRecorder(c, db.dialect(), db.tables());
                    CapturingConnection capture = rec != null ? rec.capture()
                            : CapturingConnection.wrap(c, db.dialect(), db.tables());
                    Object r = entry.invoke(new RequestContext(rec != null ? rec.connection() : capture.connection(),
                            p.arrivedAt(), seed(eg.requestId())), p.request().parameters());
                    if (rec != null) {
                        seen[0] = rec.reads();
                        seen[1] = rec.writes();
                    }
                    List<dev.gyro.protocol.RowChange> changes = capture.changes();
                    if (!changes.isEmpty()) {
                        written[0] = new StateUpdate(eg.gsn(), self, changes);
                        MetadataStore.recordGlobal(c, written[0]);
                    }
                    return r;
                });
                update = written[0];
                if (log != null) log.add(accessOf(p.request(), true, start, seen));
                globalCount.incrementAndGet();
                if (update != null) advanceGsn(update.gsn());
                reply = new Reply(Reply.Status.OK, "", values(result), self, Kind.GLOBAL.label(),
                        update == null ? 0 : update.gsn());
            } catch (Exception e) {
                update = committedAnyway(eg.gsn(), e); // normally null: rolled back, ships no update, uses no gsn
                reply = update == null ? failure(p.request(), e)
                        : Reply.error(Reply.Status.UNAVAILABLE, p.request().transaction() + " committed as gsn "
                                + update.gsn() + " but its result was lost with the connection to the database: "
                                + e.getMessage(), self);
                if (update != null) advanceGsn(update.gsn());
            }
            p.reply().accept(reply);
        }
        StateUpdate shipped = update;
        onLoop(() -> belt.onGlobalExecuted(eg.requestId(), shipped));
    }

    /**
     * Appendix B, "Optimizing the execution of global requests": the round's snapshot runs concurrently on the
     * global threads; the primary thread waits for all of them. Only on a DBMS with commit ordering (InnoDB
     * SERIALIZABLE): a request serialized after another waits for its locks, hence commits after it, hence takes a
     * later gsn, because a request takes its gsn at commit, under {@link #commitLock}.
     */
    private void executeGlobals(Action.ExecuteGlobals round) {
        long[] nextGsn = {round.firstGsn()}; // guarded by commitLock
        List<java.util.concurrent.Future<?>> running = new ArrayList<>();
        for (long id : round.requestIds())
            running.add(globalThreads.submit(() -> {
                mostGlobalsAtOnce.accumulateAndGet(globalsRunning.incrementAndGet(), Math::max);
                try {
                    executeGlobalInParallel(id, nextGsn);
                } finally {
                    globalsRunning.decrementAndGet();
                }
            }));
        for (java.util.concurrent.Future<?> f : running) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (java.util.concurrent.ExecutionException e) {
                log.error("instance {}: a global request of the round failed unexpectedly", self, e.getCause());
            }
        }
    }

    /**
     * One request of a parallel round: its own transaction (retried when it loses a race), whose commit takes the
     * next gsn, records it with the update (the same DBMS transaction, Action.ExecuteGlobals) and reports it to the
     * belt, all under {@link #commitLock}. A request that fails or writes nothing takes no gsn.
     */
    private void executeGlobalInParallel(long requestId, long[] nextGsn) {
        PendingGlobal p = pending.remove(requestId);
        if (p == null) { // cannot happen: requests are registered before the belt sees them
            onLoop(() -> belt.onGlobalExecuted(requestId, null));
            return;
        }
        StateUpdate update = null;
        Object result = null;
        Exception failure = null;
        dev.gyro.runtime.check.AccessLog accesses = accessLog;
        Object[] seen = new Object[2];
        long start = System.nanoTime();
        Capacity.Slot slot;
        try {
            // held for every attempt: the emulated server is busy with this request; ahead of queued local
            // requests, since the token waits for it (Capacity, Section VII-C)
            slot = capacity.enterAhead();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.reply().accept(failure(p.request(), e));
            onLoop(() -> belt.onGlobalExecuted(requestId, null));
            return;
        }
        try (slot) {
        for (int attempt = 1; ; attempt++) {
            java.sql.Connection c = null;
            boolean locked = false, committed = false;
            try {
                TransactionCatalog.Entry entry = catalog.get(p.request().transaction());
                c = db.writeConnection();
                dev.gyro.runtime.check.RequestRecorder rec = accesses == null ? null
                        : new dev.gyro.runtime.check.RequestRecorder(c, db.dialect(), db.tables());
                CapturingConnection capture = rec != null ? rec.capture()
                        : CapturingConnection.wrap(c, db.dialect(), db.tables());
                Object r = entry.invoke(new RequestContext(rec != null ? rec.connection() : capture.connection(),
                        p.arrivedAt(), seed(requestId)), p.request().parameters());
                if (rec != null) {
                    seen[0] = rec.reads();
                    seen[1] = rec.writes();
                }
                List<dev.gyro.protocol.RowChange> changes = capture.changes();
                if (!changes.isEmpty()) {
                    commitLock.lock();
                    locked = true;
                    StateUpdate u = new StateUpdate(nextGsn[0], self, changes);
                    MetadataStore.recordGlobal(c, u);
                    db.commit(c);
                    committed = true;
                    nextGsn[0]++;
                    update = u;
                    advanceGsn(u.gsn());
                    onLoop(() -> belt.onGlobalExecuted(requestId, u)); // queued under the lock: in gsn order
                } else {
                    db.commit(c);
                    committed = true;
                }
                result = r;
                break;
            } catch (Exception e) {
                if (c != null && !committed) db.rollback(c);
                if (locked) {
                    // A lost connection during COMMIT leaves the outcome unknown: ask the database.
                    StateUpdate anyway = committedAnyway(nextGsn[0], e);
                    if (anyway != null) {
                        nextGsn[0]++;
                        update = anyway;
                        advanceGsn(anyway.gsn());
                        onLoop(() -> belt.onGlobalExecuted(requestId, anyway));
                        failure = e;
                        break;
                    }
                    commitLock.unlock();
                    locked = false;
                }
                if (attempt < db.options().maxAttempts() && db.isRetryable(e)) {
                    try {
                        Thread.sleep(1 + java.util.concurrent.ThreadLocalRandom.current().nextLong(5L << Math.min(6, attempt)));
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        failure = e;
                        break;
                    }
                    continue;
                }
                failure = e;
                break;
            } finally {
                if (locked) commitLock.unlock();
                if (c != null) {
                    try {
                        c.close();
                    } catch (java.sql.SQLException | RuntimeException ignored) {
                        // the connection is gone
                    }
                }
            }
        }
        } // the emulated server's slot
        Reply reply;
        if (failure == null) {
            if (accesses != null) accesses.add(accessOf(p.request(), true, start, seen));
            globalCount.incrementAndGet();
            reply = new Reply(Reply.Status.OK, "", values(result), self, Kind.GLOBAL.label(),
                    update == null ? 0 : update.gsn());
            if (update == null) onLoop(() -> belt.onGlobalExecuted(requestId, null));
        } else if (update != null) {
            reply = Reply.error(Reply.Status.UNAVAILABLE, p.request().transaction() + " committed as gsn "
                    + update.gsn() + " but its result was lost with the connection to the database: "
                    + failure.getMessage(), self);
        } else {
            reply = failure(p.request(), failure); // rolled back: ships no update, uses no gsn
            onLoop(() -> belt.onGlobalExecuted(requestId, null));
        }
        p.reply().accept(reply);
    }

    /**
     * The update of gsn {@code gsn} if its transaction committed although executing it failed: with a database
     * server, a connection lost during COMMIT leaves the outcome unknown, and the database may hold the writes and
     * the gsn. Asked of the database itself (its outbox), as often as it takes to reach it, so that the belt never
     * disagrees with the database about the last gsn. Null after a failure the application or the DBMS reported
     * before committing.
     */
    private StateUpdate committedAnyway(long gsn, Exception failure) {
        if (failure instanceof UserAbort || failure instanceof BadRequestException) return null;
        StateUpdate[] found = new StateUpdate[1];
        retryForever("learn whether global update " + gsn + " committed",
                () -> found[0] = db.inTransaction(true, c -> MetadataStore.outboxUpdate(c, gsn)));
        if (found[0] != null)
            log.warn("instance {}: global update {} committed although its transaction reported {}", self, gsn,
                    failure.toString());
        return found[0];
    }

    private interface SqlAction {
        void run() throws Exception;
    }

    private void retryForever(String what, SqlAction action) {
        for (int attempt = 1; !closed; attempt++) {
            try {
                action.run();
                return;
            } catch (Exception e) {
                log.error("instance {} could not {} (attempt {}), retrying: {}", self, what, attempt, e.toString());
                try {
                    Thread.sleep(Math.min(1000, 10L * attempt));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    // ---------------------------------------------------------------- session guarantee (decision 9)

    private void advanceGsn(long gsn) {
        synchronized (gsnMonitor) {
            if (gsn > appliedGsn) appliedGsn = gsn;
            gsnMonitor.notifyAll();
        }
    }

    private boolean awaitGsn(long gsn) {
        if (gsn <= appliedGsn) return true;
        long deadline = System.currentTimeMillis() + 30_000;
        synchronized (gsnMonitor) {
            while (appliedGsn < gsn && !closed) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) return false;
                try {
                    gsnMonitor.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return appliedGsn >= gsn;
    }

    // ---------------------------------------------------------------- helpers

    private long seed(long requestId) {
        return requestId * 0x9E3779B97F4A7C15L ^ ((long) self << 56);
    }

    static List<Value> values(Object result) {
        if (result == null) return List.of();
        if (result instanceof List<?> list) {
            Value[] out = new Value[list.size()];
            for (int i = 0; i < out.length; i++) out[i] = Value.of(list.get(i));
            return List.of(out); // immutable already: Reply does not copy it again
        }
        return List.of(Value.of(result));
    }

    private static void respond(StreamObserver<byte[]> out, byte[] body) {
        try {
            out.onNext(body);
            out.onCompleted();
        } catch (RuntimeException e) {
            log.debug("reply not delivered: {}", e.toString()); // the client went away
        }
    }

    /** The instance's state as the Status method reports it. */
    public byte[] statusJson() {
        ObjectNode s = JSON.createObjectNode();
        s.put("instance", self);
        s.put("address", config.address());
        s.put("lastGsn", appliedGsn);
        s.put("role", role);
        s.put("queuedGlobals", queued);
        s.put("local", localCount.get());
        s.put("global", globalCount.get());
        s.put("forwarded", forwardedCount.get());
        s.put("aborted", abortedCount.get());
        s.put("failed", failedCount.get());
        s.put("updatesApplied", updatesApplied.get());
        s.put("tokenPasses", tokenPasses.get());
        s.put("parallelGlobals", parallelGlobals());
        s.put("mostGlobalsAtOnce", mostGlobalsAtOnce());
        if (config.wan().emulated()) {
            s.put("site", config.wan().siteOf(self).abbreviation());
            s.put("wanDelayed", peers == null ? 0 : peers.delay().delayed());
        }
        try {
            return JSON.writeValueAsBytes(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static java.util.concurrent.ThreadFactory named(String name) {
        AtomicLong n = new AtomicLong();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** Stops serving. The database keeps everything that committed; a restart resumes from it. */
    @Override
    public void close() {
        closed = true;
        synchronized (gsnMonitor) {
            gsnMonitor.notifyAll();
        }
        ticker.shutdownNow();
        if (server != null) server.shutdownNow();
        loop.shutdownNow();
        primary.shutdownNow();
        try {
            primary.awaitTermination(10, TimeUnit.SECONDS);
            if (server != null) server.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        requestThreads.shutdownNow();
        if (globalThreads != null) globalThreads.shutdownNow();
        if (peers != null) peers.close();
        if (db != null) db.close();
        for (PendingGlobal p : pending.values())
            p.reply().accept(Reply.error(Reply.Status.UNAVAILABLE, "instance " + self + " is shutting down", self));
        pending.clear();
    }
}
