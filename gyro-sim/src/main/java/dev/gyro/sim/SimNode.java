package dev.gyro.sim;

import dev.gyro.protocol.Action;
import dev.gyro.protocol.BeltEvent;
import dev.gyro.protocol.ConveyorBelt;
import dev.gyro.protocol.ConveyorBeltConfig;
import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.Message;
import dev.gyro.protocol.Ring;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Token;
import dev.gyro.driver.BeltActions;
import dev.gyro.driver.BeltLoop;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * One simulated instance: a real {@link ConveyorBelt} driven by the runtime's own driver ({@link BeltLoop} and
 * {@link BeltActions}, docs/decisions/29-belt-events.md), whose loop runs on simulated time ({@link SimulatedThread}), over the
 * simulated environment this class supplies: the belt's durable duties on a {@link SimDatabase} ({@link Shell} as
 * {@link BeltActions.BeltStore}), the network ({@link Simulator#send}), and the execution of global requests, which is
 * the simulator's own model ({@link Shell} as {@link BeltActions.Globals}). DBMS work takes simulated time; every event
 * handed to the loop is handled a moment later, so the report of a finished transaction comes a little after its
 * commit and a crash can fall between the two. A crash drops the state machine, every action not yet performed and the
 * transaction in progress; the {@link SimDatabase} (the disk) keeps what committed.
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
    SimDatabase db; // null for a spare until it joins the ring (docs/decisions/44-ring-changes.md)
    private final Simulator sim;
    private final ConveyorBeltConfig config;

    private Shell shell; // null while down
    private int incarnation;
    private int inFlight; // DBMS transactions and global requests under way, of this incarnation
    private final Map<Long, LongConsumer> awaitingGrant = new HashMap<>(); // parallel: by request
    private SimOrderedCommits ordered; // parallel globals on a snapshot-isolated DBMS, else null

    // A replicated group's leader (decision 24): its transactions whose entries the log has not committed yet.
    private final List<Entry> inLog = new ArrayList<>();
    private DurableState recoverFrom; // a deliberately broken failover only: what the next start recovers from
    private Step step = Step.STARTED; // what the event in progress did
    private long steps;

    // A deposed leader that has not noticed yet: its driver runs on, sends, but commits nothing.
    private Shell deposed;
    private int deposedTerm;

    SimNode(int id, Simulator sim, ConveyorBeltConfig config, SimDatabase db) {
        this.id = id;
        this.sim = sim;
        this.config = config;
        this.db = db;
    }

    /** A spare joins the ring on {@code copy}, a copy of a member's database (decision 44); {@link #start} starts it. */
    void join(SimDatabase copy) {
        if (db != null) throw new IllegalStateException("instance " + id + " joins twice");
        db = copy;
    }

    boolean up() {
        return shell != null;
    }

    /** Nothing to do: no queued global request, no event or transaction under way, no deposed leader left. */
    boolean idle() {
        return shell != null && inFlight == 0 && shell.lane.idle() && shell.belt.queuedGlobals() == 0
                && deposed == null;
    }

    ConveyorBelt belt() {
        return shell.belt;
    }

    void start() {
        incarnation++;
        DurableState state = recoverFrom != null ? recoverFrom : db.durableState();
        recoverFrom = null;
        shell = new Shell(new ConveyorBelt(config, state, sim.now()));
        ordered = sim.settings().snapshotIsolation() ? new SimOrderedCommits(this::inThisIncarnation) : null;
        sim.trace(() -> id + " starts as " + shell.belt.role() + " from last gsn " + db.lastGsn());
        step = Step.STARTED;
        shell.start();
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
     * @param runsOn    the old leader's driver runs on, deposed, until {@link #endDeposed}: it has not noticed yet
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
        if (shell != null) {
            if (runsOn) {
                if (deposed != null) deposed.lane.shutdownNow();
                deposed = shell; // its transaction in progress, if any, can never commit now: its driver waits for it
                deposedTerm++;
            } else {
                shell.lane.shutdownNow();
            }
        }
        shell = null;
        awaitingGrant.clear();
        ordered = null;
        inFlight = 0;
        return settled;
    }

    /** The driver of the last incarnation ({@link #stop} with {@code runsOn}) is still running. */
    boolean deposedRunning() {
        return deposed != null;
    }

    int deposedTerm() {
        return deposedTerm;
    }

    /** The deposed leader notices that it no longer leads (of term {@code term}; any if negative) and stops. */
    void endDeposed(int term) {
        if (deposed == null || (term >= 0 && term != deposedTerm)) return;
        deposed.lane.shutdownNow();
        deposed = null;
        sim.trace(() -> id + "'s deposed leader notices and stops");
    }

    /** A client's global request; the checker hears whether the belt took it ({@link Shell#queued}). */
    void submit(long requestId) {
        shell.loop.step(new BeltEvent.GlobalRequest(requestId));
    }

    void receive(Message message) {
        shell.loop.step(new BeltEvent.MessageReceived(message));
    }

    /**
     * A message reached the deposed leader (peers and the network do not know which replica leads). Its driver handles
     * it as ever, while it is not waiting for a transaction that the log no longer takes (then it waits in vain). A belt
     * that finds its state contradicted stops (fail-stop, decision 11), as a deposed leader may well; a message it
     * refuses (a peer says it applied a gsn that the group's new leader made, decision 26) is dropped by the driver.
     */
    void receiveDeposed(Message message) {
        deposed.loop.step(new BeltEvent.MessageReceived(message));
    }

    /** Time passed: told to a belt that waits for it, as the runtime's timer does (docs/decisions/30-idle-ring-no-ticks.md). */
    void tick(long now) {
        shell.tick(now);
    }

    void tickDeposed(long now) {
        deposed.tick(now);
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
        if (shell != null && shell.belt.role() == ConveyorBelt.Role.PARKED) return Step.PARKED;
        return step;
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

    // ---------------------------------------------------------------- the execution of global requests (the model)

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
        List<RowChange> writes = withRingChange(requestId, request.execute(db.rows()));
        if (writes.isEmpty()) {
            sim.trace(() -> id + ": r" + requestId + " writes nothing");
            sim.checker().completedWithoutUpdate(id, requestId, false);
            executed(requestId, null);
            return;
        }
        StateUpdate update = new StateUpdate(exec.gsn(), id, writes);
        commit(Duty.GLOBAL, "r" + requestId + " as gsn " + exec.gsn(), committing(requestId, update), () -> {
            sim.trace(() -> id + ": r" + requestId + " commits as gsn " + exec.gsn());
            executed(requestId, update);
        });
    }

    /**
     * {@code writes} of request {@code requestId}, and, when it asks for a membership change that the ring this
     * instance holds allows, the row of {@link Ring#TABLE} that makes it (docs/decisions/44-ring-changes.md): the ring
     * it holds with the joiner put in or the leaver taken out, made at the hop it holds. Computed when the request
     * commits, so after every gsn before it, ring changes among them included.
     */
    private List<RowChange> withRingChange(long requestId, List<RowChange> writes) {
        Ring next = sim.ringChangeFor(requestId, id, shell.belt.ring(), shell.belt.lastReceivedHop());
        if (next == null) return writes;
        sim.trace(() -> id + ": r" + requestId + " (" + sim.ringChange(requestId) + ") makes the ring epoch "
                + next.epoch() + " " + next.members() + " at hop " + next.hop());
        List<RowChange> all = new ArrayList<>(writes);
        all.add(next.change());
        return all;
    }

    /** Whether request {@code requestId} may write on {@code rows}: a membership change is judged when it commits. */
    private boolean mayWrite(long requestId, NavigableMap<Long, Long> rows) {
        return sim.ringChange(requestId) != null || !sim.request(requestId).execute(rows).isEmpty();
    }

    /** A global request's one transaction: its writes, gsn and outbox entry, and the ring its update makes if any. */
    private Consumer<SimDatabase> committing(long requestId, StateUpdate update) {
        return d -> {
            d.commitGlobal(requestId, update);
            if (update.ring() != null && d == db) sim.ringCommitted(update);
        };
    }

    private void executed(long requestId, StateUpdate update) {
        if (update == null) step = Step.GLOBAL_WITHOUT_UPDATE;
        report(new BeltEvent.GlobalExecuted(requestId, update), true);
    }

    /**
     * {@link Action.ExecuteGlobals}: every request of the round is a transaction of its own that finishes at its own
     * random moment. One that fails or writes nothing is reported at once; one that writes reports ready to commit
     * and, when the belt grants it a gsn ({@link Action.CommitGlobal}), runs atomically and commits as that gsn (a
     * DBMS with commit ordering serializes the round's transactions in commit order). Now and then a granted commit
     * fails, is reported aborted and the request becomes ready again.
     */
    private void executeRound(Action.ExecuteGlobals round) {
        for (long requestId : round.requestIds()) {
            if (sim.ringChange(requestId) != null) sim.ringChangeRunning(this);
            inFlight++;
            if (ordered != null) runOrdered(requestId, false);
            else inTransaction(() -> runInRound(requestId));
        }
    }

    /**
     * One attempt of a round's request on a snapshot-isolated DBMS under the runtime's commit ordering
     * ({@link SimOrderedCommits}): it runs on its snapshot, waits for its turn, asks for its gsn, and commits unless
     * the DBMS finds that its snapshot missed a conflicting write; then it is aborted and runs again alone.
     */
    private void runOrdered(long requestId, boolean alone) {
        ordered.begin(db, alone, attempt -> inTransaction(() -> {
            boolean fails = sim.chance(sim.settings().failRate());
            List<RowChange> writes = fails ? List.of() : sim.request(requestId).execute(attempt.snapshot());
            if (writes.isEmpty() && (fails || sim.ringChange(requestId) == null)) { // no gsn: nothing to order
                ordered.end(attempt);
                sim.trace(() -> id + ": r" + requestId + (fails ? " fails and rolls back" : " writes nothing"));
                sim.checker().completedWithoutUpdate(id, requestId, fails);
                step = Step.GLOBAL_WITHOUT_UPDATE;
                report(new BeltEvent.GlobalExecuted(requestId, null), true);
                return;
            }
            step = Step.WAITING_FOR_GSN;
            ordered.turnToCommit(attempt, () -> {
                awaitingGrant.put(requestId, gsn -> commitOrdered(requestId, attempt, writes, gsn));
                report(new BeltEvent.ReadyToCommit(requestId), false);
            });
        }));
    }

    private void commitOrdered(long requestId, SimOrderedCommits.Attempt attempt, List<RowChange> writes, long gsn) {
        inTransaction(() -> {
            boolean lost = db.writtenSince(attempt.seen(), sim.request(requestId).touched());
            if (lost || sim.chance(sim.settings().applyRetryRate())) {
                ordered.end(attempt);
                sim.trace(() -> id + ": r" + requestId + (lost ? " read or wrote a key its snapshot missed: aborted"
                        : "'s commit fails") + ", it runs again alone");
                step = Step.COMMIT_ABORTED;
                report(new BeltEvent.CommitAborted(requestId), false);
                runOrdered(requestId, true);
                return;
            }
            List<RowChange> all = withRingChange(requestId, writes);
            if (all.isEmpty()) { // a membership change the ring no longer allows
                ordered.end(attempt);
                sim.trace(() -> id + ": r" + requestId + " writes nothing after all");
                sim.checker().completedWithoutUpdate(id, requestId, false);
                step = Step.GLOBAL_WITHOUT_UPDATE;
                report(new BeltEvent.GlobalExecuted(requestId, null), true);
                return;
            }
            StateUpdate update = new StateUpdate(gsn, id, all);
            commit(Duty.GLOBAL, "r" + requestId + " as gsn " + gsn, committing(requestId, update), () -> {
                ordered.end(attempt); // no attempt begins while a commit is open (SimOrderedCommits)
                sim.trace(() -> id + ": r" + requestId + " commits as gsn " + gsn);
                report(new BeltEvent.GlobalExecuted(requestId, update), true);
            });
        });
    }

    /** Runs {@code r} as an event of its own, unless this incarnation crashed meanwhile. */
    private void inThisIncarnation(Runnable r) {
        later(0, Step.ORDERING, r);
    }

    private void runInRound(long requestId) {
        boolean fails = sim.chance(sim.settings().failRate());
        if (fails || !mayWrite(requestId, db.rows())) { // no gsn
            sim.trace(() -> id + ": r" + requestId + (fails ? " fails and rolls back" : " writes nothing"));
            sim.checker().completedWithoutUpdate(id, requestId, fails);
            step = Step.GLOBAL_WITHOUT_UPDATE;
            report(new BeltEvent.GlobalExecuted(requestId, null), true);
            return;
        }
        step = Step.WAITING_FOR_GSN;
        awaitingGrant.put(requestId, gsn -> commitGranted(requestId, gsn));
        report(new BeltEvent.ReadyToCommit(requestId), false);
    }

    /** The belt granted the next gsn: commit as that gsn, or (now and then) fail at commit and become ready again. */
    private void commitGranted(long requestId, long gsn) {
        inTransaction(() -> {
            if (sim.chance(sim.settings().applyRetryRate())) {
                sim.trace(() -> id + ": r" + requestId + "'s commit fails and rolls back, it runs again");
                step = Step.COMMIT_ABORTED;
                report(new BeltEvent.CommitAborted(requestId), false);
                inTransaction(() -> runInRound(requestId));
                return;
            }
            List<RowChange> writes = withRingChange(requestId, sim.request(requestId).execute(db.rows()));
            if (writes.isEmpty()) {
                sim.trace(() -> id + ": r" + requestId + " writes nothing after all");
                sim.checker().completedWithoutUpdate(id, requestId, false);
                step = Step.GLOBAL_WITHOUT_UPDATE;
                report(new BeltEvent.GlobalExecuted(requestId, null), true);
                return;
            }
            StateUpdate update = new StateUpdate(gsn, id, writes);
            commit(Duty.GLOBAL, "r" + requestId + " as gsn " + gsn, committing(requestId, update), () -> {
                sim.trace(() -> id + ": r" + requestId + " commits as gsn " + gsn);
                report(new BeltEvent.GlobalExecuted(requestId, update), true);
            });
        });
    }

    /** A global request reports to the belt, through the driver ({@code last}: its last report, it is done). */
    private void report(BeltEvent event, boolean last) {
        if (last) inFlight--;
        shell.loop.step(event);
    }

    /** Runs {@code transaction} after the DBMS's latency, unless this incarnation crashed meanwhile. */
    private void inTransaction(Runnable transaction) {
        later(1 + sim.nextLong(sim.settings().maxDbMillis()), Step.GLOBAL_WITHOUT_UPDATE, transaction);
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

    // ---------------------------------------------------------------- one incarnation's driver and its environment

    /**
     * One incarnation of the instance: its belt, driven by the runtime's {@link BeltLoop} and {@link BeltActions} on a
     * {@link SimulatedThread}, and the environment they perform the belt's actions on. While it is the instance's current
     * one its durable duties commit (after the DBMS's latency, and through the group's log when replicated); once deposed it
     * still sends, but a durable duty waits for a log that no longer takes its entries, and holds the driver.
     */
    private final class Shell implements BeltLoop.Recorder, BeltActions.BeltStore,
            BeltActions.Peers, BeltActions.Globals {
        final ConveyorBelt belt;
        long did; // what the driver did so far: events other than quiet ticks handled, actions performed
        /**
         * The loop's thread: each event handed to it runs a moment later. A task in which the driver did something
         * (handled an event other than a tick that asked for nothing, or performed an action) is one step of the
         * instance.
         */
        final SimulatedThread lane = new SimulatedThread(sim::after, () -> sim.nextLong(2), task -> {
            long before = did;
            task.run();
            if (current() && did != before) sim.stepped(SimNode.this);
        });
        final BeltLoop loop;
        private final BeltActions actions;
        private BeltLoop.View view;
        private BeltEvent handling;

        Shell(ConveyorBelt belt) {
            this.belt = belt;
            this.loop = new BeltLoop(id, belt, lane, this::failStop, v -> view = v, this, sim::now);
            this.actions = new BeltActions(id, this, this, this, loop::step, BeltActions.Progress.NONE);
        }

        void start() {
            loop.start(actions);
        }

        private boolean current() {
            return this == shell;
        }

        private String who() {
            return current() ? id + ": " : id + " (deposed): ";
        }

        void tick(long now) {
            if (view != null && view.waitsForTime()) loop.step(new BeltEvent.Tick(now));
        }

        /** The driver stopped the instance (decision 11): a bug of the protocol or the driver, unless deposed. */
        private void failStop(Throwable why) {
            if (!current()) {
                sim.trace(() -> id + "'s deposed leader stops itself: " + why.getMessage());
                if (this == deposed) endDeposed(-1);
                return;
            }
            if (why instanceof RuntimeException e) throw e;
            throw new IllegalStateException("instance " + id + " stopped itself: " + why, why);
        }

        // -------------------------------------------------------- BeltLoop.Recorder: where a step leaves the instance

        @Override
        public void handling(BeltEvent event) {
            handling = event;
            if (event instanceof BeltEvent.Tick) return; // a step only if it asks for something (RESENT)
            did++;
            if (!current()) return;
            if (event instanceof BeltEvent.Start) step = Step.STARTED;
            else if (event instanceof BeltEvent.GlobalRequest) step = Step.REQUEST;
            else if (event instanceof BeltEvent.UpdatesApplied) step = Step.ROUND_STARTED;
            else if (event instanceof BeltEvent.GlobalExecuted) step = Step.GLOBAL_REPORTED;
            else if (event instanceof BeltEvent.ReadyToCommit) step = Step.WAITING_FOR_GSN;
            else if (event instanceof BeltEvent.CommitAborted) step = Step.COMMIT_ABORTED;
            else if (event instanceof BeltEvent.AheadApplied) step = Step.AHEAD_APPLIED;
            else if (event instanceof BeltEvent.MessageReceived m) {
                Message message = m.message();
                step = message instanceof Message.TokenPass ? Step.TOKEN_DUPLICATE // unless it arrived (tokenArrived)
                        : message instanceof Message.TokenAck || message instanceof Message.AppliedAhead
                        ? Step.ACKNOWLEDGED
                        : message instanceof Message.UpdateAhead ? Step.UPDATE_AHEAD : Step.WANT;
            }
        }

        @Override
        public void performing(Action action) {
            did++;
            sim.trace(() -> who() + Simulator.describe(action));
        }

        @Override
        public void stepped(BeltEvent event, List<Action> performed) {}

        // -------------------------------------------------------- BeltActions.BeltStore: the durable duties

        @Override
        public CompletionStage<Void> applyUpdates(Action.ApplyUpdates apply) {
            boolean guarded = sim.guards() != Simulator.Guards.WITHOUT_RECEIVED_ALREADY;
            return durably(Duty.APPLY, "hop " + apply.token().hop() + "'s updates applied and the token recorded as held",
                    () -> guarded && apply.committedIn(db.durableState()), d -> d.applyUpdates(apply));
        }

        @Override
        public CompletionStage<Void> applyAhead(Action.ApplyAhead ahead) {
            boolean guarded = sim.guards() != Simulator.Guards.WITHOUT_APPLIED_AHEAD_ALREADY;
            return durably(Duty.AHEAD, "gsns up to " + ahead.lastGsn() + " applied ahead of the token",
                    () -> guarded && ahead.committedIn(db.lastGsn()), d -> d.applyAhead(ahead));
        }

        /** A durable duty of the belt: one DBMS transaction after the DBMS's latency, tried until it commits. */
        private CompletionStage<Void> durably(Duty duty, String what, BooleanSupplier committedAlready,
                                              Consumer<SimDatabase> effect) {
            if (!current()) return inVain();
            CompletableFuture<Void> done = new CompletableFuture<>();
            inFlight++;
            inTransaction(() -> tryOnce(duty, what, committedAlready, effect, done, false));
            return done;
        }

        /**
         * One try. Now and then it fails before it commits, or it commits and its answer is lost (a database server
         * crash): either way the store tries again, and a retry first asks whether an earlier try committed
         * ({@code committedAlready}: {@link Action.ApplyUpdates#committedIn}, {@link Action.ApplyAhead#committedIn}, as
         * the runtime's store asks), and then does nothing.
         */
        private void tryOnce(Duty duty, String what, BooleanSupplier committedAlready, Consumer<SimDatabase> effect,
                             CompletableFuture<Void> done, boolean retry) {
            if (retry && committedAlready.getAsBoolean()) {
                sim.trace(() -> id + ": " + what + ": the retry finds it committed, nothing to do");
                step = duty.committed;
                committed(done);
                return;
            }
            Runnable again = () -> inTransaction(() -> tryOnce(duty, what, committedAlready, effect, done, true));
            if (!sim.chance(sim.settings().applyRetryRate())) {
                commit(duty, what, effect, () -> committed(done));
            } else if (sim.chance(0.5)) {
                sim.trace(() -> id + ": " + what + ": fails, retrying");
                if (duty == Duty.APPLY) step = Step.APPLY_RETRY;
                again.run();
            } else {
                commit(duty, what, effect, () -> {
                    sim.trace(() -> id + ": " + what + ": committed, but the answer was lost; retrying");
                    again.run();
                });
            }
        }

        /** Replicated: the token is recorded as passed through the group's log, and sent once that committed. */
        @Override
        public CompletionStage<Void> recordPassed(Token token) {
            if (!current()) return inVain();
            if (!sim.settings().replicated()) {
                db.recordPassed(token);
                return BeltLoop.DONE;
            }
            CompletableFuture<Void> done = new CompletableFuture<>();
            inFlight++;
            commit(Duty.PASS, "hop " + token.hop() + " recorded as passed", d -> d.recordPassed(token),
                    () -> committed(done));
            return done;
        }

        private void committed(CompletableFuture<Void> done) {
            inFlight--;
            done.complete(null);
        }

        /** A deposed leader's transaction: the group's log no longer takes its entry, so it never commits. */
        private CompletionStage<Void> inVain() {
            sim.trace(() -> id + " (deposed): the transaction waits for the group's log, in vain");
            return new CompletableFuture<>();
        }

        // -------------------------------------------------------- BeltActions.Peers

        @Override
        public void send(int to, Message message) {
            if (current() && handling instanceof BeltEvent.Tick) step = Step.RESENT;
            sim.send(id, to, message);
        }

        // -------------------------------------------------------- BeltActions.Globals: the simulator's model

        @Override
        public void queued(long requestId, boolean holdsToken, boolean wasParked) {
            // A request that reached the driver before its leader was deposed: the old leader never answers it.
            sim.checker().submitted(sim.request(requestId),
                    current() ? HistoryChecker.Fate.ACCEPTED : HistoryChecker.Fate.LOST);
        }

        @Override
        public void refused(long requestId, int queued) {
            sim.checker().submitted(sim.request(requestId), HistoryChecker.Fate.REFUSED);
            sim.trace(() -> "client: r" + requestId + " REFUSED");
        }

        @Override
        public void tokenArrived() {
            if (current()) step = Step.TOKEN_RECEIVED;
        }

        @Override
        public void execute(Action.ExecuteGlobal one) {
            if (!current()) return; // its transaction would wait for the group's log in vain
            if (sim.ringChange(one.requestId()) != null) sim.ringChangeRunning(SimNode.this);
            inFlight++;
            inTransaction(() -> SimNode.this.execute(one));
        }

        @Override
        public void execute(Action.ExecuteGlobals round) {
            if (current()) executeRound(round);
        }

        @Override
        public void grant(Action.CommitGlobal commit) {
            if (current()) awaitingGrant.remove(commit.requestId()).accept(commit.gsn());
        }
    }
}
