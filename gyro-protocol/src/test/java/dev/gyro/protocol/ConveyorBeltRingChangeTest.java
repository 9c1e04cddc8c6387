package dev.gyro.protocol;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.gyro.protocol.ConveyorBeltTokenCheckTest.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Ring changes (docs/decisions/44-ring-changes.md): a membership change is a global request's update, made by the
 * token's holder; its holder passes by the new ring at once, every other instance takes it with the update (with the
 * token, or ahead of it), and the hop arithmetic that tells a database behind the ring follows the new ring.
 */
class ConveyorBeltRingChangeTest {

    static ConveyorBeltConfig config(int self) {
        return ConveyorBeltConfig.of(self, 3).withUpdatesAhead(true).withTrimToken(true);
    }

    /** An update of gsn {@code gsn} by {@code origin} that makes {@code ring}. */
    static StateUpdate change(long gsn, int origin, Ring ring) {
        List<RowChange> changes = new ArrayList<>(update(gsn, origin).changes());
        changes.add(ring.change());
        return new StateUpdate(gsn, origin, changes);
    }

    static <A extends Action> A only(List<Action> actions, Class<A> kind) {
        return actions.stream().filter(kind::isInstance).map(kind::cast).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind.getSimpleName() + " in " + actions));
    }

    /** Instance {@code self} of the first ring of 3 receives hop {@code hop} from its predecessor and runs one global. */
    static ConveyorBelt holdingWithOneGlobal(int self, long hop, DurableState state) {
        ConveyorBelt belt = new ConveyorBelt(config(self), state, 0);
        assertThat(belt.onGlobalRequest(1)).isTrue();
        belt.onMessage(new Message.TokenPass((self + 2) % 3, new Token(hop, List.of())));
        belt.ready();
        belt.onUpdatesApplied(hop);
        assertThat(only(belt.ready(), Action.ExecuteGlobal.class).gsn()).isEqualTo(state.lastGsn() + 1);
        return belt;
    }

    @Test
    void aRingRowRecordsItsRing() {
        Ring r = new Ring(3, List.of(0, 2, 5), 17, 2);
        assertThat(Ring.in(List.of(r.change()))).isEqualTo(r);
        assertThat(change(4, 2, r).ring()).isEqualTo(r);
        assertThat(update(4, 2).ring()).isNull();
        assertThatThrownBy(() -> new StateUpdate(4, 1, List.of(r.change()))).hasMessageContaining("holder");
    }

    @Test
    void hopsFollowTheRingFromWhereItChanged() {
        Ring first = Ring.initial(3);
        assertThat(first.nextHop(1, -1)).isEqualTo(1);
        assertThat(first.nextHop(1, 1)).isEqualTo(4);
        // instance 3 joins after 2, which made the change at hop 5
        Ring four = first.next(List.of(0, 1, 2, 3), 5, 2);
        assertThat(four.nextHop(3, -1)).isEqualTo(6);
        assertThat(four.nextHop(0, 3)).isEqualTo(7);
        assertThat(four.nextHop(1, 4)).isEqualTo(8);
        assertThat(four.nextHop(2, 5)).isEqualTo(9);
        assertThat(four.holderOf(10)).isEqualTo(3);
        assertThat(four.successor(2)).isEqualTo(3);
        assertThat(four.predecessor(0)).isEqualTo(3);
    }

    @Test
    void aJoinIsPassedByTheNewRingAndTakenByEveryInstanceWithItsUpdate() {
        // instance 2 holds hop 2 and runs the change that adds instance 3 after it
        ConveyorBelt two = holdingWithOneGlobal(2, 2, DurableState.initial(2));
        Ring four = Ring.initial(3).next(List.of(0, 1, 2, 3), 2, 2);
        two.onGlobalExecuted(1, change(1, 2, four));
        List<Action> out = two.ready();
        Action.PassToken pass = only(out, Action.PassToken.class);
        assertThat(pass.to()).isEqualTo(3);
        assertThat(pass.token().hop()).isEqualTo(3);
        assertThat(two.ring()).isEqualTo(four);
        // the update goes ahead to every member of the new ring, the newcomer included
        assertThat(out).filteredOn(a -> a instanceof Action.Send s && s.message() instanceof Message.UpdateAhead)
                .extracting(a -> ((Action.Send) a).to()).containsExactlyInAnyOrder(0, 1, 3);

        // instance 3 starts on a copy of a database that holds the change (gsn 1): it takes hop 3 from 2
        ConveyorBelt three = new ConveyorBelt(ConveyorBeltConfig.of(3, 4).withUpdatesAhead(true).withTrimToken(true),
                new DurableState(1, DurableState.TokenStatus.NONE, null, List.of(), four), 0);
        three.onMessage(new Message.TokenPass(2, pass.token()));
        Action.ApplyUpdates applied = only(three.ready(), Action.ApplyUpdates.class);
        assertThat(applied.updates()).isEmpty(); // gsn 1 is in its database already
        three.onUpdatesApplied(3);
        assertThat(only(three.ready(), Action.PassToken.class).to()).isZero();

        // a token that carries the change but comes from 2 is no token of the new ring at instance 0
        ConveyorBelt zero = new ConveyorBelt(config(0), new DurableState(0, DurableState.TokenStatus.PASSED,
                new Token(1, List.of()), List.of()), 0);
        zero.ready();
        assertThatThrownBy(() -> zero.onMessage(new Message.TokenPass(2, new Token(4, List.of(change(1, 2, four))))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("predecessor in the ring is 3");
        assertThat(zero.ring().epoch()).isZero(); // refused: nothing changed
    }

    @Test
    void aMemberThatMissedTheChangeTakesItFromTheTokenOfItsNewPredecessor() {
        Ring four = Ring.initial(3).next(List.of(0, 1, 2, 3), 2, 2);
        // instance 0 received hop 0 (it started with it) and passed it; it took nothing ahead
        ConveyorBelt zero = new ConveyorBelt(config(0), new DurableState(0, DurableState.TokenStatus.PASSED,
                new Token(1, List.of()), List.of()), 0);
        zero.ready();
        zero.onMessage(new Message.TokenAck(1, 1));
        // hop 4 comes from 3 and carries the change (gsn 1, by 2): first ring, 0 would expect hop 3 from 2
        zero.onMessage(new Message.TokenPass(3, new Token(4, List.of(change(1, 2, four)))));
        Action.ApplyUpdates applied = only(zero.ready(), Action.ApplyUpdates.class);
        assertThat(applied.updates()).extracting(StateUpdate::gsn).containsExactly(1L);
        assertThat(zero.ring()).isEqualTo(four);
        zero.onUpdatesApplied(4);
        assertThat(zero.ready()).contains(new Action.Send(3, new Message.TokenAck(0, 4)));
    }

    @Test
    void aLeaveRoutesTheTokenAroundTheMemberAndItsUpdatesAreDroppedByTheMemberThatMadeTheChange() {
        // ring of 4; instance 0 holds hop 4 and takes 2 out; 2's update of gsn 1 is still on the token
        Ring four = Ring.initial(3).next(List.of(0, 1, 2, 3), 2, 2);
        ConveyorBelt zero = new ConveyorBelt(config(0), new DurableState(1, DurableState.TokenStatus.NONE, null,
                List.of(), four), 0);
        assertThat(zero.onGlobalRequest(1)).isTrue();
        zero.ready();
        zero.onMessage(new Message.TokenPass(3, new Token(4, List.of(change(1, 2, four)))));
        zero.ready();
        zero.onUpdatesApplied(4);
        assertThat(only(zero.ready(), Action.ExecuteGlobal.class).gsn()).isEqualTo(2);
        Ring three = four.next(List.of(0, 1, 3), 4, 0);
        zero.onGlobalExecuted(1, change(2, 0, three));
        Action.PassToken pass = only(zero.ready(), Action.PassToken.class);
        assertThat(pass.to()).isEqualTo(1);
        assertThat(pass.token().updates()).extracting(StateUpdate::gsn).containsExactly(1L, 2L);

        // instance 2, out of the ring, takes no global request any more
        ConveyorBelt two = new ConveyorBelt(ConveyorBeltConfig.of(2, 4), new DurableState(2,
                DurableState.TokenStatus.NONE, null, List.of(), three), 0);
        assertThat(two.onGlobalRequest(7)).isFalse();

        // instance 1 passes hop 5 to 3, not to 2
        ConveyorBelt one = new ConveyorBelt(config(1), new DurableState(1, DurableState.TokenStatus.NONE, null,
                List.of(), four), 0);
        one.onMessage(new Message.TokenPass(0, pass.token()));
        one.ready();
        one.onUpdatesApplied(5);
        assertThat(one.ring()).isEqualTo(three);
        Action.PassToken onward = only(one.ready(), Action.PassToken.class);
        assertThat(onward.to()).isEqualTo(3);

        // back at 0 after the whole new ring (hop 7): 2's update is left behind, as its maker would have
        zero.onMessage(new Message.TokenPass(3, new Token(7, List.of(change(1, 2, four), change(2, 0, three)))));
        Action.ApplyUpdates back = only(zero.ready(), Action.ApplyUpdates.class);
        assertThat(back.token().updates()).isEmpty();
    }

    /**
     * Found by the simulator (seed 169 with ring changes, {@code Simulator --seed 169 --rings}): the maker of a leave
     * sent its update ahead only to the members of the new ring, so the member taken out, which the token no longer
     * visits, never heard that it was out and went on taking global requests that could never run.
     */
    @Test
    void theMemberALeaveTakesOutIsSentItsUpdateAheadAndThenRefusesGlobalRequests() {
        Ring four = Ring.initial(3).next(List.of(0, 1, 2, 3), 2, 2);
        ConveyorBelt zero = new ConveyorBelt(config(0), new DurableState(1, DurableState.TokenStatus.NONE, null,
                List.of(), four), 0);
        assertThat(zero.onGlobalRequest(1)).isTrue();
        zero.ready();
        zero.onMessage(new Message.TokenPass(3, new Token(4, List.of(change(1, 2, four)))));
        zero.ready();
        zero.onUpdatesApplied(4);
        zero.ready();
        Ring three = four.next(List.of(0, 1, 3), 4, 0);
        StateUpdate leave = change(2, 0, three);
        zero.onGlobalExecuted(1, leave);
        List<Integer> sentAhead = zero.ready().stream().filter(a -> a instanceof Action.Send s
                && s.message() instanceof Message.UpdateAhead).map(a -> ((Action.Send) a).to()).toList();
        assertThat(sentAhead).containsExactlyInAnyOrder(1, 2, 3);

        // instance 2 has gsn 1, applies its removal ahead, and is out: no global request, no AppliedAhead
        ConveyorBelt two = new ConveyorBelt(config(2), new DurableState(1, DurableState.TokenStatus.PASSED,
                new Token(3, List.of(change(1, 2, four))), List.of(), four), 0);
        two.ready();
        two.onMessage(new Message.UpdateAhead(0, leave));
        Action.ApplyAhead applied = only(two.ready(), Action.ApplyAhead.class);
        assertThat(applied.lastGsn()).isEqualTo(2);
        assertThat(two.ring()).isEqualTo(three);
        two.onAheadApplied(applied);
        assertThat(two.ready()).isEmpty();
        assertThat(two.onGlobalRequest(7)).isFalse();
    }

    @Test
    void aTokenPassedBeforeTheRingChangedIsNotSentAgainAfterARestart() {
        Ring four = Ring.initial(3).next(List.of(0, 1, 2, 3), 2, 2);
        // instance 1 passed hop 1; the change was made at hop 2 and reached it ahead; then it restarted
        ConveyorBelt one = new ConveyorBelt(config(1), new DurableState(1, DurableState.TokenStatus.PASSED,
                new Token(2, List.of()), List.of(), four), 0);
        assertThat(one.ready()).isEmpty();
        assertThat(one.waitsForTime()).isFalse();
    }

    @Test
    void aDatabaseBehindTheChangedRingIsTold() {
        Ring four = Ring.initial(3).next(List.of(0, 1, 2, 3), 2, 2);
        ConveyorBelt three = new ConveyorBelt(ConveyorBeltConfig.of(3, 4), new DurableState(1,
                DurableState.TokenStatus.NONE, null, List.of(), four), 0);
        // hop 3 went by without it; hop 7 is its next one
        assertThatThrownBy(() -> three.onMessage(new Message.TokenPass(2, new Token(7, List.of()))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("behind the ring");
    }
}
