package dev.gyro.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.Ring;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The checkers of ring changes (docs/decisions/44-ring-changes.md) can fail: a joiner started on a database copied
 * before its join, or on a copy without the ring's row, and instances whose databases ignore the ring's row, are caught; so are hand-made histories that
 * switch ring at different gsns, make gsns at non-members, or leave a member out at the end.
 */
class RingChangeCheckerCanFailTest {

    /** A runtime whose database never records the ring's row: after a restart its belt runs on the first ring. */
    static final class RingBlindDatabase extends SimDatabase {
        RingBlindDatabase(int instance, DurableState initial, CommitLog log) {
            super(instance, initial, log);
        }

        @Override
        protected void recordRing(StateUpdate u) {}
    }

    private static Simulator.Options rings(SimDatabase.Factory databases) {
        return Simulator.Options.of(false, databases).withRings();
    }

    @Test
    void aJoinerStartedOnADatabaseCopiedBeforeItsJoinIsCaught() {
        int joined = 0, caught = 0;
        List<String> failures = new ArrayList<>();
        for (long seed = 1; seed <= 80; seed++) {
            SimResult correct = Simulator.run(seed, rings(SimDatabase::new));
            assertThat(correct.ok()).as(correct.summary() + " " + correct.failure()).isTrue();
            if (correct.joins() == 0) continue;
            joined++;
            SimResult r = Simulator.run(seed, rings(SimDatabase::new).with(Simulator.JoinCopy.AT_THE_COMMIT));
            if (!r.ok()) {
                caught++;
                failures.add(r.failure());
                assertThat(r.replayCommand()).contains("deliberately broken");
            }
        }
        System.out.printf("a joiner on a copy taken at the commit: caught in %d of %d seeds with joins, e.g. %s%n", caught,
                joined, failures.isEmpty() ? "-" : failures.get(0).lines().findFirst().orElse(""));
        assertThat(joined).isGreaterThan(40);
        assertThat(caught).as("caught in %d of %d seeds with joins", caught, joined).isGreaterThan(joined / 4);
        assertThat(failures).anySatisfy(f -> assertThat(f).contains("before gsn").contains("made it a member"));
    }

    @Test
    void aJoinerOnACopyWithoutTheRingsRowIsCaught() {
        int joined = 0, caught = 0;
        List<String> failures = new ArrayList<>();
        for (long seed = 1; seed <= 30; seed++) {
            SimResult r = Simulator.run(seed, rings(SimDatabase::new).with(Simulator.JoinCopy.WITHOUT_THE_RING));
            if (r.joins() == 0) continue;
            joined++;
            if (!r.ok()) {
                caught++;
                failures.add(r.failure());
            }
        }
        assertThat(joined).isGreaterThan(15);
        assertThat(caught).as("caught in %d of %d seeds with joins", caught, joined).isEqualTo(joined);
        assertThat(failures).anySatisfy(f -> assertThat(f).contains("'s copied database holds the ring epoch 0"));
    }

    @Test
    void instancesWhoseDatabasesIgnoreTheRingAreCaught() {
        int changed = 0, caught = 0;
        List<String> failures = new ArrayList<>();
        for (long seed = 1; seed <= 40; seed++) {
            SimResult r = Simulator.run(seed, rings(RingBlindDatabase::new));
            if (r.joins() + r.leaves() == 0 && r.ok()) continue;
            changed++;
            if (!r.ok()) {
                caught++;
                failures.add(r.failure());
            }
        }
        System.out.printf("databases that ignore the ring: caught in %d of %d seeds with ring changes, e.g. %s%n", caught,
                changed, failures.isEmpty() ? "-" : failures.get(0).lines().findFirst().orElse(""));
        assertThat(changed).isGreaterThan(15);
        assertThat(caught).as("caught in %d of %d seeds with ring changes: %s", caught, changed, failures)
                .isGreaterThanOrEqualTo(changed * 9 / 10);
        assertThat(failures).anySatisfy(f -> assertThat(f).contains("'s database holds the ring"));
    }

    @Test
    void aSeedWithRingChangesReplaysExactly() {
        for (long seed = 1; seed <= 40; seed++) {
            SimResult first = Simulator.run(seed, Simulator.Options.of(true, SimDatabase::new).withRings());
            if (first.joins() == 0 || first.leaves() == 0) continue;
            SimResult again = Simulator.run(seed, Simulator.Options.of(true, SimDatabase::new).withRings());
            assertThat(again.trace()).isEqualTo(first.trace());
            assertThat(first.replayCommand()).contains("--seed " + seed + " --rings");
            return;
        }
        throw new AssertionError("no seed of 1..40 both joins and leaves");
    }

    // ---------------------------------------------------------------- the checker on hand-made histories

    private static GlobalRequest writer(long id, int instance) {
        for (long i = id; ; i += 1000) {
            GlobalRequest r = new GlobalRequest(i, instance, new long[] {1}, new long[] {2});
            if (!r.execute(new TreeMap<>()).isEmpty()) return r;
        }
    }

    /** Three ids, two members (0, 1): instance 0 runs request 1, a join of instance 2 after it, as gsn 1. */
    private static HistoryChecker joinedAtGsn1(Ring joined) {
        HistoryChecker c = new HistoryChecker(3, 2);
        GlobalRequest join = new GlobalRequest(1, 0, new long[0], new long[0]);
        c.submitted(join, HistoryChecker.Fate.ACCEPTED);
        c.executed(0, join.id(), new StateUpdate(1, 0, List.of(joined.change())));
        return c;
    }

    @Test
    void aRingHeldAtAnotherGsnIsCaught() {
        Ring first = Ring.initial(2);
        Ring three = first.next(List.of(0, 2, 1), 4, 0);
        HistoryChecker c = joinedAtGsn1(three);
        c.holdsRing(0, "Conveyor Belt", 1, three);
        c.holdsRing(1, "database", 0, null);
        assertThatThrownBy(() -> c.holdsRing(1, "database", 1, null)).isInstanceOf(SimulationFailure.class)
                .hasMessageContaining("instance 1's database holds the ring epoch 0").hasMessageContaining("after gsn 1");
        assertThatThrownBy(() -> c.holdsRing(0, "Conveyor Belt", 0, three)).isInstanceOf(SimulationFailure.class)
                .hasMessageContaining("holds the ring epoch 1");
    }

    @Test
    void aGsnMadeByANonMemberOrAChangeThatSkipsAnEpochIsCaught() {
        HistoryChecker c = new HistoryChecker(3, 2);
        GlobalRequest outsider = writer(1, 2);
        c.submitted(outsider, HistoryChecker.Fate.ACCEPTED);
        assertThatThrownBy(() -> c.executed(2, outsider.id(), new StateUpdate(1, 2, outsider.execute(new TreeMap<>()))))
                .isInstanceOf(SimulationFailure.class).hasMessageContaining("is no member of the ring");
        HistoryChecker d = new HistoryChecker(3, 2);
        GlobalRequest skip = new GlobalRequest(2, 0, new long[0], new long[0]);
        d.submitted(skip, HistoryChecker.Fate.ACCEPTED);
        Ring epoch2 = new Ring(2, List.of(0, 1, 2), 0, 0);
        assertThatThrownBy(() -> d.executed(0, skip.id(), new StateUpdate(1, 0, List.of(epoch2.change()))))
                .isInstanceOf(SimulationFailure.class).hasMessageContaining("changes the ring to epoch 2");
    }

    @Test
    void aJoinerOnACopyBeforeItsJoinOrAMissingMemberAtTheEndIsCaught() {
        Ring three = Ring.initial(2).next(List.of(0, 2, 1), 0, 0);
        HistoryChecker c = joinedAtGsn1(three);
        SimDatabase empty = new SimDatabase(2, new DurableState(0, DurableState.TokenStatus.NONE, null, List.of()), c);
        assertThatThrownBy(() -> c.joined(2, 1, empty)).isInstanceOf(SimulationFailure.class)
                .hasMessageContaining("at gsn 0, before gsn 1 made it a member");

        SimDatabase db0 = new SimDatabase(0, DurableState.initial(0), c);
        SimDatabase db1 = new SimDatabase(1, DurableState.initial(1), c);
        // instance 2 never started, though a member of the final ring
        assertThatThrownBy(() -> c.checkConverged(List.of(db0, db1), new long[] {1, 0, 0}))
                .isInstanceOf(SimulationFailure.class).hasMessageContaining("instance 2, a member of the final ring");
    }
}
