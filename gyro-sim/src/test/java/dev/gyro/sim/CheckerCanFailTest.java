package dev.gyro.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gyro.protocol.Action;
import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** A checker that cannot fail proves nothing: broken runtimes and broken histories must be caught. */
class CheckerCanFailTest {

    /**
     * A runtime whose ApplyUpdates at instance 1 silently skips the first update of every batch, and so does its
     * ApplyAhead (updates sent ahead of the token, decision 25).
     */
    static final class SkippingDatabase extends SimDatabase {
        SkippingDatabase(int instance, DurableState initial, CommitLog log) {
            super(instance, initial, log);
        }

        @Override
        void applyUpdates(Action.ApplyUpdates action) {
            if (instance != 1 || action.updates().isEmpty()) {
                super.applyUpdates(action);
                return;
            }
            List<StateUpdate> rest = action.updates().subList(1, action.updates().size());
            super.applyUpdates(new Action.ApplyUpdates(action.token(), rest, action.lastGsn()));
        }

        @Override
        void applyAhead(Action.ApplyAhead action) {
            if (instance != 1) {
                super.applyAhead(action);
                return;
            }
            for (StateUpdate u : action.updates().subList(1, action.updates().size())) applyUpdate(u);
            skipTo(action.lastGsn()); // as if the first had been applied too
        }
    }

    /** A runtime that commits a global request's writes but forgets to put its update in the outbox. */
    static final class ForgetfulDatabase extends SimDatabase {
        ForgetfulDatabase(int instance, DurableState initial, CommitLog log) {
            super(instance, initial, log);
        }

        @Override
        void commitGlobal(long requestId, StateUpdate update) {
            super.commitGlobal(requestId, update);
            dropLastOutboxEntry();
        }
    }

    /**
     * A snapshot-isolated DBMS that never aborts the attempt whose snapshot missed a conflicting write: parallel
     * globals with commits in position order but without the cycle SSI breaks (naive parallelism on PostgreSQL).
     */
    static final class BlindSnapshotDatabase extends SimDatabase {
        BlindSnapshotDatabase(int instance, DurableState initial, CommitLog log) {
            super(instance, initial, log);
        }

        @Override
        boolean writtenSince(long seen, long[] keys) {
            return false;
        }
    }

    @Test
    void parallelGlobalsOnSnapshotsWithoutTheAbortAreCaught() {
        int runs = 0, caught = 0;
        List<String> failures = new ArrayList<>();
        for (long seed = 1; seed <= 200; seed++) {
            SimResult correct = Simulator.run(seed);
            if (!correct.settings().snapshotIsolation()) continue;
            runs++;
            assertThat(correct.ok()).as(correct.summary() + " " + correct.failure()).isTrue();
            SimResult r = Simulator.run(seed, false, BlindSnapshotDatabase::new);
            if (!r.ok()) {
                caught++;
                failures.add(r.failure());
            }
        }
        assertThat(runs).isGreaterThan(20);
        assertThat(caught).as("caught in %d of %d runs", caught, runs).isGreaterThan(runs / 4);
        assertThat(failures).anySatisfy(f -> assertThat(f).contains("not serializable"));
    }

    @Test
    void aRuntimeThatSkipsAnUpdateIsCaught() {
        int rings = 0, caught = 0;
        List<String> failures = new ArrayList<>();
        for (long seed = 1; seed <= 40; seed++) {
            SimResult r = Simulator.run(seed, false, SkippingDatabase::new);
            if (r.settings().instances() < 2) continue;
            rings++;
            if (!r.ok()) {
                caught++;
                failures.add(r.failure());
            }
        }
        assertThat(caught).as("caught in %d of %d rings: %s", caught, rings, failures).isGreaterThanOrEqualTo(rings * 9 / 10);
        assertThat(failures).anySatisfy(f -> assertThat(f).contains("instance 1 committed gsn").contains("a gap"));
    }

    @Test
    void aRuntimeThatForgetsTheOutboxIsCaughtWhenACrashHitsAtTheWrongTime() {
        int caught = 0;
        for (long seed = 1; seed <= 300; seed++) if (!Simulator.run(seed, false, ForgetfulDatabase::new).ok()) caught++;
        assertThat(caught).isGreaterThan(0);
    }

    /**
     * The first seed, of the first 2,000, that catches a belt store without one of its retry guards (the runtime's bugs
     * of an apply retried after a commit whose answer was lost, docs/decisions/05-exactly-once.md); its failure.
     */
    private static SimResult firstCaught(Simulator.Guards without) {
        for (long seed = 1; seed <= 2000; seed++) {
            SimResult r = Simulator.run(seed, Simulator.Options.of(false, SimDatabase::new).with(without));
            if (!r.ok()) {
                System.out.printf("a store %s is caught by seed %d: %s%n", without, seed, r.failure().lines().findFirst().orElse(""));
                return r;
            }
        }
        return null;
    }

    @Test
    void aStoreThatAppliesATokensUpdatesAgainWhenItRetriesAfterALostAnswerIsCaught() {
        SimResult caught = firstCaught(Simulator.Guards.WITHOUT_RECEIVED_ALREADY);
        assertThat(caught).as("a seed that catches it").isNotNull();
        assertThat(caught.failure()).contains("a repeat");
        assertThat(caught.replayCommand()).contains("deliberately broken");
    }

    @Test
    void aStoreThatAppliesUpdatesSentAheadAgainWhenItRetriesAfterALostAnswerIsCaught() {
        SimResult caught = firstCaught(Simulator.Guards.WITHOUT_APPLIED_AHEAD_ALREADY);
        assertThat(caught).as("a seed that catches it").isNotNull();
        assertThat(caught.failure()).contains("ahead of the token at last gsn");
    }

    /**
     * A replicated group's failover (docs/decisions/24-ring-on-groups.md) that breaks the rule the correct one keeps:
     * the new leader's belt recovers from a database holding exactly what the group's log committed. Swept over every
     * step of a round ({@link FailoverSweep}) of two seeds, and run on the seeded failovers of replicated groups.
     */
    private static List<String> caughtBrokenFailovers(Simulator.FailoverMode broken) {
        List<String> failures = new ArrayList<>();
        int entriesCommitted = 0;
        for (long seed : new long[] {3, 11}) {
            FailoverSweep.Report correct = FailoverSweep.sweep(seed, 1);
            assertThat(correct.failures()).isEmpty();
            FailoverSweep.Report r = FailoverSweep.sweep(seed, 1, broken);
            assertThat(r.runs()).isEqualTo(correct.runs());
            entriesCommitted += (int) r.covered().stream().filter(c -> c.endsWith("_IN_LOG committed")).count();
            for (SimResult f : r.failures()) failures.add(f.failure());
        }
        assertThat(entriesCommitted).isPositive();
        int replicated = 0, caught = 0;
        for (long seed = 1; seed <= 200; seed++) {
            if (!SimSettings.of(seed).replicated()) continue;
            replicated++;
            SimResult r = Simulator.run(seed, Simulator.Options.of(false, SimDatabase::new).with(broken));
            if (!r.ok()) {
                caught++;
                failures.add(r.failure());
            }
        }
        assertThat(caught).as("caught in %d of %d seeds on replicated groups", caught, replicated).isPositive();
        return failures;
    }

    @Test
    void aFailoverThatLosesAnEntryTheGroupCommittedIsCaught() {
        // The old leader's replica applied the entry (the checker saw it) but the new leader's database lacks it: the
        // new leader executes another request under the same gsn, or applies the same token's updates again.
        List<String> failures = caughtBrokenFailovers(Simulator.FailoverMode.LOSES_COMMITTED);
        assertThat(failures).anySatisfy(f -> assertThat(f).contains("is taken twice"));
        assertThat(failures).anySatisfy(f -> assertThat(f).contains("a repeat"));
    }

    @Test
    void aNewLeaderThatRecoversBeforeItsDatabaseHoldsTheLogIsCaught() {
        // Its belt starts from the database without the UNKNOWN entry, which the database applies just after: the belt
        // is behind its own database and does again what the old leader did.
        List<String> failures = caughtBrokenFailovers(Simulator.FailoverMode.RECOVERS_BEFORE_LOG);
        assertThat(failures).anySatisfy(f -> assertThat(f).contains("is taken twice"));
        assertThat(failures).anySatisfy(f -> assertThat(f).contains("a repeat"));
    }

    // ---------------------------------------------------------------- the checker on hand-made histories

    private static StateUpdate update(long gsn, int origin, long key, long value) {
        return new StateUpdate(gsn, origin, List.of(new RowChange("kv", RowChange.Kind.UPSERT, List.of("k", "v"),
                List.of(new Value.Int(key), new Value.Int(value)), List.of("k"))));
    }

    /** A checker with request 1 (at instance 0) committed as gsn 1 exactly as serial execution writes it. */
    private static HistoryChecker oneCommitted(GlobalRequest r) {
        HistoryChecker c = new HistoryChecker(2);
        c.submitted(r, HistoryChecker.Fate.ACCEPTED);
        List<RowChange> writes = r.execute(new TreeMap<>());
        assertThat(writes).isNotEmpty();
        c.executed(0, r.id(), new StateUpdate(1, 0, writes));
        return c;
    }

    private static GlobalRequest writer(long id, int instance) {
        // find a request id whose deterministic outcome writes something
        for (long i = id; ; i += 1000) {
            GlobalRequest r = new GlobalRequest(i, instance, new long[] {1}, new long[] {2});
            if (!r.execute(new TreeMap<>()).isEmpty()) return r;
        }
    }

    @Test
    void gapsRepeatsAndDivergentContentAreCaught() {
        GlobalRequest r = writer(1, 0);
        HistoryChecker c = oneCommitted(r);
        StateUpdate gsn1 = new StateUpdate(1, 0, r.execute(new TreeMap<>()));
        // instance 1 applies gsn 1 with other content
        assertThatThrownBy(() -> c.applied(1, update(1, 0, 99, 99))).isInstanceOf(SimulationFailure.class)
                .hasMessageContaining("gsn 1 differs at instance 1");
        // a gsn nobody executed
        assertThatThrownBy(() -> c.applied(1, update(2, 0, 1, 1))).isInstanceOf(SimulationFailure.class)
                .hasMessageContaining("that no instance executed");
        c.applied(1, gsn1);
        // applying it again is a repeat
        assertThatThrownBy(() -> c.applied(1, gsn1)).isInstanceOf(SimulationFailure.class)
                .hasMessageContaining("a repeat");
        // applying one's own update
        assertThatThrownBy(() -> c.applied(0, gsn1)).isInstanceOf(SimulationFailure.class)
                .hasMessageContaining("its own update");
    }

    @Test
    void aWriteThatSerialExecutionWouldNotMakeIsCaught() {
        GlobalRequest first = writer(1, 0);
        HistoryChecker c = oneCommitted(first);
        GlobalRequest second = writer(2, 1);
        c.submitted(second, HistoryChecker.Fate.ACCEPTED);
        // second "executed" on a database that had not seen gsn 1: what it wrote is not serializable
        List<RowChange> stale = second.execute(new TreeMap<>());
        TreeMap<Long, Long> after1 = new TreeMap<>();
        GlobalRequest.apply(first.execute(new TreeMap<>()), after1);
        if (stale.equals(second.execute(after1))) return; // this pair does not conflict; nothing to show
        assertThatThrownBy(() -> c.executed(1, second.id(), new StateUpdate(2, 1, stale)))
                .isInstanceOf(SimulationFailure.class).hasMessageContaining("not serializable");
    }

    @Test
    void doubleCompletionLostRequestsAndUnfinishedRequestsAreCaught() {
        GlobalRequest r = writer(1, 0);
        HistoryChecker c = oneCommitted(r);
        assertThatThrownBy(() -> c.completedWithoutUpdate(0, r.id(), true)).isInstanceOf(SimulationFailure.class)
                .hasMessageContaining("already COMMITTED");

        GlobalRequest lost = writer(2, 1);
        c.submitted(lost, HistoryChecker.Fate.ACCEPTED);
        c.crashed(1);
        assertThatThrownBy(() -> c.completedWithoutUpdate(1, lost.id(), false)).isInstanceOf(SimulationFailure.class)
                .hasMessageContaining("already LOST");

        GlobalRequest wrongPlace = writer(3, 1);
        c.submitted(wrongPlace, HistoryChecker.Fate.ACCEPTED);
        assertThatThrownBy(() -> c.completedWithoutUpdate(0, wrongPlace.id(), true))
                .isInstanceOf(SimulationFailure.class).hasMessageContaining("sent to 1 but completed at 0");
    }

    @Test
    void convergenceFailsWhenAnInstanceIsBehindOrARequestNeverRan() {
        GlobalRequest r = writer(1, 0);
        HistoryChecker c = new HistoryChecker(2);
        SimDatabase db0 = new SimDatabase(0, DurableState.initial(0), c);
        SimDatabase db1 = new SimDatabase(1, DurableState.initial(1), c);
        c.submitted(r, HistoryChecker.Fate.ACCEPTED);
        db0.commitGlobal(r.id(), new StateUpdate(1, 0, r.execute(db0.rows())));
        assertThatThrownBy(() -> c.checkConverged(List.of(db0, db1), new long[] {1, 1}))
                .isInstanceOf(SimulationFailure.class).hasMessageContaining("instance 1 committed gsns 1..0 of 1..1");

        GlobalRequest waiting = writer(2, 1);
        c.submitted(waiting, HistoryChecker.Fate.ACCEPTED);
        HistoryChecker fresh = new HistoryChecker(1);
        fresh.submitted(waiting, HistoryChecker.Fate.ACCEPTED);
        assertThatThrownBy(() -> fresh.checkConverged(List.of(new SimDatabase(0, DurableState.initial(0), fresh)),
                new long[] {0})).isInstanceOf(SimulationFailure.class).hasMessageContaining("never completed");
    }
}
