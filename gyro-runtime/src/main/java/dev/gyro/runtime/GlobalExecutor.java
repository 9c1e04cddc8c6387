package dev.gyro.runtime;

import dev.gyro.app.BadRequestException;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.app.UserAbort;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.protocol.Action;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.CapturingConnection;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.Failures;
import dev.gyro.runtime.db.MetadataStore;
import dev.gyro.runtime.db.OrderedCommits;
import dev.gyro.runtime.db.UnavailableException;
import dev.gyro.runtime.hook.RequestObserver;
import dev.gyro.runtime.hook.TransactionGate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Algorithm 1, lines 6 and 14-18: holds global requests until the belt asks for them, then runs them on this
 * instance's DBMS, capturing their writes as row images, and answers their clients. One path for both ways the belt
 * runs a round: one request at a time ({@link Action.ExecuteGlobal}, its gsn known before it runs), or the whole round
 * at once where the DBMS has commit ordering ({@link Action.ExecuteGlobals}, paper Appendix B), each request asking
 * the belt for its gsn when it is ready to commit ({@link Action.CommitGlobal}). Sequential execution is thus the
 * parallel one with a window of one request. A request that commits writes records its gsn and its update (the
 * outbox) in its own DBMS transaction (docs/decisions.md, decision 5); one that fails or writes nothing takes no gsn.
 *
 * <p>Threads: {@link #enqueue} from request threads; {@link #execute} and {@link #grant} from the belt loop, which
 * they never block; each request runs on one of the global threads, whose number is the window.
 */
final class GlobalExecutor implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(GlobalExecutor.class);

    private record Pending(Request request, Arguments arguments, long arrivedAt, Consumer<Reply> reply,
                           PhaseClock.Timeline timeline) {}

    /** How a request ended: committed (update null if it wrote nothing), or failed (update set if it committed anyway). */
    private record Outcome(Object result, StateUpdate update, Exception failure) {}

    /** The instance is stopping: what was under way is abandoned, unreported (the database decides on restart). */
    static final class Stopping extends RuntimeException {
        Stopping() {
            super("the instance is stopping", null, false, false);
        }
    }

    private final int self;
    private final Database db;
    private final TransactionCatalog catalog;
    private final TransactionGate gate;
    private final Replies replies;
    private final InstanceStats stats;
    private final SessionGate session;
    private final AtomicLong requestIds;
    private final Function<Request, List<Value>> partitionOf;
    private final ExecutorService threads;
    private final OrderedCommits ordered; // null where the DBMS orders commits itself, or one request runs at a time
    private final Backoff retry;
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final Map<Long, CompletableFuture<Long>> grants = new ConcurrentHashMap<>();
    private final PhaseClock clock;
    private final AtomicReference<TransactionGate.Hold> held = new AtomicReference<>();
    private volatile BeltLoop loop;
    private volatile RequestObserver observer = RequestObserver.NONE;
    private volatile boolean closed;

    GlobalExecutor(int self, Database db, TransactionCatalog catalog, TransactionGate gate, Replies replies,
                   InstanceStats stats, SessionGate session, AtomicLong requestIds,
                   Function<Request, List<Value>> partitionOf, ExecutorService threads, OrderedCommits ordered,
                   PhaseClock clock) throws SQLException {
        this.clock = clock;
        this.self = self;
        this.db = db;
        this.catalog = catalog;
        this.gate = gate;
        this.replies = replies;
        this.stats = stats;
        this.session = session;
        this.requestIds = requestIds;
        this.partitionOf = partitionOf;
        this.threads = threads;
        this.ordered = ordered;
        if (ordered != null) db.inTransaction(false, c -> {
            ordered.createTables(c);
            return null;
        });
        this.retry = new Backoff(db.options().firstBackoff(), db.options().maxBackoff());
    }

    void attach(BeltLoop loop) {
        this.loop = loop;
    }

    void observe(RequestObserver observer) {
        this.observer = observer;
    }

    /** Where the phases of its requests and the token's visits are timed (the belt actions report to it too). */
    PhaseClock clock() {
        return clock;
    }

    /**
     * Algorithm 1, line 6: the request waits in the belt's queue Q; refused when the queue is full.
     *
     * @param converted    its arguments, checked and converted already ({@link Arguments#NONE}: not yet)
     * @param arrivedNanos {@link System#nanoTime()} at its arrival, where its phases start
     */
    void enqueue(Request request, Object[] converted, long arrivedNanos, Consumer<Reply> reply) {
        long id = requestIds.getAndIncrement();
        PhaseClock.Timeline timeline = clock.arrived(request.transaction(), arrivedNanos);
        pending.put(id, new Pending(request, new Arguments(converted), System.currentTimeMillis(), reply, timeline));
        loop.step(new BeltEvent.GlobalRequest(id));
    }

    /** The belt took request {@code id} into its queue ({@link BeltLoop.Actions#queued}). On the belt loop. */
    void queued(long id, boolean holdsToken, boolean wasParked) {
        Pending p = pending.get(id);
        if (p != null) clock.queued(p.timeline(), holdsToken, wasParked);
    }

    /** The belt refused request {@code id}: its client is told the instance is overloaded. On the belt loop. */
    void refused(long id, int queued) {
        Pending p = pending.remove(id);
        stats.refused.increment();
        if (p != null) p.reply().accept(replies.error(Reply.Status.OVERLOADED, "instance " + self
                + " already has " + queued + " global requests waiting for the token"));
    }

    /**
     * The token arrived and its updates are about to be applied: if global requests wait here, local requests are
     * held back from now until the round's first requests are in their slots ({@link TransactionGate#holdLocals()}),
     * so that the transactions in service finish while the updates are applied. Called on the belt loop.
     */
    void tokenArrived() {
        if (pending.isEmpty()) return;
        TransactionGate.Hold before = held.getAndSet(gate.holdLocals());
        if (before != null) before.close();
    }

    /** Lets local requests in again, if {@link #tokenArrived()} held them. Safe from any thread, any number of times. */
    void releaseLocals() {
        TransactionGate.Hold h = held.getAndSet(null);
        if (h != null) h.close();
    }

    /** {@link Action.ExecuteGlobal}: one request, whose gsn the belt fixed. Does not wait for it. */
    void execute(Action.ExecuteGlobal one) {
        long gsn = one.gsn();
        executing(one.requestId());
        start(List.of(one.requestId()), (id, timeline) -> gsn, new AtomicInteger(1));
    }

    /** {@link Action.ExecuteGlobals}: the whole round at once; each request asks for its gsn when ready. */
    void execute(Action.ExecuteGlobals round) {
        for (long id : round.requestIds()) {
            grants.put(id, new CompletableFuture<>());
            executing(id);
        }
        Collection<List<Long>> chains = conflictClasses(round.requestIds());
        AtomicInteger firstWave = new AtomicInteger(chains.size()); // the requests that start at once
        for (List<Long> chain : chains) start(chain, this::awaitGrant, firstWave);
    }

    /**
     * The round split by conflict class: requests of an equal first partitioning value (the same warehouse, the same
     * item) almost always touch the same rows, so under {@link OrderedCommits} they would only abort each other or
     * deadlock on their commit order. The first value is the one that chose this instance as the request's owner
     * (a local-or-global request runs where its first key lives, decision 7), where the rows it reads and then
     * writes are: a new order's district, a payment's customer, a bid's item. Each class runs one request after
     * another, in the belt's order; classes run side by side (conflict-aware scheduling; docs/decisions.md, decision
     * 20). Serializability does not rest on this: requests of different classes that do conflict are still ordered
     * by {@link OrderedCommits}. Where the DBMS orders commits itself (MariaDB), every request is a class of its own.
     */
    private Collection<List<Long>> conflictClasses(List<Long> ids) {
        if (ordered == null) return ids.stream().map(List::of).toList();
        Map<List<Value>, List<Long>> classes = new LinkedHashMap<>();
        for (long id : ids) {
            Pending p = pending.get(id);
            List<Value> key = p == null ? List.of() : partitionOf.apply(p.request());
            if (key.size() > 1) key = key.subList(0, 1);
            classes.computeIfAbsent(key, k -> new ArrayList<>()).add(id);
        }
        return classes.values();
    }

    /** {@link Action.CommitGlobal}: the belt grants a waiting request its gsn. */
    void grant(Action.CommitGlobal commit) {
        CompletableFuture<Long> f = grants.get(commit.requestId());
        if (f == null || !f.complete(commit.gsn()))
            throw new IllegalStateException("the belt granted gsn " + commit.gsn() + " to global request "
                    + commit.requestId() + ", which does not wait for one");
    }

    private void executing(long id) {
        Pending p = pending.get(id);
        if (p != null) clock.executing(p.timeline());
    }

    private interface GsnSource {
        long gsnFor(long requestId, PhaseClock.Timeline timeline) throws InterruptedException;
    }

    /**
     * Runs {@code ids} one after another on one global thread, all in one slot of the transaction gate
     * ({@link ChainSlot}); the first of them, once in its slot (or failed), counts {@code firstWave} down, and the last
     * of the wave lets local requests in again.
     */
    private void start(List<Long> ids, GsnSource gsns, AtomicInteger firstWave) {
        try {
            threads.execute(() -> {
                try (ChainSlot slot = new ChainSlot()) {
                    for (int i = 0; i < ids.size(); i++) {
                        long id = ids.get(i);
                        Runnable entered = i > 0 ? () -> {} : () -> {
                            if (firstWave.decrementAndGet() == 0) releaseLocals();
                        };
                        try {
                            run(id, gsns, entered, slot, i == ids.size() - 1);
                        } catch (RuntimeException | Error e) { // the belt waits for this request's report: fail-stop
                            loop.failStop(new IllegalStateException("global request " + id
                                    + " could not be executed: " + e, e));
                            return;
                        }
                    }
                }
            });
        } catch (RejectedExecutionException e) {
            throw new Stopping();
        }
    }

    /**
     * The gate's slot that a conflict class keeps from one request to the next ({@link TransactionGate.Slot#serveNext}):
     * the next request starts only once the one before committed, so it cannot wait ahead of the local requests
     * meanwhile, and would find the slot it frees taken by one of them.
     */
    private final class ChainSlot implements AutoCloseable {
        private TransactionGate.Slot slot;

        void enter(Runnable entered) throws InterruptedException {
            if (slot == null) {
                slot = enterAhead(entered);
                return;
            }
            try {
                slot.serveNext();
            } finally {
                entered.run();
            }
        }

        @Override
        public void close() {
            if (slot != null) slot.close();
            slot = null;
        }
    }

    private long awaitGrant(long id, PhaseClock.Timeline timeline) throws InterruptedException {
        CompletableFuture<Long> f = grants.computeIfAbsent(id, k -> new CompletableFuture<>());
        long asked = System.nanoTime();
        loop.step(new BeltEvent.ReadyToCommit(id));
        try {
            return f.get();
        } catch (ExecutionException | CancellationException e) {
            throw new Stopping();
        } finally {
            timeline.gsnWait += System.nanoTime() - asked;
        }
    }

    /** Runs one request in {@code slot}, which it lets go if it is the {@code last} of its chain or fails to get. */
    private void run(long id, GsnSource gsns, Runnable entered, ChainSlot slot, boolean last) {
        Pending p = pending.remove(id);
        if (p == null) { // cannot happen: a request is registered before the belt hears of it
            entered.run();
            if (last) slot.close();
            report(id, null);
            return;
        }
        stats.globalStarted();
        Outcome outcome;
        try {
            slot.enter(entered); // held for every attempt
            p.timeline().inSlot = System.nanoTime();
            outcome = attempts(id, p, gsns);
            p.timeline().committed = System.nanoTime();
        } catch (InterruptedException | Stopping e) {
            slot.close();
            p.reply().accept(replies.shuttingDown()); // unreported: the instance is stopping
            return;
        } finally {
            stats.globalFinished();
            grants.remove(id);
            if (last) slot.close();
        }
        StateUpdate u = outcome.update();
        report(id, u);
        if (u != null) {
            log.debug("instance {}: global {} committed as gsn {} ({} rows)", self, p.request(), u.gsn(),
                    u.changes().size());
            stats.appliedGsn(u.gsn());
            session.advance(u.gsn());
        }
        Reply reply;
        if (outcome.failure() == null) {
            stats.global.increment();
            reply = replies.global(outcome.result(), u == null ? 0 : u.gsn());
        } else {
            reply = u != null ? replies.committedButLost(p.request(), u.gsn(), outcome.failure())
                    : replies.failure(p.request(), outcome.failure()); // rolled back: ships no update, uses no gsn
        }
        long replied = System.nanoTime(); // before the hand-over: the client may be done before the next line runs
        p.reply().accept(reply);
        clock.answered(p.timeline(), replied);
    }

    private TransactionGate.Slot enterAhead(Runnable entered) throws InterruptedException {
        try {
            return gate.enterAhead();
        } finally {
            entered.run();
        }
    }

    /** Runs the request, again while it loses races; commits its writes under the gsn {@code gsns} gives it. */
    private Outcome attempts(long id, Pending p, GsnSource gsns) throws InterruptedException {
        TransactionCatalog.Entry entry = catalog.get(p.request().transaction());
        RequestObserver watcher = observer;
        for (int attempt = 1; ; attempt++) {
            p.timeline().attempts = attempt;
            Connection c = null;
            boolean committed = false;
            long gsn = -1;
            OrderedCommits.Attempt turn = null;
            try {
                c = db.writeConnection();
                // on the bare connection: nothing to capture; a request that lost a race runs again alone
                if (ordered != null) turn = ordered.begin(c, attempt > 1);
                CapturingConnection capture = CapturingConnection.wrap(c, db.dialect(), db.tables());
                RequestObserver.Attempt watch = watcher.begin(observed(p.request(), watcher), capture.connection(),
                        capture);
                Object result = p.arguments().invoke(entry, new RequestContext(watch.connection(), p.arrivedAt(),
                        replies.seed(id)), p.request().parameters());
                watch.ran();
                List<RowChange> changes = capture.changes();
                StateUpdate update = null;
                if (!changes.isEmpty()) {
                    if (turn != null) ordered.beforeCommit(c, turn); // gsns granted in commit order, one at a time
                    gsn = gsns.gsnFor(id, p.timeline());
                    update = new StateUpdate(gsn, self, changes);
                    MetadataStore.recordGlobal(c, update);
                    if (p.request().id() != null) // a client's retry gets this reply (decision 24)
                        MetadataStore.recordReply(c, p.request().id(), replies.global(result, gsn).encode(),
                                System.currentTimeMillis());
                }
                db.commit(c);
                committed = true;
                observed(watch, id);
                return new Outcome(result, update, null);
            } catch (InterruptedException | Stopping e) {
                if (c != null && !committed) db.rollback(c);
                throw e;
            } catch (Exception e) {
                if (c != null && !committed) db.rollback(c);
                if (e instanceof UnavailableException && db.replicated()) {
                    // Its replicated group did not commit it (decision 24): whether the log holds its gsn is for the
                    // log to say, so the instance stops and its next start recovers the belt from what the group holds.
                    loop.failStop(e);
                    return new Outcome(null, null, e);
                }
                if (gsn >= 0) {
                    StateUpdate anyway = committedAnyway(gsn, e);
                    if (anyway != null) return new Outcome(null, anyway, e);
                    abortGrant(id); // a fixed gsn (one at a time) is simply offered again on the next attempt
                }
                if (attempt < db.options().maxAttempts() && db.failures().lostRace(e)) {
                    if (!retry.pause(attempt)) throw new InterruptedException();
                    continue;
                }
                return new Outcome(null, null, e);
            } finally {
                if (turn != null) ordered.end(turn);
                if (c != null) closeQuietly(c);
            }
        }
    }

    /** Tells the observer the request committed; what it does then cannot change the outcome the database holds. */
    static void observed(RequestObserver.Attempt watch, long id) {
        try {
            watch.committed();
        } catch (RuntimeException e) {
            log.error("a request observer failed after request {} committed", id, e);
        }
    }

    /** Parallel rounds: the granted gsn stays unused; a new grant is asked for when the request is ready again. */
    private void abortGrant(long id) {
        if (grants.replace(id, new CompletableFuture<>()) != null) loop.step(new BeltEvent.CommitAborted(id));
    }

    /**
     * The update of gsn {@code gsn} if its transaction committed although executing it failed: with a database
     * server, a connection lost during COMMIT leaves the outcome unknown, and the database may hold the writes and the
     * gsn. Asked of the database itself (its outbox), as often as it takes to reach it, so that the belt never
     * disagrees with the database about the last gsn. Null after a failure reported before committing.
     */
    private StateUpdate committedAnyway(long gsn, Exception failure) throws InterruptedException {
        if (failure instanceof UserAbort || failure instanceof BadRequestException) return null;
        for (int attempt = 1; ; attempt++) {
            if (closed) throw new Stopping();
            try {
                StateUpdate found = db.inTransaction(true, c -> MetadataStore.outboxUpdate(c, gsn));
                if (found != null)
                    log.warn("instance {}: global update {} committed although its transaction reported {}", self,
                            gsn, failure.toString());
                return found;
            } catch (SQLException | RuntimeException e) {
                if (!db.failures().passes(e))
                    throw new IllegalStateException("cannot learn whether global update " + gsn + " committed", e);
                log.warn("instance {} cannot learn whether global update {} committed (attempt {}), retrying: {}",
                        self, gsn, attempt, e.toString());
                if (!Failures.DATABASE_DOWN.pause(attempt)) throw new InterruptedException();
            }
        }
    }

    private void report(long id, StateUpdate update) {
        loop.step(new BeltEvent.GlobalExecuted(id, update));
    }

    private RequestObserver.Observed observed(Request request, RequestObserver watcher) {
        if (watcher == RequestObserver.NONE) return null;
        return new RequestObserver.Observed(self, request.transaction(), request.parameters(),
                partitionOf.apply(request), true, db);
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException | RuntimeException ignored) {
            // the connection is gone
        }
    }

    /** Stops: running requests are interrupted, waiting ones are answered UNAVAILABLE. */
    @Override
    public void close() {
        closed = true;
        releaseLocals();
        threads.shutdownNow();
        for (CompletableFuture<Long> f : grants.values()) f.cancel(false);
        for (Pending p : pending.values()) p.reply().accept(replies.shuttingDown());
        pending.clear();
    }
}
