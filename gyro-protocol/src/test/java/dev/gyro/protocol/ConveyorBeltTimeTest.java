package dev.gyro.protocol;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ConveyorBelt#waitsForTime()}: a belt needs ticks only while a token it passed is unacknowledged or a request
 * waits for the token at a follower; a parked ring needs none, and a tick while a belt waits for no time asks nothing.
 */
class ConveyorBeltTimeTest {

    /** Whether ticking {@code belt} from {@code from} for a minute (every 10 ms) asks for any action. */
    private static boolean tickAsks(ConveyorBelt belt, long from) {
        for (long t = from; t <= from + 60_000; t += 10) {
            belt.onTick(t);
            if (!belt.ready().isEmpty()) return true;
        }
        return false;
    }

    @Test
    void waitsForTimeOnlyWhileATokenIsUnacknowledgedOrARequestWaitsForIt() {
        ConveyorBelt holder = new ConveyorBelt(ConveyorBeltConfig.of(0, 2), DurableState.initial(0), 0);
        ConveyorBelt follower = new ConveyorBelt(ConveyorBeltConfig.of(1, 2), DurableState.initial(1), 0);
        holder.ready();
        follower.ready();
        assertThat(holder.waitsForTime()).as("the token parked at its first holder").isFalse();
        assertThat(follower.waitsForTime()).as("a follower nobody waits at").isFalse();
        assertThat(tickAsks(holder, 10)).isFalse();
        assertThat(tickAsks(follower, 10)).isFalse();

        assertThat(follower.onGlobalRequest(7)).isTrue();
        assertThat(follower.waitsForTime()).as("a request waits for the token: WANTs are resent").isTrue();
        Message want = follower.ready().stream().map(a -> ((Action.Send) a).message()).findFirst().orElseThrow();

        holder.onMessage(want);
        Action.PassToken pass = holder.ready().stream().filter(a -> a instanceof Action.PassToken)
                .map(a -> (Action.PassToken) a).findFirst().orElseThrow();
        assertThat(holder.waitsForTime()).as("the token passed, not yet acknowledged: resent").isTrue();

        follower.onMessage(new Message.TokenPass(0, pass.token()));
        List<Action> asked = follower.ready();
        assertThat(asked).anyMatch(a -> a instanceof Action.ApplyUpdates);
        assertThat(follower.waitsForTime()).as("the token is here: nothing to resend").isFalse();
        follower.onUpdatesApplied(pass.token().hop());
        asked = new java.util.ArrayList<>(asked);
        asked.addAll(follower.ready());
        for (Action a : asked)
            if (a instanceof Action.Send s && s.to() == 0 && s.message() instanceof Message.TokenAck)
                holder.onMessage(s.message());
        holder.ready();
        assertThat(holder.waitsForTime()).as("the successor acknowledged the token").isFalse();
        assertThat(tickAsks(holder, 70_000)).isFalse();
    }
}
