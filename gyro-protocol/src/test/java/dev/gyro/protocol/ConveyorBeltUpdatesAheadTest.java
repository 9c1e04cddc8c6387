package dev.gyro.protocol;

import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.gyro.protocol.ConveyorBeltTokenCheckTest.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Updates sent ahead of the token (docs/decisions/25-updates-ahead.md): the holder sends each update it commits to
 * every other instance; a follower applies the next gsns as soon as it has them all, in gsn order, never one twice, and
 * the token later applies only what is left.
 */
class ConveyorBeltUpdatesAheadTest {

    static ConveyorBelt follower(boolean ahead) {
        ConveyorBelt belt = new ConveyorBelt(ConveyorBeltConfig.of(1, 3).withUpdatesAhead(ahead),
                DurableState.initial(1), 0);
        assertThat(belt.ready()).isEmpty();
        return belt;
    }

    @Test
    void theHolderSendsEachUpdateItCommitsToEveryOtherInstance() {
        ConveyorBelt holder = new ConveyorBelt(ConveyorBeltConfig.of(0, 3).withUpdatesAhead(true),
                DurableState.initial(0), 0); // instance 0 starts with the token
        holder.ready();
        assertThat(holder.onGlobalRequest(7)).isTrue();
        Action.ExecuteGlobal exec = (Action.ExecuteGlobal) holder.ready().stream()
                .filter(a -> a instanceof Action.ExecuteGlobal).findFirst().orElseThrow();
        holder.onGlobalExecuted(7, update(exec.gsn(), 0));
        List<Action> out = holder.ready();
        assertThat(out).filteredOn(a -> a instanceof Action.Send s && s.message() instanceof Message.UpdateAhead)
                .extracting(a -> ((Action.Send) a).to()).containsExactlyInAnyOrder(1, 2);
        assertThat(out).filteredOn(a -> a instanceof Action.PassToken).hasSize(1);
        // without the option, the token alone carries it
        ConveyorBelt plain = new ConveyorBelt(ConveyorBeltConfig.of(0, 3), DurableState.initial(0), 0);
        plain.ready();
        plain.onGlobalRequest(7);
        plain.ready();
        plain.onGlobalExecuted(7, update(1, 0));
        assertThat(plain.ready()).noneMatch(a -> a instanceof Action.Send s && s.message() instanceof Message.UpdateAhead);
    }

    @Test
    void aFollowerAppliesTheNextGsnsInOrderOnceItHasThemAndTheTokenAppliesOnlyTheRest() {
        ConveyorBelt belt = follower(true);
        belt.onMessage(new Message.UpdateAhead(2, update(2, 2))); // gsn 1 is not here yet: it waits
        assertThat(belt.ready()).isEmpty();
        assertThat(belt.lastGsn()).isZero();
        belt.onMessage(new Message.UpdateAhead(0, update(1, 0))); // now 1 and 2 follow the last applied gsn
        Action.ApplyAhead first = (Action.ApplyAhead) belt.ready().get(0);
        assertThat(first.updates()).extracting(StateUpdate::gsn).containsExactly(1L, 2L);
        assertThat(first.lastGsn()).isEqualTo(2);
        assertThat(belt.lastGsn()).isEqualTo(2);
        belt.onMessage(new Message.UpdateAhead(0, update(1, 0))); // a duplicate, and one applied already
        belt.onMessage(new Message.UpdateAhead(2, update(2, 2)));
        assertThat(belt.ready()).isEmpty();
        // the token brings 1, 2 and 3: only 3 is left to apply, and the token keeps all three to pass on
        belt.onMessage(new Message.TokenPass(0, new Token(1, List.of(update(1, 0), update(2, 2), update(3, 0)))));
        Action.ApplyUpdates apply = (Action.ApplyUpdates) belt.ready().get(0);
        assertThat(apply.updates()).extracting(StateUpdate::gsn).containsExactly(3L);
        assertThat(apply.token().updates()).extracting(StateUpdate::gsn).containsExactly(1L, 2L, 3L);
        assertThat(apply.lastGsn()).isEqualTo(3);
        // while it holds the token, nothing comes ahead of it
        belt.onMessage(new Message.UpdateAhead(0, update(3, 0)));
        assertThat(belt.ready()).isEmpty();
    }

    @Test
    void anUpdateSentAheadBySomeoneElseThanItsOriginIsRefusedAndChangesNothing() {
        ConveyorBelt belt = follower(true);
        assertThatThrownBy(() -> belt.onMessage(new Message.UpdateAhead(2, update(1, 0))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sends only its own updates ahead");
        assertThatThrownBy(() -> belt.onMessage(new Message.UpdateAhead(7, update(1, 7))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown instance 7");
        assertThat(belt.ready()).isEmpty();
        assertThat(belt.lastGsn()).isZero();
    }

    @Test
    void withoutTheOptionAFollowerLeavesUpdatesToTheToken() {
        ConveyorBelt belt = follower(false);
        belt.onMessage(new Message.UpdateAhead(0, update(1, 0)));
        assertThat(belt.ready()).isEmpty();
        assertThat(belt.lastGsn()).isZero();
    }

    @Test
    void aRestartedFollowerGoesOnFromTheGsnItsDatabaseRecorded() {
        // its database applied gsns 1 and 2 ahead of the token and recorded 2; the token it passed is still unacknowledged
        Token passed = new Token(1, List.of());
        ConveyorBelt belt = new ConveyorBelt(ConveyorBeltConfig.of(1, 3).withUpdatesAhead(true),
                new DurableState(2, DurableState.TokenStatus.PASSED, passed, List.of()), 0);
        assertThat(belt.ready()).singleElement().isInstanceOf(Action.Send.class); // the token, resent
        belt.onMessage(new Message.UpdateAhead(0, update(3, 0)));
        Action.ApplyAhead ahead = (Action.ApplyAhead) belt.ready().get(0);
        assertThat(ahead.updates()).extracting(StateUpdate::gsn).containsExactly(3L);
    }

    @Test
    void aTokenThatBringsAnotherUpdateThanTheOneAppliedAheadStopsTheInstance() {
        ConveyorBelt belt = follower(true);
        StateUpdate forged = new StateUpdate(1, 0, List.of(new RowChange("T", RowChange.Kind.UPSERT, List.of("K"),
                List.of(new Value.Int(99)), List.of("K"))));
        belt.onMessage(new Message.UpdateAhead(0, forged));
        assertThat(belt.ready()).singleElement().isInstanceOf(Action.ApplyAhead.class);
        assertThatThrownBy(() -> belt.onMessage(new Message.TokenPass(0, new Token(1, List.of(update(1, 0))))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("a write the ring did not make");
        assertThat(belt.ready()).as("nothing more applied").isEmpty();
        assertThat(belt.role()).isEqualTo(ConveyorBelt.Role.FOLLOWER);
    }
}
