package dev.gyro.protocol;

import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.gyro.protocol.ConveyorBeltTokenCheckTest.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The token trimmed of what every instance applied (docs/decisions/26-trimmed-token.md): an instance that applied
 * updates ahead of the token tells their maker, and a holder leaves off the token it passes the updates every other
 * instance said it has, and only those.
 */
class ConveyorBeltTrimTokenTest {

    private static ConveyorBeltConfig config(int self, boolean trim) {
        return ConveyorBeltConfig.of(self, 3).withUpdatesAhead(true).withTrimToken(trim);
    }

    /** Instance 1 of 3 holding the token in a round of {@code count} globals, all but the last one committed. */
    private record Holder(ConveyorBelt belt, Action.ExecuteGlobal last) {
        /** The last global commits: the round ends and the token is passed. */
        Token finish() {
            belt.onGlobalExecuted(last.requestId(), update(last.gsn(), 1));
            return passed(belt.ready());
        }
    }

    private static Holder holderWith(int count, boolean trim) {
        ConveyorBelt holder = new ConveyorBelt(config(1, trim), DurableState.initial(1), 0);
        for (long id = 1; id <= count; id++) assertThat(holder.onGlobalRequest(id)).isTrue();
        holder.onMessage(new Message.TokenPass(0, new Token(1, List.of())));
        holder.ready();
        holder.onUpdatesApplied(1); // the round: every queued request, one at a time
        for (long id = 1; ; id++) {
            Action.ExecuteGlobal exec = holder.ready().stream().filter(a -> a instanceof Action.ExecuteGlobal)
                    .map(a -> (Action.ExecuteGlobal) a).findFirst().orElseThrow();
            assertThat(exec.requestId()).isEqualTo(id);
            if (id == count) return new Holder(holder, exec);
            holder.onGlobalExecuted(id, update(exec.gsn(), 1));
        }
    }

    private static Token passed(List<Action> actions) {
        return actions.stream().filter(a -> a instanceof Action.PassToken).map(a -> ((Action.PassToken) a).token())
                .findFirst().orElseThrow();
    }

    @Test
    void aFollowerTellsTheMakerOfTheLastGsnItAppliedAheadOnceCommitted() {
        ConveyorBelt belt = new ConveyorBelt(config(1, true), DurableState.initial(1), 0);
        belt.onMessage(new Message.UpdateAhead(0, update(1, 0)));
        belt.onMessage(new Message.UpdateAhead(2, update(2, 2)));
        List<Action> out = belt.ready();
        assertThat(out).noneMatch(a -> a instanceof Action.Send); // nothing is said before the apply committed
        for (Action a : out) belt.onAheadApplied((Action.ApplyAhead) a);
        assertThat(belt.ready()).containsExactly(new Action.Send(0, new Message.AppliedAhead(1, 1)),
                new Action.Send(2, new Message.AppliedAhead(1, 2)));
        // without trimming, nothing is said
        ConveyorBelt plain = new ConveyorBelt(config(1, false), DurableState.initial(1), 0);
        plain.onMessage(new Message.UpdateAhead(0, update(1, 0)));
        plain.onAheadApplied((Action.ApplyAhead) plain.ready().get(0));
        assertThat(plain.ready()).isEmpty();
    }

    @Test
    void theHolderLeavesOffTheTokenExactlyTheUpdatesEveryOtherInstanceApplied() {
        Holder holder = holderWith(3, true);
        holder.belt().onMessage(new Message.AppliedAhead(2, 2)); // instance 2 has 1 and 2
        holder.belt().onMessage(new Message.AppliedAhead(0, 1)); // instance 0 only 1
        holder.belt().onMessage(new Message.AppliedAhead(0, 1)); // a duplicate changes nothing
        Token token = holder.finish();
        assertThat(token.updates()).extracting(StateUpdate::gsn).as("gsn 1 stays behind: both have it")
                .containsExactly(2L, 3L);
        assertThat(token.hop()).isEqualTo(2);
        // the same round untrimmed carries all three
        assertThat(holderWith(3, false).finish().updates()).extracting(StateUpdate::gsn).containsExactly(1L, 2L, 3L);
    }

    @Test
    void aTokenWithUpdatesLeftBehindIsAppliedWithoutAGapByEveryInstanceThatGetsIt() {
        // instance 1 applied gsns 1 and 2 ahead; the token it gets carries only 3
        ConveyorBelt belt = new ConveyorBelt(config(1, true), DurableState.initial(1), 0);
        belt.onMessage(new Message.UpdateAhead(0, update(1, 0)));
        belt.onMessage(new Message.UpdateAhead(0, update(2, 0)));
        belt.ready();
        belt.onMessage(new Message.TokenPass(0, new Token(1, List.of(update(3, 0)))));
        Action.ApplyUpdates apply = (Action.ApplyUpdates) belt.ready().get(0);
        assertThat(apply.updates()).extracting(StateUpdate::gsn).containsExactly(3L);
        assertThat(apply.lastGsn()).isEqualTo(3);
        // one that has not applied gsn 2 finds the gap: such a token the belt never passes
        ConveyorBelt behind = new ConveyorBelt(config(1, true), DurableState.initial(1), 0);
        assertThatThrownBy(() -> behind.onMessage(new Message.TokenPass(0, new Token(1, List.of(update(3, 0))))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("gap in gsns");
    }

    @Test
    void aClaimToHaveAppliedAGsnTheReceiverNeverMadeIsRefusedAndTrimsNothing() {
        Holder holder = holderWith(2, true);
        assertThatThrownBy(() -> holder.belt().onMessage(new Message.AppliedAhead(2, 99)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("made gsns only up to 1");
        assertThatThrownBy(() -> holder.belt().onMessage(new Message.AppliedAhead(5, 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown instance 5");
        holder.belt().onMessage(new Message.AppliedAhead(2, 1)); // instance 2 has gsn 1, instance 0 said nothing
        assertThat(holder.finish().updates()).extracting(StateUpdate::gsn).containsExactly(1L, 2L);
    }

    @Test
    void aHolderRestartedFromItsDatabaseKnowsNothingAppliedAndCarriesEverything() {
        // held the token (recorded as received with gsn 1 of instance 2) and committed gsn 2 since, then crashed
        Token held = new Token(3, List.of(update(1, 2)));
        ConveyorBelt belt = new ConveyorBelt(config(0, true),
                new DurableState(2, DurableState.TokenStatus.HELD, held, List.of(update(2, 0))), 0);
        assertThat(passed(belt.ready()).updates()).extracting(StateUpdate::gsn).containsExactly(1L, 2L);
    }

    @Test
    void theAcknowledgementRoundTripsThroughTheCodec() {
        Message m = new Message.AppliedAhead(2, 41);
        assertThat(Codec.decodeMessage(Codec.encodeMessage(m))).isEqualTo(m);
        byte[] bytes = Codec.encodeMessage(m);
        assertThatThrownBy(() -> Codec.decodeMessage(java.util.Arrays.copyOf(bytes, bytes.length - 1)))
                .isInstanceOf(MalformedMessageException.class);
    }
}
