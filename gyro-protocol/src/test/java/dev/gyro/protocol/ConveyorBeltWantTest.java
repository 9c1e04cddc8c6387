package dev.gyro.protocol;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A waiting instance repeats its WANT, each time after twice as long as the time before, up to
 * {@link ConveyorBelt#WANT_BACKOFF_LIMIT} times {@link ConveyorBeltConfig#wantResendMillis()}: one delivered WANT is
 * enough, so repeats only make up for lost ones. The next wait starts over.
 */
class ConveyorBeltWantTest {

    /** The times, from 0 to {@code until} in steps of 10 ms, at which {@code belt} broadcast a WANT. */
    private static List<Long> wantsUntil(ConveyorBelt belt, long from, long until) {
        List<Long> at = new ArrayList<>();
        for (long t = from; t <= until; t += 10) {
            belt.onTick(t);
            List<Action> sent = belt.ready();
            long wants = sent.stream().filter(a -> a instanceof Action.Send s && s.message() instanceof Message.Want).count();
            if (wants > 0) {
                assertThat(wants).as("to every other instance at " + t).isEqualTo(2);
                at.add(t);
            }
        }
        return at;
    }

    @Test
    void repeatsBackOffUntilTheTokenComesAndTheNextWaitStartsOver() {
        ConveyorBelt belt = new ConveyorBelt(ConveyorBeltConfig.of(1, 3), DurableState.initial(1), 0);
        belt.ready();
        assertThat(belt.onGlobalRequest(7)).isTrue();
        assertThat(belt.ready()).as("the first WANT at once").hasSize(2);
        // wantResendMillis 200: repeats 200, 400, 800, then 1600 (8 x 200) apart
        assertThat(wantsUntil(belt, 10, 6_200)).containsExactly(200L, 600L, 1_400L, 3_000L, 4_600L, 6_200L);
        assertThat(belt.onGlobalRequest(8)).isTrue(); // one more request of the same wait asks nothing new
        assertThat(belt.ready()).isEmpty();

        // the token comes: the two requests run and write, so the token goes on with their updates
        belt.onTick(6_300);
        belt.onMessage(new Message.TokenPass(0, new Token(1, List.of())));
        belt.ready();
        belt.onUpdatesApplied(1);
        for (int i = 0; i < 2; i++) {
            Action.ExecuteGlobal run = belt.ready().stream().filter(a -> a instanceof Action.ExecuteGlobal)
                    .map(a -> (Action.ExecuteGlobal) a).findFirst().orElseThrow();
            belt.onGlobalExecuted(run.requestId(), ConveyorBeltTokenCheckTest.update(run.gsn(), 1));
        }
        assertThat(belt.ready()).anyMatch(a -> a instanceof Action.PassToken);
        assertThat(belt.role()).isEqualTo(ConveyorBelt.Role.FOLLOWER);

        // a new wait: its first WANT at once, and its repeats 200 ms apart again at first
        assertThat(belt.onGlobalRequest(9)).isTrue();
        assertThat(belt.ready()).hasSize(2).allMatch(a -> a instanceof Action.Send s && s.message() instanceof Message.Want);
        assertThat(wantsUntil(belt, 6_310, 7_200)).containsExactly(6_500L, 6_900L);
    }
}
