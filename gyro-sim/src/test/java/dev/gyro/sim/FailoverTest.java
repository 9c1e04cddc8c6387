package dev.gyro.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Leader change at every step of a round (docs/decisions/24-ring-on-groups.md): each ring position a replicated group
 * whose leader fails over right after the k-th step of its instance, for every k of a round ({@link FailoverSweep});
 * every run passes every checker of {@link HistoryChecker} (exactly once, serial equivalence, convergence, liveness
 * after the faults stop).
 */
class FailoverTest {

    /**
     * Seeds whose sweeps together reach every step: rings of 1 to 5; globals one at a time (18), in parallel (30, 58)
     * and in parallel on snapshots (3, 5); a token parked (5, 30), a retried apply (9), aborted commits (3, 58).
     */
    static final long[] SWEPT = {3, 5, 9, 18, 30, 58};

    @Test
    void aFailoverAtEveryStepOfARoundOfEveryInstanceIsSafe() {
        Set<String> covered = new TreeSet<>();
        List<String> failures = new ArrayList<>();
        int runs = 0;
        for (long seed : SWEPT) {
            int instances = SimSettings.of(seed).instances();
            for (int node = 0; node < instances; node++) {
                FailoverSweep.Report report = FailoverSweep.sweep(seed, node);
                assertThat(report.to() - report.from()).as("seed %d instance %d: a round of several steps", seed, node)
                        .isGreaterThanOrEqualTo(8);
                runs += report.runs();
                covered.addAll(report.covered());
                for (SimResult r : report.failures())
                    failures.add(r.summary() + "\n  " + r.failure() + "\n  replay: " + r.replayCommand());
            }
        }
        System.out.printf("failover sweep: %d runs over %d seeds, %d failed; covered %s%n", runs, SWEPT.length,
                failures.size(), covered);
        assertThat(failures).as("failovers that broke a checker").isEmpty();

        Set<String> required = new TreeSet<>();
        for (SimNode.Step step : SimNode.Step.values()) {
            if (step.name().endsWith("_IN_LOG")) {
                required.add(step + " committed"); // UNKNOWN to the old leader, in the new leader's database
                required.add(step + " not committed");
            } else {
                required.add(step.name());
            }
        }
        required.add("PASS_IN_LOG committed (just started)"); // a new leader deposed with its first entry in the log
        assertThat(covered).as("where the failovers landed").containsAll(required);
    }

    @Test
    void seededFailoversLandAtStepsOfEveryKindAndSettleTheLogBothWays() {
        Set<SimNode.Step> at = EnumSet.noneOf(SimNode.Step.class);
        Set<String> settled = new TreeSet<>();
        int failovers = 0, seeds = 0;
        for (long seed = 1; seed <= 400; seed++) {
            SimResult r = Simulator.run(seed);
            if (!r.settings().replicated()) {
                assertThat(r.failovers()).isEmpty();
                continue;
            }
            seeds++;
            assertThat(r.ok()).as(r.summary() + "\n" + r.failure() + "\nreplay: " + r.replayCommand()).isTrue();
            failovers += r.failovers().size();
            for (SimResult.Failover f : r.failovers()) {
                at.add(f.at());
                settled.addAll(f.settled());
            }
        }
        assertThat(seeds).as("a quarter of the seeds run on replicated groups").isBetween(70, 130);
        assertThat(failovers).isGreaterThan(300);
        assertThat(at).contains(SimNode.Step.TOKEN_RECEIVED, SimNode.Step.APPLY_IN_LOG, SimNode.Step.ROUND_STARTED,
                SimNode.Step.GLOBAL_IN_LOG, SimNode.Step.GLOBAL_COMMITTED, SimNode.Step.PASS_IN_LOG,
                SimNode.Step.PASS_SENT, SimNode.Step.PARKED);
        assertThat(settled).contains("APPLY committed", "APPLY not committed", "GLOBAL committed",
                "GLOBAL not committed", "PASS committed", "PASS not committed");
    }

    @Test
    void anInjectedFailoverReplaysAndShowsInTheTrace() {
        // seed 3, instance 1: the first step that left a global request's entry in its group's log
        SimResult first = Simulator.run(3, Simulator.Options.sweep(false, null, 1));
        long k = first.steps().indexOf(SimNode.Step.GLOBAL_IN_LOG) + 1;
        assertThat(k).isPositive();
        Simulator.Injection inject = new Simulator.Injection(1, k, true);
        SimResult traced = Simulator.run(3, Simulator.Options.sweep(true, inject, -1));
        SimResult again = Simulator.run(3, Simulator.Options.sweep(true, inject, -1));
        assertThat(traced.ok()).as(traced.failure()).isTrue();
        assertThat(again.trace()).isEqualTo(traced.trace());
        assertThat(traced.trace()).anySatisfy(line -> assertThat(line)
                .contains("1 FAILS OVER after its step " + k + " (GLOBAL_IN_LOG"));
        assertThat(traced.trace()).anySatisfy(line -> assertThat(line)
                .contains(": committed by the group's log, UNKNOWN to the old leader"));
        assertThat(traced.trace()).anySatisfy(line -> assertThat(line).contains("1's group has a new leader"));
        assertThat(traced.replayCommand()).contains("--seed 3 --failover-at 1:" + k + ":commit --trace");
        assertThat(traced.failovers()).singleElement().satisfies(f -> {
            assertThat(f.step()).isEqualTo(k);
            assertThat(f.settled()).containsExactly("GLOBAL committed");
        });
    }
}
