package dev.gyro.protocol;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A token the belt did not make is refused before anything changes (docs/decisions/11-fail-stop.md): gsns that skip
 * (that repeat or go back cannot even be decoded), and updates from no member of the ring. The instance asks for
 * nothing to be applied, and the same instance still takes the right token afterwards. Acknowledgements count only from
 * the successor, the one the token went to.
 */
class ConveyorBeltTokenCheckTest {

    static StateUpdate update(long gsn, int origin) {
        return new StateUpdate(gsn, origin, List.of(new RowChange("T", RowChange.Kind.UPSERT, List.of("K"),
                List.of(new Value.Int(gsn)), List.of("K"))));
    }

    static ConveyorBelt follower() {
        ConveyorBelt belt = new ConveyorBelt(ConveyorBeltConfig.of(1, 3), DurableState.initial(1), 0);
        assertThat(belt.ready()).isEmpty();
        return belt;
    }

    @Test
    void aTokenThatRepeatsOrReordersGsnsCannotEvenBeDecoded() {
        for (List<StateUpdate> bad : List.of(List.of(update(1, 0), update(1, 0)), List.of(update(2, 0), update(1, 0)))) {
            byte[] bytes = Codec.encodeMessage(new Message.TokenPass(0, new Token(1, List.of(update(1, 0)))));
            byte[] one = Codec.encodeUpdate(bad.get(0)), two = Codec.encodeUpdate(bad.get(1));
            // the token's encoding with its one update replaced by the two out of order
            byte[] forged = new byte[bytes.length + two.length - 1];
            int head = bytes.length - (one.length - 1);
            System.arraycopy(bytes, 0, forged, 0, head);
            java.nio.ByteBuffer.wrap(forged, head - 4, 4).putInt(2);
            System.arraycopy(one, 1, forged, head, one.length - 1);
            System.arraycopy(two, 1, forged, head + one.length - 1, two.length - 1);
            assertThatThrownBy(() -> Codec.decodeMessage(forged)).isInstanceOf(MalformedMessageException.class)
                    .hasMessageContaining("out of gsn order");
        }
    }

    @Test
    void aTokenThatSkipsAGsnOrCarriesAnUpdateOfANonMemberChangesNothing() {
        for (List<StateUpdate> bad : List.of(
                List.of(update(1, 0), update(3, 0)),        // skips gsn 2
                List.of(update(1, 7)))) {                   // instance 7 of a ring of 3
            ConveyorBelt belt = follower();
            assertThatThrownBy(() -> belt.onMessage(new Message.TokenPass(0, new Token(1, bad))))
                    .as(bad.toString()).isInstanceOf(IllegalStateException.class)
                    .hasMessageMatching(".*(gap in gsns|no member of the ring).*");
            assertThat(belt.ready()).as("nothing to apply").isEmpty();
            assertThat(belt.lastGsn()).isZero();
            assertThat(belt.lastReceivedHop()).isEqualTo(-1);
            assertThat(belt.role()).isEqualTo(ConveyorBelt.Role.FOLLOWER);
        }
    }

    @Test
    void aTokenOfALaterRoundThanTheNextThisInstanceCanHoldMeansItsDatabaseIsBehindTheRing() {
        // instance 1 of 3 holds hops 1, 4, 7, ...; a fresh database has received none, so hop 1 comes next
        ConveyorBelt behind = follower();
        assertThatThrownBy(() -> behind.onMessage(new Message.TokenPass(0, new Token(7, List.of(update(1, 0))))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("can receive hop 1 next")
                .hasMessageContaining("database is behind the ring");
        ConveyorBelt notItsHop = follower();
        assertThatThrownBy(() -> notItsHop.onMessage(new Message.TokenPass(0, new Token(2, List.of()))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no hop this instance can hold");
        for (ConveyorBelt belt : List.of(behind, notItsHop)) {
            assertThat(belt.ready()).as("nothing to apply").isEmpty();
            assertThat(belt.lastReceivedHop()).isEqualTo(-1);
        }
        ConveyorBelt right = follower();
        right.onMessage(new Message.TokenPass(0, new Token(1, List.of(update(1, 0)))));
        assertThat(right.ready()).singleElement().isInstanceOf(Action.ApplyUpdates.class);
    }

    @Test
    void anAcknowledgementCountsOnlyFromTheSuccessor() {
        ConveyorBelt belt = new ConveyorBelt(ConveyorBeltConfig.of(0, 3), DurableState.initial(0), 0);
        belt.ready();
        belt.onMessage(new Message.Want(2)); // the parked holder passes the token on to instance 1
        assertThat(belt.ready()).anyMatch(a -> a instanceof Action.PassToken p && p.token().hop() == 1);
        assertThatThrownBy(() -> belt.onMessage(new Message.TokenAck(2, 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("only to instance 1");
        assertThat(belt.successorHasHop()).isEqualTo(-1);
        belt.onMessage(new Message.TokenAck(1, 1));
        assertThat(belt.successorHasHop()).isEqualTo(1);
        assertThat(belt.lastReceivedHop()).isZero(); // hop 0: the first token, which nobody passed
    }
}
