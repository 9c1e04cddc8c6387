package dev.gyro.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * A leader change at every step of the round in which a ring change is made (docs/decisions/44-ring-changes.md,
 * decision 24 for the failover): before the change runs, while its transaction is in the group's log (committed after
 * all, or not), after it committed but before its belt heard, and after the token left by the new ring. Either the
 * change is there in full, in the database and its outbox, so on the token, or not at all; every checker must pass.
 * Sweep more rounds with {@code -Dgyro.sim.rounds=R}, from another seed with {@code -Dgyro.sim.from=S}.
 */
class RingChangeSweepTest {

    @Test
    void aFailoverAtEveryStepOfARoundThatChangesTheRingIsSafeAndConverges() {
        int rounds = Integer.getInteger("gyro.sim.rounds", 3);
        long from = Long.getLong("gyro.sim.from", 1);
        int swept = 0, runs = 0;
        Set<String> covered = new TreeSet<>();
        List<String> failed = new ArrayList<>();
        for (long seed = from; seed < from + 20L * rounds && swept < rounds; seed++) {
            FailoverSweep.Report r = FailoverSweep.sweepRingChange(seed);
            if (r.runs() == 0) continue;
            swept++;
            runs += r.runs();
            covered.addAll(r.covered());
            System.out.println(r.describe());
            if (!r.failures().isEmpty()) failed.add(r.describe());
        }
        System.out.printf("%d rounds with a ring change swept, %d runs, covered %s%n", swept, runs, covered);
        assertThat(failed).isEmpty();
        assertThat(swept).isEqualTo(rounds);
        assertThat(covered).contains("GLOBAL_IN_LOG committed", "GLOBAL_IN_LOG not committed", "GLOBAL_COMMITTED",
                "TOKEN_RECEIVED");
    }
}
