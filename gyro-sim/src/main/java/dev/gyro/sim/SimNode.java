package dev.gyro.sim;

import dev.gyro.protocol.Action;
import dev.gyro.protocol.ConveyorBelt;
import dev.gyro.protocol.ConveyorBeltConfig;
import dev.gyro.protocol.Message;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The runtime shell of one simulated instance: it feeds events to a real {@link ConveyorBelt} and performs the
 * actions it asks for, one after another in the order given, each as its Javadoc demands. DBMS work takes
 * simulated time; the report of a finished transaction comes a little after its commit, so a crash can fall
 * between the two. A crash drops the state machine, every action not yet performed and the transaction in
 * progress; the {@link SimDatabase} (the disk) keeps what committed.
 */
final class SimNode {

    final int id;
    final SimDatabase db;
    private final Simulator sim;
    private final ConveyorBeltConfig config;

    private ConveyorBelt belt; // null while down
    private int incarnation;
    private final ArrayDeque<Action> todo = new ArrayDeque<>();
    private boolean busy; // a DBMS transaction is in progress or not yet reported
    private final java.util.Map<Long, java.util.function.LongConsumer> awaitingGrant = new java.util.HashMap<>(); // parallel: by request
    private SimOrderedCommits ordered; // parallel globals on a snapshot-isolated DBMS, else null

    SimNode(int id, Simulator sim, ConveyorBeltConfig config, SimDatabase db) {
        this.id = id;
        this.sim = sim;
        this.config = config;
        this.db = db;
    }

    boolean up() {
        return belt != null;
    }

    /** Nothing to do: no queued global request, no action waiting or in progress. */
    boolean idle() {
        return belt != null && !busy && todo.isEmpty() && belt.queuedGlobals() == 0;
    }

    ConveyorBelt belt() {
        return belt;
    }

    void start() {
        incarnation++;
        belt = new ConveyorBelt(config, db.durableState(), sim.now());
        ordered = sim.settings().snapshotIsolation() ? new SimOrderedCommits(this::inThisIncarnation) : null;
        sim.trace(() -> id + " starts as " + belt.role() + " from last gsn " + db.lastGsn());
        perform();
    }

    void crash() {
        incarnation++;
        belt = null;
        todo.clear();
        awaitingGrant.clear();
        ordered = null;
        busy = false;
    }

    boolean submit(long requestId) {
        boolean accepted = belt.onGlobalRequest(requestId);
        perform();
        return accepted;
    }

    void receive(Message message) {
        belt.onMessage(message);
        perform();
    }

    void tick(long now) {
        belt.onTick(now);
        perform();
    }

    /** Collects the actions the state machine asks for and performs them in order. */
    private void perform() {
        for (Action action : belt.ready()) {
            if (action instanceof Action.CommitGlobal grant) {
                // Belongs to the round in progress, which waits for it: performed at once, not behind the round.
                sim.trace(() -> id + ": " + Simulator.describe(action));
                awaitingGrant.remove(grant.requestId()).accept(grant.gsn());
            } else {
                todo.add(action);
            }
        }
        while (!busy && !todo.isEmpty()) {
            Action action = todo.poll();
            sim.trace(() -> id + ": " + Simulator.describe(action));
            if (action instanceof Action.Send send) {
                sim.send(id, send.to(), send.message());
            } else if (action instanceof Action.PassToken pass) {
                db.recordPassed(pass.token()); // durably PASSED, then sent
                sim.send(id, pass.to(), new Message.TokenPass(id, pass.token()));
            } else if (action instanceof Action.ApplyUpdates apply) {
                busy = true;
                applyUpdates(apply);
            } else if (action instanceof Action.ExecuteGlobals round) {
                busy = true;
                executeRound(round);
            } else {
                busy = true;
                Action.ExecuteGlobal exec = (Action.ExecuteGlobal) action;
                inTransaction(() -> execute(exec));
            }
        }
    }

    /** A failed transaction is not reported: the runtime retries the same action (Action.ApplyUpdates). */
    private void applyUpdates(Action.ApplyUpdates apply) {
        inTransaction(() -> {
            if (sim.chance(sim.settings().applyRetryRate())) {
                sim.trace(() -> id + ": applying hop " + apply.token().hop() + " fails, retrying");
                applyUpdates(apply);
                return;
            }
            db.applyUpdates(apply);
            report(() -> belt.onUpdatesApplied(apply.token().hop()));
        });
    }

    private void execute(Action.ExecuteGlobal exec) {
        StateUpdate result = executeOne(exec.requestId(), exec.gsn());
        report(() -> belt.onGlobalExecuted(exec.requestId(), result));
    }

    /** One DBMS transaction: the request fails, writes nothing, or commits its writes as gsn {@code gsn}. */
    private StateUpdate executeOne(long requestId, long gsn) {
        GlobalRequest request = sim.request(requestId);
        if (sim.chance(sim.settings().failRate())) {
            sim.trace(() -> id + ": r" + requestId + " fails and rolls back");
            sim.checker().completedWithoutUpdate(id, requestId, true);
            return null;
        }
        List<RowChange> writes = request.execute(db.rows());
        if (writes.isEmpty()) {
            sim.trace(() -> id + ": r" + requestId + " writes nothing");
            sim.checker().completedWithoutUpdate(id, requestId, false);
            return null;
        }
        StateUpdate update = new StateUpdate(gsn, id, writes);
        db.commitGlobal(requestId, update);
        sim.trace(() -> id + ": r" + requestId + " commits as gsn " + gsn);
        return update;
    }

    /**
     * {@link Action.ExecuteGlobals}: every request of the round is a transaction of its own that finishes at its own
     * random moment. One that fails or writes nothing is reported at once; one that writes reports ready to commit
     * and, when the belt grants it a gsn ({@link Action.CommitGlobal}), runs atomically and commits as that gsn (a
     * DBMS with commit ordering serializes the round's transactions in commit order). Now and then a granted commit
     * fails, is reported aborted and the request becomes ready again. The round ends with the last report.
     */
    private void executeRound(Action.ExecuteGlobals round) {
        int[] unreported = {round.requestIds().size()};
        for (long requestId : round.requestIds()) {
            Runnable finished = () -> {
                if (--unreported[0] == 0) busy = false;
            };
            if (ordered != null) runOrdered(requestId, finished, false);
            else inTransaction(() -> runInRound(requestId, finished));
        }
    }

    /**
     * One attempt of a round's request on a snapshot-isolated DBMS under the runtime's commit ordering
     * ({@link SimOrderedCommits}): it runs on its snapshot, waits for its turn, asks for its gsn, and commits unless
     * the DBMS finds that its snapshot missed a conflicting write; then it is aborted and runs again alone.
     */
    private void runOrdered(long requestId, Runnable finished, boolean alone) {
        ordered.begin(db, alone, attempt -> inTransaction(() -> {
            boolean fails = sim.chance(sim.settings().failRate());
            List<RowChange> writes = fails ? List.of() : sim.request(requestId).execute(attempt.snapshot());
            if (writes.isEmpty()) { // no gsn: nothing to order
                ordered.end(attempt);
                sim.trace(() -> id + ": r" + requestId + (fails ? " fails and rolls back" : " writes nothing"));
                sim.checker().completedWithoutUpdate(id, requestId, fails);
                reportInRound(() -> belt.onGlobalExecuted(requestId, null), finished);
                return;
            }
            ordered.turnToCommit(attempt, () -> {
                awaitingGrant.put(requestId, gsn -> commitOrdered(requestId, attempt, writes, gsn, finished));
                reportInRound(() -> belt.onReadyToCommit(requestId), () -> {});
            });
        }));
    }

    private void commitOrdered(long requestId, SimOrderedCommits.Attempt attempt, List<RowChange> writes, long gsn,
                               Runnable finished) {
        inTransaction(() -> {
            boolean lost = db.writtenSince(attempt.seen(), sim.request(requestId).touched());
            if (lost || sim.chance(sim.settings().applyRetryRate())) {
                ordered.end(attempt);
                sim.trace(() -> id + ": r" + requestId + (lost ? " read or wrote a key its snapshot missed: aborted"
                        : "'s commit fails") + ", it runs again alone");
                reportInRound(() -> belt.onCommitAborted(requestId), () -> runOrdered(requestId, finished, true));
                return;
            }
            StateUpdate update = new StateUpdate(gsn, id, writes);
            db.commitGlobal(requestId, update);
            ordered.end(attempt);
            sim.trace(() -> id + ": r" + requestId + " commits as gsn " + gsn);
            reportInRound(() -> belt.onGlobalExecuted(requestId, update), finished);
        });
    }

    /** Runs {@code r} as an event of its own, unless this incarnation crashed meanwhile. */
    private void inThisIncarnation(Runnable r) {
        int at = incarnation;
        sim.after(0, () -> {
            if (at == incarnation) r.run();
        });
    }

    private void runInRound(long requestId, Runnable finished) {
        boolean fails = sim.chance(sim.settings().failRate());
        if (fails || sim.request(requestId).execute(db.rows()).isEmpty()) { // no gsn
            sim.trace(() -> id + ": r" + requestId + (fails ? " fails and rolls back" : " writes nothing"));
            sim.checker().completedWithoutUpdate(id, requestId, fails);
            reportInRound(() -> belt.onGlobalExecuted(requestId, null), finished);
            return;
        }
        awaitingGrant.put(requestId, gsn -> commitGranted(requestId, gsn, finished));
        reportInRound(() -> belt.onReadyToCommit(requestId), () -> {});
    }

    /** The belt granted the next gsn: commit as that gsn, or (now and then) fail at commit and become ready again. */
    private void commitGranted(long requestId, long gsn, Runnable finished) {
        inTransaction(() -> {
            if (sim.chance(sim.settings().applyRetryRate())) {
                sim.trace(() -> id + ": r" + requestId + "'s commit fails and rolls back, it runs again");
                reportInRound(() -> belt.onCommitAborted(requestId),
                        () -> inTransaction(() -> runInRound(requestId, finished)));
                return;
            }
            StateUpdate update = executeCommitted(requestId, gsn);
            reportInRound(() -> belt.onGlobalExecuted(requestId, update), finished);
        });
    }

    private StateUpdate executeCommitted(long requestId, long gsn) {
        List<RowChange> writes = sim.request(requestId).execute(db.rows());
        if (writes.isEmpty()) {
            sim.trace(() -> id + ": r" + requestId + " writes nothing after all");
            sim.checker().completedWithoutUpdate(id, requestId, false);
            return null;
        }
        StateUpdate update = new StateUpdate(gsn, id, writes);
        db.commitGlobal(requestId, update);
        sim.trace(() -> id + ": r" + requestId + " commits as gsn " + gsn);
        return update;
    }

    /** A report of the round in progress, a moment later, unless this incarnation crashed meanwhile. */
    private void reportInRound(Runnable event, Runnable after) {
        int at = incarnation;
        sim.after(sim.nextLong(2), () -> {
            if (at != incarnation) return;
            event.run();
            after.run();
            perform();
        });
    }

    /** Runs {@code transaction} after the DBMS's latency, unless this incarnation crashed meanwhile. */
    private void inTransaction(Runnable transaction) {
        int at = incarnation;
        sim.after(1 + sim.nextLong(sim.settings().maxDbMillis()), () -> {
            if (at == incarnation) transaction.run();
        });
    }

    /** Tells the state machine a transaction finished, a moment after it committed. */
    private void report(Runnable event) {
        int at = incarnation;
        sim.after(sim.nextLong(2), () -> {
            if (at != incarnation) return;
            busy = false;
            event.run();
            perform();
        });
    }
}
