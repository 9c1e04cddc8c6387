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
    private long reportNotBefore; // a parallel round's reports reach the belt in commit order

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
        sim.trace(() -> id + " starts as " + belt.role() + " from last gsn " + db.lastGsn());
        perform();
    }

    void crash() {
        incarnation++;
        belt = null;
        todo.clear();
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
        todo.addAll(belt.ready());
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
     * {@link Action.ExecuteGlobals}: every request of the round is a transaction of its own, committing at its own
     * random moment (each runs atomically at that moment, as a DBMS with commit ordering serializes them in commit
     * order); one that commits writes takes the next gsn then. The reports reach the belt in commit order, as the
     * runtime's commit lock makes them; the round ends with the last one.
     */
    private void executeRound(Action.ExecuteGlobals round) {
        long[] nextGsn = {round.firstGsn()};
        int[] unreported = {round.requestIds().size()};
        for (long requestId : round.requestIds()) {
            inTransaction(() -> {
                StateUpdate update = executeOne(requestId, nextGsn[0]);
                if (update != null) nextGsn[0]++;
                int at = incarnation;
                long when = Math.max(reportNotBefore, sim.now() + sim.nextLong(2));
                reportNotBefore = when;
                sim.after(when - sim.now(), () -> {
                    if (at != incarnation) return;
                    belt.onGlobalExecuted(requestId, update);
                    if (--unreported[0] == 0) busy = false;
                    perform();
                });
            });
        }
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
