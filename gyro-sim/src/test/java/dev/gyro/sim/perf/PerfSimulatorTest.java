package dev.gyro.sim.perf;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The performance simulator runs the real Conveyor Belt under a cost model: one seed gives one set of figures, local
 * requests scale with the instances, and a ring's global ceiling is the one the model's closed form predicts.
 */
class PerfSimulatorTest {

    /** The benchmarks' capacity emulation: 2 slots, 20 ms per transaction; apply 0.5 ms per update; a LAN. */
    static final PerfModel MODEL = PerfModel.lan(2, 20);

    @Test
    void theSameSeedGivesTheSameFigures() {
        PerfSetting setting = new PerfSetting(5, 3, true, 0.9, 4, 1_000, 2_000, 7);
        PerfResult first = PerfSimulator.run(MODEL, setting);
        PerfResult again = PerfSimulator.run(MODEL, setting);
        assertThat(first.globalThroughput()).isPositive();
        assertThat(first.tokenPasses()).isPositive();
        assertThat(again).isEqualTo(first);
        // and the seed is what decides: another one draws other clients' choices
        PerfResult other = PerfSimulator.run(MODEL, new PerfSetting(5, 3, true, 0.9, 4, 1_000, 2_000, 8));
        assertThat(other.events()).isNotEqualTo(first.events());
    }

    @Test
    void localRequestsScaleWithTheInstances() {
        // no global requests: every instance serves its own clients, 2 slots / 20 ms = 100 requests/s each
        double one = PerfSimulator.run(MODEL, new PerfSetting(1, 1, false, 1.0, 4, 1_000, 3_000, 1)).throughput();
        assertThat(one).isCloseTo(100, within(1.0));
        for (int n : new int[] {2, 8, 32}) {
            PerfResult r = PerfSimulator.run(MODEL, new PerfSetting(n, 1, false, 1.0, 4, 1_000, 3_000, 1));
            assertThat(r.throughput()).as("%d instances", n).isCloseTo(n * one, within(0.01 * n * one));
            assertThat(r.throughput()).isCloseTo(MODEL.capacity(n, 1.0), within(0.01 * MODEL.capacity(n, 1.0)));
            assertThat(r.tokenPasses()).as("nothing global, so the token stays parked").isZero();
            assertThat(r.steady()).isTrue();
        }
    }

    @Test
    void theGlobalCeilingOfASmallRingIsTheAnalyticOne() {
        // only global requests, on 3 instances: the token carries everything, so the ring runs at its ceiling,
        // 1 / (20 ms + 2 * 0.5 ms) = 47.6/s one at a time, 1 / (10 ms + 2 * 0.5 ms) = 90.9/s two at a time
        for (boolean parallel : new boolean[] {false, true}) {
            PerfResult r = PerfSimulator.run(MODEL, new PerfSetting(3, 1, parallel, 0.0, 8, 2_000, 5_000, 3));
            double ceiling = MODEL.globalCeiling(3, 1, parallel, 0, false);
            assertThat(ceiling).isCloseTo(parallel ? 90.9 : 47.6, within(0.1));
            assertThat(r.globalThroughput()).as("parallel %s: %s", parallel, r.summary())
                    .isCloseTo(ceiling, within(0.05 * ceiling));
            assertThat(r.steady()).isTrue();
        }
    }

    @Test
    void aMixedRingStaysWithinItsStatedToleranceOfTheClosedForm() {
        // 90% local on 4 instances: the closed form's slot wait is an approximation, hence 15%
        for (boolean parallel : new boolean[] {false, true}) {
            PerfResult r = PerfSimulator.run(MODEL, new PerfSetting(4, 1, parallel, 0.9, 4, 2_000, 5_000, 4));
            assertThat(r.steady()).as(r.summary()).isTrue();
            assertThat(r.throughput()).as(r.summary()).isCloseTo(r.expectedThroughput(),
                    within(0.15 * r.expectedThroughput()));
        }
    }

    @Test
    void moreBeltsRaiseTheGlobalCeiling() {
        // 32 instances at 95% local: one belt carries about 1 / (10 ms + 31 * 0.5 ms) = 39 globals/s, so the whole mix
        // runs at about 780/s of the instances' 3,200; eight belts carry eight times that, up to the instances' capacity
        PerfResult single = PerfSimulator.run(MODEL, new PerfSetting(32, 1, true, 0.95, 4, 2_000, 4_000, 5));
        PerfResult eight = PerfSimulator.run(MODEL, new PerfSetting(32, 8, true, 0.95, 4, 2_000, 4_000, 5));
        assertThat(single.throughput()).as(single.summary()).isLessThan(1_000);
        assertThat(eight.globalThroughput()).as(eight.summary()).isGreaterThan(2.5 * single.globalThroughput());
        assertThat(eight.throughput()).isGreaterThan(2.5 * single.throughput());
    }

    @Test
    void aWindowShorterThanTheQueuesTakeToFillIsNotSteady() {
        // 64 instances at 95% local on one belt: globals wait seconds, far longer than a 200 ms warm-up
        PerfResult r = PerfSimulator.run(MODEL, new PerfSetting(64, 1, false, 0.95, 4, 200, 1_000, 6));
        assertThat(r.steady()).as(r.summary()).isFalse();
    }
}
