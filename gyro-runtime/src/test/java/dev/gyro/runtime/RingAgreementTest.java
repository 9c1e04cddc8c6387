package dev.gyro.runtime;

import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.Token;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rule by which a starting instance tells whether its database is the ring's
 * (docs/decisions/13-secure-by-default.md).
 */
class RingAgreementTest {

    static DurableState held(long hop, long gsn) {
        return new DurableState(gsn, DurableState.TokenStatus.HELD, new Token(hop, List.of()), List.of());
    }

    static DurableState passed(long hop, long gsn) {
        return new DurableState(gsn, DurableState.TokenStatus.PASSED, new Token(hop, List.of()), List.of());
    }

    static final DurableState FRESH = new DurableState(0, DurableState.TokenStatus.NONE, null, List.of());

    @Test
    void aNewRingAgreesWithItself() {
        // instance 0 holds hop 0, which nobody passed it: no evidence that anyone is behind
        RingAgreement.Position first = new RingAgreement.Position(0, -1, 0);
        RingAgreement.Position never = new RingAgreement.Position(-1, -1, 0);
        assertThat(RingAgreement.refusal(1, 3, FRESH, Map.of(0, first, 2, never))).isNull();
        assertThat(RingAgreement.refusal(2, 3, FRESH, Map.of(0, first, 1, never))).isNull();
        assertThat(RingAgreement.refusal(0, 3, held(0, 0), Map.of(1, never, 2, never))).isNull();
    }

    @Test
    void anInstanceOnItsOwnDatabaseIsNeverRefused() {
        // ring of 3 at hop 7, held by instance 1 (7 mod 3); instance 0 passed hop 7 and was acknowledged
        RingAgreement.Position zero = new RingAgreement.Position(6, 7, 9), two = new RingAgreement.Position(5, 6, 9);
        assertThat(RingAgreement.refusal(1, 3, held(7, 9), Map.of(0, zero, 2, two))).isNull();
        // instance 2 restarts having passed hop 6; instance 0 received it
        assertThat(RingAgreement.refusal(2, 3, passed(6, 9), Map.of(0, zero, 1, new RingAgreement.Position(7, -1, 9))))
                .isNull();
        // restarted before acknowledging hop 7 (the ack was never sent): instance 0 does not count it
        assertThat(RingAgreement.refusal(1, 3, passed(5, 8), Map.of(0, new RingAgreement.Position(6, 4, 9))))
                .isNull();
        // nobody answers: nothing to compare with
        assertThat(RingAgreement.refusal(1, 3, FRESH, Map.of())).isNull();
    }

    @Test
    void aDatabaseBehindWhatItsPeersKnowIsRefusedNamingTheInstanceAndBothGsns() {
        RingAgreement.Position two = new RingAgreement.Position(8, -1, 12); // instance 2 received hop 8 from 1
        assertThat(RingAgreement.refusal(1, 3, passed(5, 7), Map.of(2, two)))
                .contains("instance 1 refuses to serve").contains("at gsn 7 with token hop 5")
                .contains("the ring at gsn 12").contains("instance 2 has received the token's hop 8")
                .contains("must have passed hop 8");
        assertThat(RingAgreement.refusal(1, 3, FRESH, Map.of(2, two))).contains("a fresh database");
        // only the predecessor knows: it passed hop 1 to instance 1, which acknowledged it (its first token)
        assertThat(RingAgreement.refusal(1, 3, FRESH, Map.of(0, new RingAgreement.Position(0, 1, 2))))
                .contains("instance 0, its predecessor, passed it hop 1, and this instance acknowledged it");
        assertThat(RingAgreement.refusal(1, 3, passed(5, 7), Map.of(0, new RingAgreement.Position(6, 7, 9))))
                .contains("token hop 5").contains("passed it hop 7");
        // instance 0 on a fresh database after instance 1 received hop 1 from it
        assertThat(RingAgreement.refusal(0, 3, held(0, 0), Map.of(1, new RingAgreement.Position(1, -1, 2))))
                .contains("instance 0 refuses to serve");
    }

    @Test
    void aPositionSurvivesItsEncodingAndGarbageIsRefused() {
        RingAgreement.Position p = new RingAgreement.Position(-1, 42, 7);
        assertThat(RingAgreement.Position.decode(p.encode())).isEqualTo(p);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> RingAgreement.Position.decode(new byte[] {1, 2}))
                .isInstanceOf(dev.gyro.protocol.MalformedMessageException.class);
    }
}
