package dev.gyro.runtime;

import dev.gyro.driver.BeltLoop;
import dev.gyro.driver.BeltActions;
import dev.gyro.driver.Stopping;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.wire.RoutingTable;
import dev.gyro.protocol.Action;
import dev.gyro.protocol.BeltEvent;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.DeadlinePassedException;
import dev.gyro.runtime.db.OrderedCommits;
import dev.gyro.runtime.hook.MoveObserver;
import dev.gyro.runtime.hook.RequestObserver;
import dev.gyro.runtime.hook.TransactionGate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Algorithm 1, lines 6 and 14-18: holds global requests until the belt asks for them, then runs them on this
 * instance's DBMS, capturing their writes as row images, and answers their clients. One path for both ways the belt
 * runs a round: one request at a time ({@link Action.ExecuteGlobal}, its gsn known before it runs), or the whole round
 * at once where the DBMS has commit ordering ({@link Action.ExecuteGlobals}, paper Appendix B), each request asking
 * the belt for its gsn when it is ready to commit ({@link Action.CommitGlobal}). Sequential execution is thus the
 * parallel one with a window of one request. A request that commits writes records its gsn and its update (the
 * outbox) in its own DBMS transaction (docs/decisions/05-exactly-once.md); one that fails or writes nothing takes no
 * gsn.
 *
 * <p>Its parts: which requests run side by side is the {@link RoundScheduler}'s to say, one request's attempts are run
 * by {@link GlobalAttempts}, and when to run again is the {@link RetryRule}'s; this class keeps the queue's requests,
 * hands out gsns and answers the clients.
 *
 * <p>Threads: {@link #enqueue} from request threads; {@link #execute} and {@link #grant} from the belt loop, which
 * they never block; each request runs on one of the global threads, whose number is the window.
 */
final class GlobalExecutor implements BeltActions.Globals, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(GlobalExecutor.class);

    private final int self;
    private final Replies replies;
    private final InstanceStats stats;
    private final SessionGate session;
    private final AtomicLong requestIds;
    private final Map<Long, GlobalAttempts.Pending> pending = new ConcurrentHashMap<>();
    private final PhaseClock clock;
    private final GlobalAttempts attempts;
    private final RoundScheduler rounds;
    private final GsnGrants granted;
    /** Where the DBMS's commits are put in gsn order (decision 20), or null: Gyro's own requests take part too. */
    private final OrderedCommits ordered;
    /** Where a request is withdrawn when its client's deadline passes while it waits for the token. */
    private final ScheduledExecutorService timers;
    private volatile BeltLoop loop;
    private volatile boolean closed;
    private volatile Moves moves;
    private volatile MoveObserver moveObserver = MoveObserver.NONE;

    /**
     * Bucket moves (docs/decisions/43-bucket-moves.md): where a global request of a bucket enters it before it runs
     * ({@link Buckets#enterOwned}), who runs a move, and where a request goes whose bucket moved away while it waited.
     */
    record Moves(Buckets buckets, BucketMove move, RingChange ringChange, RoutingTable routing, Rerouter rerouter) {}

    /** Sends a request on to the owner its bucket has now. */
    interface Rerouter {
        void reroute(Request request, long deadline, Consumer<Reply> reply);
    }

    /**
     * Where a global thread waits, other than in the DBMS: for its gsn's grant ({@link GsnGrants.Await}), between
     * attempts that lost a race, and while the database does not answer ({@link RetryRule.Pause}).
     */
    record Waits(GsnGrants.Await grant, RetryRule.Pause lostRace, RetryRule.Pause databaseDown) {}

    GlobalExecutor(int self, Database db, TransactionCatalog catalog, TransactionGate gate, Replies replies,
                   InstanceStats stats, SessionGate session, AtomicLong requestIds,
                   Function<Request, List<Value>> partitionOf, ExecutorService threads, OrderedCommits ordered,
                   PhaseClock clock, ScheduledExecutorService timers) throws SQLException {
        this(self, db, catalog, gate, replies, stats, session, requestIds, partitionOf, threads, ordered, clock, timers,
                null);
    }

    /**
     * As the constructor above, with {@code waits} instead of blocking the global thread (null: block, as in
     * production): a deterministic test, whose global threads take turns, passes waits that hand the turn back.
     * {@code timers} withdraw a request whose client's deadline passes while it waits for the token ({@link #enqueue}).
     */
    GlobalExecutor(int self, Database db, TransactionCatalog catalog, TransactionGate gate, Replies replies,
                   InstanceStats stats, SessionGate session, AtomicLong requestIds,
                   Function<Request, List<Value>> partitionOf, ExecutorService threads, OrderedCommits ordered,
                   PhaseClock clock, ScheduledExecutorService timers, Waits waits) throws SQLException {
        this.clock = clock;
        this.timers = timers;
        this.ordered = ordered;
        this.self = self;
        this.replies = replies;
        this.stats = stats;
        this.session = session;
        this.requestIds = requestIds;
        if (ordered != null) db.inTransaction(false, c -> {
            ordered.createTables(c);
            return null;
        });
        RetryRule retry = waits == null ? new RetryRule(self, db, () -> closed)
                : new RetryRule(self, db, () -> closed, waits.databaseDown(), waits.lostRace());
        this.attempts = new GlobalAttempts(self, db, catalog, replies, ordered, retry, clock, partitionOf,
                why -> loop.failStop(why));
        this.granted = waits == null ? new GsnGrants(clock, event -> loop.step(event))
                : new GsnGrants(clock, event -> loop.step(event), waits.grant());
        this.rounds = new RoundScheduler(gate, threads, ordered != null, id -> {
            GlobalAttempts.Pending p = pending.get(id);
            return p == null ? List.of() : partitionOf.apply(p.request());
        }, why -> loop.failStop(why));
    }

    void attach(BeltLoop loop) {
        this.loop = loop;
    }

    /** Bucket moves run here from now on (without, a move request fails, and no bucket is entered). */
    void attach(Moves moves) {
        this.moves = moves;
        attempts.committing(moves.buckets()::touched);
    }

    /** Tells {@code observer} of each move's copy, and lets it say when the cutover is asked for. */
    void observeMoves(MoveObserver observer) {
        this.moveObserver = observer;
    }

    void observe(RequestObserver observer) {
        attempts.observe(observer);
    }

    /** Where the phases of its requests and the token's visits are timed (for observers of an instance's phases). */
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
        enqueue(request, converted, arrivedNanos, DeadlinePassedException.NONE, reply);
    }

    /**
     * As {@link #enqueue(Request, Object[], long, Consumer)}, for a client that waits until {@code deadline} (a
     * {@link System#nanoTime()} value, RequestRouter.answerBy): if the request still waits for the token then, it is
     * withdrawn, and its client answered that it did not run; it never runs later (docs/decisions/37-request-ids.md).
     * The belt's queue keeps it, and hands it out in its turn as a request that wrote nothing.
     */
    void enqueue(Request request, Object[] converted, long arrivedNanos, long deadline, Consumer<Reply> reply) {
        long id = requestIds.getAndIncrement();
        PhaseClock.Timeline timeline = clock.arrived(request.transaction(), arrivedNanos);
        pending.put(id, new GlobalAttempts.Pending(request, new Arguments(converted), System.currentTimeMillis(), reply,
                timeline, deadline, false));
        if (deadline != DeadlinePassedException.NONE && timers != null) {
            try {
                timers.schedule(() -> withdraw(id), Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException closing) {
                // stopping: close() answers it
            }
        }
        loop.step(new BeltEvent.GlobalRequest(id));
    }

    /** The client of request {@code id} stops waiting: if the request still waits for the token, it is withdrawn. */
    private void withdraw(long id) {
        boolean[] now = new boolean[1];
        GlobalAttempts.Pending p = pending.computeIfPresent(id, (k, q) -> {
            if (q.withdrawn()) return q;
            now[0] = true;
            return q.withdraw(); // kept for the belt, which hands it out in its turn (run)
        });
        if (now[0]) p.reply().accept(replies.withdrawn(p.request(), System.currentTimeMillis() - p.arrivedAt()));
    }

    /** The belt took request {@code id} into its queue ({@link BeltLoop.Actions#queued}). On the belt loop. */
    @Override
    public void queued(long id, boolean holdsToken, boolean wasParked) {
        GlobalAttempts.Pending p = pending.get(id);
        if (p != null) clock.queued(p.timeline(), holdsToken, wasParked);
    }

    /** The belt refused request {@code id}: its client is told the instance is overloaded. On the belt loop. */
    @Override
    public void refused(long id, int queued) {
        GlobalAttempts.Pending p = pending.remove(id);
        stats.refused.increment();
        Moves m = moves;
        if (p != null && m != null && p.request().transaction().equals(BucketMove.TRANSACTION))
            m.move().notRun(p.request());
        if (p != null) p.reply().accept(replies.error(Reply.Status.OVERLOADED, "instance " + self
                + " already has " + queued + " global requests waiting for the token"));
    }

    /**
     * The token arrived and its updates are about to be applied: if global requests wait here, local requests are
     * held back from now until the round's first requests are in their slots ({@link RoundScheduler#holdLocals}), so
     * that the transactions in service finish while the updates are applied. Called on the belt loop.
     */
    @Override
    public void tokenArrived() {
        clock.tokenArrived();
        if (!pending.isEmpty()) rounds.holdLocals();
    }

    @Override
    public void updatesApplied(int updates) {
        clock.updatesApplied(updates);
    }

    /** Lets local requests in again, if {@link #tokenArrived()} held them, and ends the token's visit here. */
    @Override
    public void tokenPassed(int updates) {
        rounds.releaseLocals();
        clock.tokenPassed(updates);
    }

    /** {@link Action.ExecuteGlobal}: one request, whose gsn the belt fixed. Does not wait for it. */
    @Override
    public void execute(Action.ExecuteGlobal one) {
        long gsn = one.gsn();
        executing(one.requestId());
        GlobalAttempts.GsnSource fixed = new GlobalAttempts.GsnSource() {
            @Override
            public long gsnFor(long requestId, PhaseClock.Timeline timeline) {
                return gsn;
            }

            @Override
            public void aborted(long requestId) {} // offered again on the next attempt
        };
        rounds.one(one.requestId(), (id, turn) -> run(id, fixed, turn));
    }

    /** {@link Action.ExecuteGlobals}: the whole round at once; each request asks for its gsn when ready. */
    @Override
    public void execute(Action.ExecuteGlobals round) {
        for (long id : round.requestIds()) {
            granted.expect(id);
            executing(id);
        }
        rounds.round(round.requestIds(), (id, turn) -> run(id, granted, turn));
    }

    /** {@link Action.CommitGlobal}: the belt grants a waiting request its gsn ({@link GsnGrants#grant}). */
    @Override
    public void grant(Action.CommitGlobal commit) {
        granted.grant(commit);
    }

    private void executing(long id) {
        GlobalAttempts.Pending p = pending.get(id);
        if (p != null) clock.executing(p.timeline());
    }

    /** Runs one request in its turn of its chain's slot, reports it to the belt and answers its client. */
    private void run(long id, GlobalAttempts.GsnSource gsns, RoundScheduler.Turn turn) {
        GlobalAttempts.Pending p = pending.remove(id);
        // null cannot happen: a request is registered before the belt hears of it
        boolean late = p != null && !p.withdrawn() && p.deadline() != DeadlinePassedException.NONE
                && System.nanoTime() - p.deadline() >= 0; // its withdrawal is due and not run yet
        if (p == null || p.withdrawn() || late) { // runs no transaction, takes no gsn
            turn.skip();
            granted.done(id);
            report(id, null);
            if (late) p.reply().accept(replies.withdrawn(p.request(), System.currentTimeMillis() - p.arrivedAt()));
            return;
        }
        Moves m = moves;
        boolean ringChange = dev.gyro.wire.RingRequest.is(p.request().transaction());
        boolean move = ringChange || p.request().transaction().equals(BucketMove.TRANSACTION);
        int bucket = m == null || move ? -1 : m.routing().homeBucket(p.request().transaction(), p.request().parameters());
        try {
            // before its slot: a move in progress holds one, and may wait for the requests inside its buckets
            if (bucket >= 0 && !m.buckets().enterOwned(bucket)) { // moved away while it waited: its new owner runs it
                turn.skip();
                granted.done(id);
                report(id, null);
                m.rerouter().reroute(p.request(), p.deadline(), p.reply());
                return;
            }
        } catch (InterruptedException e) {
            turn.abandon();
            p.reply().accept(replies.shuttingDown()); // unreported: the instance is stopping
            return;
        }
        stats.globalStarted();
        GlobalAttempts.Outcome outcome;
        try {
            turn.enter(); // held for every attempt
            clock.inSlot(p.timeline());
            if (!move) outcome = attempts.run(id, p, gsns);
            else if (m != null && ringChange) outcome = m.ringChange().run(id, p, gsns, ordered);
            else if (m != null) outcome = m.move().run(id, p, gsns, ordered);
            else outcome = new GlobalAttempts.Outcome(null, null, new IllegalStateException("instance " + self
                    + " cannot move buckets"));
            clock.committed(p.timeline());
        } catch (InterruptedException | Stopping e) {
            turn.abandon();
            p.reply().accept(replies.shuttingDown()); // unreported: the instance is stopping
            return;
        } finally {
            if (bucket >= 0) m.buckets().leave(bucket);
            stats.globalFinished();
            granted.done(id);
            turn.over();
        }
        StateUpdate u = outcome.update();
        report(id, u);
        if (u != null) {
            log.debug("instance {}: global {} committed as gsn {} ({} rows)", self, p.request(), u.gsn(),
                    u.changes().size());
            stats.appliedGsn(u.gsn());
            session.advance(u.gsn());
        }
        if (outcome.failure() == null && outcome.result() instanceof BucketMove.Copied copied) {
            // the move goes on with its cutover in a later round; its client waits for that one's reply
            moveObserver.copied(copied.buckets(), copied.gsn(), () -> enqueue(copied.cutOver(), new Object[0],
                    System.nanoTime(), p.reply()));
            return;
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

    private void report(long id, StateUpdate update) {
        loop.step(new BeltEvent.GlobalExecuted(id, update));
    }

    /** Stops: running requests are interrupted, waiting ones are answered UNAVAILABLE. */
    @Override
    public void close() {
        closed = true;
        rounds.close();
        granted.cancelAll();
        for (GlobalAttempts.Pending p : pending.values()) if (!p.withdrawn()) p.reply().accept(replies.shuttingDown());
        pending.clear();
    }
}
