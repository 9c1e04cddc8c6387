package dev.gyro.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** One seed, one run: replaying a seed reproduces every event, which is what makes a failing seed debuggable. */
class ReplayTest {

    @Test
    void replayingASeedGivesAnIdenticalTrace() {
        for (long seed : new long[] {7, 4242, 90210}) {
            SimResult first = Simulator.run(seed, true, SimDatabase::new);
            SimResult again = Simulator.run(seed, true, SimDatabase::new);
            assertThat(first.ok()).as(first.summary() + " " + first.failure()).isTrue();
            assertThat(first.gsns()).as(first.summary()).isPositive();
            assertThat(first.trace().size()).as(first.summary()).isGreaterThan(50);
            assertThat(again.trace()).isEqualTo(first.trace());
            assertThat(again.summary()).isEqualTo(first.summary());
        }
    }

    @Test
    void aSeedWithFailoversReplaysWithThemInItsTrace() {
        // seed 37: replicated groups whose leaders fail over, the deposed ones running on for a while (decision 24)
        SimResult first = Simulator.run(37, true, SimDatabase::new);
        SimResult again = Simulator.run(37, true, SimDatabase::new);
        assertThat(first.ok()).as(first.summary() + " " + first.failure()).isTrue();
        assertThat(first.settings().replicated()).isTrue();
        assertThat(first.failovers()).isNotEmpty();
        assertThat(first.trace()).anySatisfy(line -> assertThat(line).contains(" FAILS OVER after its step "));
        assertThat(first.trace()).anySatisfy(line -> assertThat(line).contains("'s deposed leader"));
        assertThat(again.trace()).isEqualTo(first.trace());
        assertThat(Simulator.run(37).summary()).isEqualTo(first.summary());
    }

    @Test
    void tracingDoesNotChangeTheRun() {
        SimResult traced = Simulator.run(77, true, SimDatabase::new);
        SimResult plain = Simulator.run(77);
        assertThat(plain.summary()).isEqualTo(traced.summary());
    }

    @Test
    void differentSeedsGiveDifferentRuns() {
        assertThat(Simulator.run(1, true, SimDatabase::new).trace())
                .isNotEqualTo(Simulator.run(2, true, SimDatabase::new).trace());
    }
}
