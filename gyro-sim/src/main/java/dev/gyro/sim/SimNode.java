package dev.gyro.sim;

import dev.gyro.protocol.Action;
import dev.gyro.protocol.BeltEvent;
import dev.gyro.protocol.ConveyorBelt;
import dev.gyro.protocol.ConveyorBeltConfig;
import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.Message;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * The runtime shell of one simulated instance: it feeds events to a real {@link ConveyorBelt} and performs the
 * actions it asks for, one after another in the order given, each as its Javadoc demands. DBMS work takes
 * simulated time; the report of a finished transaction comes a little after its commit, so a crash can fall
 * between the two. A crash drops the state machine, every action not yet performed and the transaction in
 * progress; the {@link SimDatabase} (the disk) keeps what committed.
 *
 * <p>With {@link SimSettings#replicated()} the instance is the leader of its ring position's replicated group (the
 * paper's Section IV: "each Gyro instance replica is associated with a replica of the DBMS instance";
 * docs/decisions/22-group-log.md and docs/decisions/24-ring-on-groups.md), and its {@link SimDatabase} stands for what
 * the group's log committed, which is what every replica's database holds once it applied the log. Each DBMS
 * transaction of the instance (a token's updates applied and the token recorded as held; a global request's writes, gsn
 * and outbox entry; the token recorded as passed) appends its entry to the log and stays open until the log commits it;
 * only then is it in the database and does the shell go on. A failover ({@link #stop}) settles the entries still in the
 * log: each one, UNKNOWN to the old leader, is committed or not as the seed decides; the old leader's instance is gone,
 * and the new leader's instance recovers the belt from the database ({@link #start}), the same path as crash recovery
 * (decision 5).
 */
final class SimNode {

    /**
     * Where one step of the shell left this instance: the points at which a failover (or a crash) can take over. A step
     * is one event here: a message, a client's request, a tick that made the belt resend, a DBMS transaction, the
     * group's log committing an entry, a report to the belt, commit ordering's progress. An entry still in the log
     * names the step ({@code *_IN_LOG}), then a parked token ({@link #PARKED}), then what the event did.
     */
    enum Step {
        STARTED("an instance started: it recovered its belt from its database"),
        TOKEN_RECEIVED("the token arrived; its updates are not applied yet"),
        TOKEN_DUPLICATE("a token this instance holds or held arrived again (acknowledged or ignored)"),
        APPLY_RETRY("applying the token's updates failed and is retried"),
        APPLY_IN_LOG("the token's updates applied and the token recorded as held: in the log, not known committed"),
        APPLY_COMMITTED("the token's updates committed, the belt not told: the token is not acknowledged yet"),
        ROUND_STARTED("the token acknowledged and the round's global requests handed out, none finished"),
        WAITING_FOR_GSN("parallel globals: a request ran on its own and waits for a gsn to commit"),
        ORDERING("parallel globals on snapshots: an attempt began, or got its turn to commit"),
        COMMIT_ABORTED("parallel globals: a granted commit failed and rolled back; the request runs again"),
        GLOBAL_WITHOUT_UPDATE("a global request failed or wrote nothing: no gsn"),
        GLOBAL_IN_LOG("a global request's writes, gsn and outbox entry: in the log, not known committed"),
        GLOBAL_COMMITTED("a global request committed, the belt not told: its client has no answer"),
        GLOBAL_REPORTED("a global request reported to the belt; the round goes on"),
        PASS_IN_LOG("the token recorded as passed: in the log, not known committed, so not sent"),
        AHEAD_IN_LOG("updates sent ahead of the token applied: in the log, not known committed"),
        AHEAD_APPLIED("updates sent ahead of the token applied and committed"),
        PASS_SENT("the token recorded as passed and sent; no acknowledgement yet"),
        ACKNOWLEDGED("an acknowledgement arrived: the successor's of the token, or another instance's of updates it"
                + " applied ahead (decision 26)"),
        WANT("a WANT arrived"),
        UPDATE_AHEAD("an update sent ahead of the token arrived (decision 25)"),
        REQUEST("a client's global request was queued"),
        RESENT("a tick made the belt resend the token or a WANT"),
        PARKED("the token is parked here: no request, nobody waiting");

        final String means;

        Step(String means) {
            this.means = means;
        }
    }

    /** What an entry of the group's log records: which of the instance's durable duties. */
    enum Duty {
        APPLY(Step.APPLY_IN_LOG, Step.APPLY_COMMITTED),
        GLOBAL(Step.GLOBAL_IN_LOG, Step.GLOBAL_COMMITTED),
        PASS(Step.PASS_IN_LOG, Step.PASS_SENT),
        AHEAD(Step.AHEAD_IN_LOG, Step.AHEAD_APPLIED);

        final Step inLog, committed;

        Duty(Step inLog, Step committed) {
            this.inLog = inLog;
            this.committed = committed;
        }
    }

    /** One DBMS transaction of the leader whose entry is in the group's log, not yet known committed. */
    private record Entry(Duty duty, String what, Consumer<SimDatabase> effect) {}

    final int id;
    final SimDatabase db;
    private final Simulator sim;
    private final ConveyorBeltConfig config;

    private ConveyorBelt belt; // null while down
    private int incarnation;
    private final ArrayDeque<Action> todo = new ArrayDeque<>();
    private boolean busy; // a DBMS transaction is in progress or not yet reported
    private final Map<Long, LongConsumer> awaitingGrant = new HashMap<>(); // parallel: by request
    private SimOrderedCommits ordered; // parallel globals on a snapshot-isolated DBMS, else null

    // A replicated group's leader (decision 24): its transactions whose entries the log has not committed yet.
    private final List<Entry> inLog = new ArrayList<>();
    private DurableState recoverFrom; // a deliberately broken failover only: what the next start recovers from
    private Step step = Step.STARTED; // what the event in progress did
    private long steps;

    // A deposed leader that has not noticed yet: its belt runs on, sends, but commits nothing.
    private ConveyorBelt deposed;
    private final ArrayDeque<Action> deposedTodo = new ArrayDeque<>();
    private boolean deposedBlocked;
    private int deposedTerm;

    SimNode(int id, Simulator sim, ConveyorBeltConfig config, SimDatabase db) {
        this.id = id;
        this.sim = sim;
        this.config = config;
        this.db = db;
    }

    boolean up() {
        return belt != null;
    }

    /** Nothing to do: no queued global request, no action waiting or in progress, no deposed leader left. */
    boolean idle() {
        return belt != null && !busy && todo.isEmpty() && belt.queuedGlobals() == 0 && deposed == null;
    }

    ConveyorBelt belt() {
        return belt;
    }

    void start() {
        incarnation++;
        DurableState state = recoverFrom != null ? recoverFrom : db.durableState();
        recoverFrom = null;
        belt = new ConveyorBelt(config, state, sim.now());
        ordered = sim.settings().snapshotIsolation() ? new SimOrderedCommits(this::inThisIncarnation) : null;
        sim.trace(() -> id + " starts as " + belt.role() + " from last gsn " + db.lastGsn());
        step = Step.STARTED;
        perform();
    }

    /**
     * A crash, or a failover of the group's leader (decision 24): the state machine, every action not yet performed
     * and the transactions in progress go. A transaction whose entry is in the group's log and that the leader did not
     * see committed (its outcome UNKNOWN) is settled first, in log order, as {@code commits} decides: a committed one is
     * in the database the next leader recovers from, though this instance never acted on it (the token recorded as
     * passed but never sent, its updates applied but never acknowledged, a gsn committed but no client answered).
     * Messages already sent stay in the network.
     *
     * @param mode      how the next leader's database and belt come out of it: {@link Simulator.FailoverMode#CORRECT}
     *                  except in the tests that prove the checkers catch a broken failover
     * @param runsOn    the old leader's belt runs on, deposed, until {@link #endDeposed}: it has not noticed yet
     * @return each entry that was in the log, and whether it turned out committed
     */
    List<String> stop(BooleanSupplier commits, Simulator.FailoverMode mode, boolean runsOn) {
        incarnation++;
        List<String> settled = new ArrayList<>();
        DurableState before = mode == Simulator.FailoverMode.RECOVERS_BEFORE_LOG ? db.durableState() : null;
        boolean committed = true;
        for (Entry e : inLog) {
            committed = committed && commits.getAsBoolean(); // the log is a sequence: nothing after a lost entry
            settled.add(e.duty + (committed ? " committed" : " not committed"));
            if (!committed) {
                sim.trace(() -> id + ": " + e.what + ": never committed by the group's log, rolled back");
                continue;
            }
            sim.trace(() -> id + ": " + e.what + ": committed by the group's log, UNKNOWN to the old leader");
            switch (mode) {
                case CORRECT -> e.effect.accept(db);
                case LOSES_COMMITTED -> e.effect.accept(db.copy()); // the old leader's replica has it, the next lacks it
                case RECOVERS_BEFORE_LOG -> {
                    e.effect.accept(db);
                    recoverFrom = before; // the next leader's belt starts before its database applied the entry
                }
            }
        }
        inLog.clear();
        if (runsOn && belt != null) {
            deposed = belt;
            deposedTodo.clear();
            deposedTodo.addAll(todo);
            deposedBlocked = busy; // its transaction in progress can never commit now
            deposedTerm++;
        }
        belt = null;
        todo.clear();
        awaitingGrant.clear();
        ordered = null;
        busy = false;
        return settled;
    }

    /** The belt of the last incarnation ({@link #stop} with {@code runsOn}) is still running. */
    boolean deposedRunning() {
        return deposed != null;
    }

    int deposedTerm() {
        return deposedTerm;
    }

    /** The deposed leader notices that it no longer leads (of term {@code term}; any if negative) and stops. */
    void endDeposed(int term) {
        if (deposed == null || (term >= 0 && term != deposedTerm)) return;
        deposed = null;
        deposedTodo.clear();
        sim.trace(() -> id + "'s deposed leader notices and stops");
    }

    boolean submit(long requestId) {
        boolean accepted = belt.step(new BeltEvent.GlobalRequest(requestId));
        step = Step.REQUEST;
        perform();
        return accepted;
    }

    void receive(Message message) {
        ConveyorBelt.Role before = belt.role();
        belt.step(new BeltEvent.MessageReceived(message));
        step = message instanceof Message.TokenPass
                ? (belt.role() == ConveyorBelt.Role.APPLYING && before != ConveyorBelt.Role.APPLYING
                        ? Step.TOKEN_RECEIVED : Step.TOKEN_DUPLICATE)
                : message instanceof Message.TokenAck || message instanceof Message.AppliedAhead ? Step.ACKNOWLEDGED
                : message instanceof Message.UpdateAhead ? Step.UPDATE_AHEAD : Step.WANT;
        perform();
    }

    /** @return whether the belt asked for anything (a resend): only then is the tick a step */
    boolean tick(long now) {
        belt.step(new BeltEvent.Tick(now));
        step = Step.RESENT;
        return perform() > 0;
    }

    /** The steps taken so far. */
    long steps() {
        return steps;
    }

    /** Counts the step that just ended; its number. */
    long countStep() {
        return ++steps;
    }

    /** Where the step that just ended left this instance. */
    Step label() {
        // The token's arrival marks where a round begins (FailoverSweep), even while an update that came ahead of it
        // is still in the group's log (decision 25).
        if (step == Step.TOKEN_RECEIVED) return step;
        if (!inLog.isEmpty()) return inLog.get(inLog.size() - 1).duty.inLog;
        if (belt != null && belt.role() == ConveyorBelt.Role.PARKED) return Step.PARKED;
        return step;
    }

    /** Collects the actions the state machine asks for and performs them in order; how many it asked for. */
    private int perform() {
        List<Action> ready = belt.ready();
        for (Action action : ready) {
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
                if (sim.settings().replicated()) {
                    busy = true; // sent once the group's log committed the record
                    passToken(pass);
                } else {
                    db.recordPassed(pass.token()); // durably PASSED, then sent
                    sim.send(id, pass.to(), new Message.TokenPass(id, pass.token()));
                }
            } else if (action instanceof Action.ApplyUpdates apply) {
                busy = true;
                applyUpdates(apply);
            } else if (action instanceof Action.ApplyAhead ahead) {
                busy = true;
                applyAhead(ahead);
            } else if (action instanceof Action.ExecuteGlobals round) {
                busy = true;
                executeRound(round);
            } else {
                busy = true;
                Action.ExecuteGlobal exec = (Action.ExecuteGlobal) action;
                inTransaction(() -> execute(exec));
            }
        }
        return ready.size();
    }

    /** Replicated: the token is recorded as passed through the group's log, and sent once that committed. */
    private void passToken(Action.PassToken pass) {
        commit(Duty.PASS, "hop " + pass.token().hop() + " recorded as passed", d -> d.recordPassed(pass.token()), () -> {
            busy = false;
            sim.trace(() -> id + ": sends the token of hop " + pass.token().hop() + " to " + pass.to());
            sim.send(id, pass.to(), new Message.TokenPass(id, pass.token()));
            perform();
        });
    }

    /**
     * Commits a DBMS transaction whose effect on the database is {@code effect}, then goes on with {@code then}. A
     * single instance does both at once. A replicated group's leader (decision 22, 24) appends the transaction's entry
     * to the group's log and keeps the transaction open; when the log commits the entry, a moment later, the
     * transaction commits and the shell goes on. Until then its outcome is UNKNOWN to a leader that fails over.
     */
    private void commit(Duty duty, String what, Consumer<SimDatabase> effect, Runnable then) {
        if (!sim.settings().replicated()) {
            step = duty.committed;
            effect.accept(db);
            then.run();
            return;
        }
        Entry entry = new Entry(duty, what, effect);
        inLog.add(entry);
        step = duty.inLog;
        sim.trace(() -> id + ": " + what + ": entry appended to the group's log");
        later(1 + sim.nextLong(sim.settings().maxLogMillis()), duty.committed, () -> {
            inLog.remove(entry);
            effect.accept(db);
            sim.trace(() -> id + ": " + what + ": committed by the group's log");
            then.run();
        });
    }

    /** A failed transaction is not reported: the runtime retries the same action (Action.ApplyUpdates). */
    private void applyUpdates(Action.ApplyUpdates apply) {
        inTransaction(() -> {
            if (sim.chance(sim.settings().applyRetryRate())) {
                sim.trace(() -> id + ": applying hop " + apply.token().hop() + " fails, retrying");
                step = Step.APPLY_RETRY;
                applyUpdates(apply);
                return;
            }
            commit(Duty.APPLY, "hop " + apply.token().hop() + "'s updates applied and the token recorded as held",
                    d -> d.applyUpdates(apply), () -> report(Step.ROUND_STARTED,
                            new BeltEvent.UpdatesApplied(apply.token().hop())));
        });
    }

    /** Updates that arrived ahead of the token, in one transaction (decision 25); reported once committed. */
    private void applyAhead(Action.ApplyAhead ahead) {
        inTransaction(() -> commit(Duty.AHEAD, "gsns up to " + ahead.lastGsn() + " applied ahead of the token",
                d -> d.applyAhead(ahead), () -> {
                    busy = false;
                    belt.step(new BeltEvent.AheadApplied(ahead));
                    perform();
                }));
    }

    /** One DBMS transaction: the request fails, writes nothing, or commits its writes as gsn {@code exec.gsn()}. */
    private void execute(Action.ExecuteGlobal exec) {
        long requestId = exec.requestId();
        GlobalRequest request = sim.request(requestId);
        if (sim.chance(sim.settings().failRate())) {
            sim.trace(() -> id + ": r" + requestId + " fails and rolls back");
            sim.checker().completedWithoutUpdate(id, requestId, true);
            executed(requestId, null);
            return;
        }
        List<RowChange> writes = request.execute(db.rows());
        if (writes.isEmpty()) {
            sim.trace(() -> id + ": r" + requestId + " writes nothing");
            sim.checker().completedWithoutUpdate(id, requestId, false);
            executed(requestId, null);
            return;
        }
        StateUpdate update = new StateUpdate(exec.gsn(), id, writes);
        commit(Duty.GLOBAL, "r" + requestId + " as gsn " + exec.gsn(), d -> d.commitGlobal(requestId, update), () -> {
            sim.trace(() -> id + ": r" + requestId + " commits as gsn " + exec.gsn());
            executed(requestId, update);
        });
    }

    private void executed(long requestId, StateUpdate update) {
        if (update == null) step = Step.GLOBAL_WITHOUT_UPDATE;
        report(Step.GLOBAL_REPORTED, new BeltEvent.GlobalExecuted(requestId, update));
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
                step = Step.GLOBAL_WITHOUT_UPDATE;
                reportInRound(Step.GLOBAL_REPORTED, new BeltEvent.GlobalExecuted(requestId, null), finished);
                return;
            }
            step = Step.WAITING_FOR_GSN;
            ordered.turnToCommit(attempt, () -> {
                awaitingGrant.put(requestId, gsn -> commitOrdered(requestId, attempt, writes, gsn, finished));
                reportInRound(Step.WAITING_FOR_GSN, new BeltEvent.ReadyToCommit(requestId), () -> {});
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
                step = Step.COMMIT_ABORTED;
                reportInRound(Step.COMMIT_ABORTED, new BeltEvent.CommitAborted(requestId),
                        () -> runOrdered(requestId, finished, true));
                return;
            }
            StateUpdate update = new StateUpdate(gsn, id, writes);
            commit(Duty.GLOBAL, "r" + requestId + " as gsn " + gsn, d -> d.commitGlobal(requestId, update), () -> {
                ordered.end(attempt); // no attempt begins while a commit is open (SimOrderedCommits)
                sim.trace(() -> id + ": r" + requestId + " commits as gsn " + gsn);
                reportInRound(Step.GLOBAL_REPORTED, new BeltEvent.GlobalExecuted(requestId, update), finished);
            });
        });
    }

    /** Runs {@code r} as an event of its own, unless this incarnation crashed meanwhile. */
    private void inThisIncarnation(Runnable r) {
        later(0, Step.ORDERING, r);
    }

    private void runInRound(long requestId, Runnable finished) {
        boolean fails = sim.chance(sim.settings().failRate());
        if (fails || sim.request(requestId).execute(db.rows()).isEmpty()) { // no gsn
            sim.trace(() -> id + ": r" + requestId + (fails ? " fails and rolls back" : " writes nothing"));
            sim.checker().completedWithoutUpdate(id, requestId, fails);
            step = Step.GLOBAL_WITHOUT_UPDATE;
            reportInRound(Step.GLOBAL_REPORTED, new BeltEvent.GlobalExecuted(requestId, null), finished);
            return;
        }
        step = Step.WAITING_FOR_GSN;
        awaitingGrant.put(requestId, gsn -> commitGranted(requestId, gsn, finished));
        reportInRound(Step.WAITING_FOR_GSN, new BeltEvent.ReadyToCommit(requestId), () -> {});
    }

    /** The belt granted the next gsn: commit as that gsn, or (now and then) fail at commit and become ready again. */
    private void commitGranted(long requestId, long gsn, Runnable finished) {
        inTransaction(() -> {
            if (sim.chance(sim.settings().applyRetryRate())) {
                sim.trace(() -> id + ": r" + requestId + "'s commit fails and rolls back, it runs again");
                step = Step.COMMIT_ABORTED;
                reportInRound(Step.COMMIT_ABORTED, new BeltEvent.CommitAborted(requestId),
                        () -> inTransaction(() -> runInRound(requestId, finished)));
                return;
            }
            List<RowChange> writes = sim.request(requestId).execute(db.rows());
            if (writes.isEmpty()) {
                sim.trace(() -> id + ": r" + requestId + " writes nothing after all");
                sim.checker().completedWithoutUpdate(id, requestId, false);
                step = Step.GLOBAL_WITHOUT_UPDATE;
                reportInRound(Step.GLOBAL_REPORTED, new BeltEvent.GlobalExecuted(requestId, null), finished);
                return;
            }
            StateUpdate update = new StateUpdate(gsn, id, writes);
            commit(Duty.GLOBAL, "r" + requestId + " as gsn " + gsn, d -> d.commitGlobal(requestId, update), () -> {
                sim.trace(() -> id + ": r" + requestId + " commits as gsn " + gsn);
                reportInRound(Step.GLOBAL_REPORTED, new BeltEvent.GlobalExecuted(requestId, update), finished);
            });
        });
    }

    /** A report of the round in progress, a moment later, unless this incarnation crashed meanwhile. */
    private void reportInRound(Step kind, BeltEvent event, Runnable after) {
        later(sim.nextLong(2), kind, () -> {
            belt.step(event);
            after.run();
            perform();
        });
    }

    /** Runs {@code transaction} after the DBMS's latency, unless this incarnation crashed meanwhile. */
    private void inTransaction(Runnable transaction) {
        later(1 + sim.nextLong(sim.settings().maxDbMillis()), Step.GLOBAL_WITHOUT_UPDATE, transaction);
    }

    /** Tells the state machine a transaction finished, a moment after it committed. */
    private void report(Step kind, BeltEvent event) {
        later(sim.nextLong(2), kind, () -> {
            busy = false;
            belt.step(event);
            perform();
        });
    }

    /**
     * Runs {@code r} as one event of this incarnation, {@code delay} from now, unless it crashed or failed over
     * meanwhile; the event is one step ({@code kind}, unless {@code r} says otherwise).
     */
    private void later(long delay, Step kind, Runnable r) {
        int at = incarnation;
        sim.after(delay, () -> {
            if (at != incarnation) return;
            step = kind;
            r.run();
            sim.stepped(this);
        });
    }

    // ---------------------------------------------------------------- a deposed leader that has not noticed yet

    /**
     * A message reached the deposed leader (peers and the network do not know which replica leads). Its belt handles it
     * as ever; what that asks for is performed in order while it is only sending: its first DBMS transaction (or the
     * one it was in) waits for a log that no longer takes its entries, and blocks the rest. A belt that finds its state
     * contradicted stops (fail-stop, decision 11), as a deposed leader may well; a message it refuses (a peer says it
     * applied a gsn that the group's new leader made, decision 26) is dropped.
     */
    void receiveDeposed(Message message) {
        runDeposed(() -> {
            try {
                deposed.step(new BeltEvent.MessageReceived(message));
            } catch (IllegalArgumentException e) { // refused and dropped, as the runtime does (BeltLoop)
                sim.trace(() -> id + "'s deposed leader refuses a message: " + e.getMessage());
            }
        });
    }

    void tickDeposed(long now) {
        runDeposed(() -> deposed.step(new BeltEvent.Tick(now)));
    }

    private void runDeposed(Runnable event) {
        try {
            event.run();
        } catch (IllegalStateException e) {
            sim.trace(() -> id + "'s deposed leader stops itself: " + e.getMessage());
            endDeposed(-1);
            return;
        }
        deposedTodo.addAll(deposed.ready());
        while (!deposedBlocked && !deposedTodo.isEmpty()) {
            Action action = deposedTodo.poll();
            if (action instanceof Action.Send send) {
                sim.trace(() -> id + " (deposed): " + Simulator.describe(action));
                sim.send(id, send.to(), send.message());
            } else {
                deposedBlocked = true;
                sim.trace(() -> id + " (deposed): " + Simulator.describe(action) + " waits for the group's log, in vain");
            }
        }
    }
}
