package dev.gyro.runtime;

import dev.gyro.driver.Stopping;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.CapturingConnection;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.MetadataStore;
import dev.gyro.runtime.db.OrderedCommits;
import dev.gyro.runtime.hook.RequestObserver;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Algorithm 1, lines 14-16: runs one global request on the instance's DBMS, one DBMS transaction per attempt, capturing
 * its writes as row images. An attempt that wrote something takes its gsn ({@link GsnSource}) and records the gsn and
 * its update (the outbox) in its own transaction (docs/decisions/05-exactly-once.md); one that fails or writes nothing
 * takes no gsn. When to run again, and what a commit of unknown outcome did, is the {@link RetryRule}'s to say.
 *
 * <p>Threads: {@link #run} on a global thread, never on the belt loop; any number at once.
 */
final class GlobalAttempts {

    private static final Logger log = LoggerFactory.getLogger(GlobalAttempts.class);

    /**
     * A global request waiting for, or in, its execution.
     *
     * @param deadline  when its client stops waiting ({@link System#nanoTime()}, or DeadlinePassedException.NONE)
     * @param withdrawn it waited for the token until then, and its client was answered that it did not run
     */
    record Pending(Request request, Arguments arguments, long arrivedAt, Consumer<Reply> reply,
                   PhaseClock.Timeline timeline, long deadline, boolean withdrawn) {

        Pending withdraw() {
            return new Pending(request, arguments, arrivedAt, reply, timeline, deadline, true);
        }
    }

    /** How a request ended: committed (update null if it wrote nothing), or failed (update set if it committed anyway). */
    record Outcome(Object result, StateUpdate update, Exception failure) {}

    /** Where a request's gsn comes from: fixed before it ran (one at a time), or granted by the belt (parallel). */
    interface GsnSource {
        /** The gsn to commit under; may wait for the belt's grant. */
        long gsnFor(long requestId, PhaseClock.Timeline timeline) throws InterruptedException;

        /** The attempt that took {@code requestId}'s gsn did not commit: the gsn stays unused. */
        void aborted(long requestId);
    }

    private final int self;
    private final Database db;
    private final TransactionCatalog catalog;
    private final Replies replies;
    private final OrderedCommits ordered; // null where the DBMS orders commits itself, or one request runs at a time
    private final RetryRule retry;
    private final PhaseClock clock;
    private final Function<Request, List<Value>> partitionOf;
    private final Consumer<Throwable> failStop;
    private volatile RequestObserver observer = RequestObserver.NONE;
    private volatile Consumer<StateUpdate> committing = u -> {};

    /** @param failStop stops the instance, once the belt loop's earlier events are handled */
    GlobalAttempts(int self, Database db, TransactionCatalog catalog, Replies replies, OrderedCommits ordered,
                   RetryRule retry, PhaseClock clock, Function<Request, List<Value>> partitionOf,
                   Consumer<Throwable> failStop) {
        this.self = self;
        this.db = db;
        this.catalog = catalog;
        this.replies = replies;
        this.ordered = ordered;
        this.retry = retry;
        this.clock = clock;
        this.partitionOf = partitionOf;
        this.failStop = failStop;
    }

    void observe(RequestObserver observer) {
        this.observer = observer;
    }

    /**
     * Tells {@code committing} of each update just before its commit: a move catching up notes the rows it writes
     * (docs/decisions/43-bucket-moves.md), before a local request may write them again.
     */
    void committing(Consumer<StateUpdate> committing) {
        this.committing = committing;
    }

    /**
     * Runs request {@code id}, again while it loses races; commits its writes under the gsn {@code gsns} gives it.
     *
     * @throws InterruptedException when interrupted (the instance is stopping); nothing committed is lost
     * @throws Stopping             when the instance stops while the outcome of a commit is looked up
     */
    Outcome run(long id, Pending p, GsnSource gsns) throws InterruptedException {
        TransactionCatalog.Entry entry = catalog.get(p.request().transaction());
        RequestObserver watcher = observer;
        for (int attempt = 1; ; attempt++) {
            clock.attempt(p.timeline(), attempt);
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
                    committing.accept(update);
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
                if (retry.groupDecides(e)) {
                    failStop.accept(e);
                    return new Outcome(null, null, e);
                }
                if (gsn >= 0) {
                    StateUpdate anyway = retry.committedAnyway(gsn, e);
                    if (anyway != null) return new Outcome(null, anyway, e);
                    gsns.aborted(id); // a fixed gsn (one at a time) is simply offered again on the next attempt
                }
                if (retry.again(attempt, e)) continue;
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
}
