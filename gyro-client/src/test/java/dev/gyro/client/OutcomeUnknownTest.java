package dev.gyro.client;

import dev.gyro.wire.Request;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What a client that gave up on a global request is told of where it waits (docs/decisions/18-watching.md). */
class OutcomeUnknownTest {

    private final Request order = Request.of("order", 7L);

    @Test
    void behindTheTokenOfAnotherInstance() {
        assertThat(GyroClient.outcomeUnknown(order, 1, 2, "10.0.0.3:7000", null, 30_000)).isEqualTo(
                "outcome unknown: order(7) is queued at instance 1 behind the token held by instance 2 at 10.0.0.3:7000;"
                        + " the client gave up after 30000 ms, and the request may still run when the token comes");
        assertThat(GyroClient.outcomeUnknown(order, 1, 2, "10.0.0.3:7000", "UNAVAILABLE", 30_000))
                .contains("held by instance 2 at 10.0.0.3:7000 (unreachable: UNAVAILABLE)");
        assertThat(GyroClient.outcomeUnknown(order, 1, -1, null, null, 30_000))
                .contains("queued at instance 1 behind a token no instance that answered holds");
    }

    /** It used to say "queued at instance 0 behind the token held by instance 0". */
    @Test
    void atTheInstanceThatHoldsTheTokenItSaysSo() {
        String text = GyroClient.outcomeUnknown(order, 0, 0, "10.0.0.1:7000", null, 30_000);
        assertThat(text).contains("queued at instance 0, which holds the token and has not run it yet")
                .doesNotContain("behind").doesNotContain("when the token comes");
    }

    /**
     * A request with an id is told how to learn its outcome; an owner that is up with its database down is named as
     * such, never as unreachable (docs/decisions/37-request-ids.md).
     */
    @Test
    void aRequestWithAnIdIsToldHowToLearnItsOutcome() {
        Request add = Request.of("addItem", 7L, 3L, 1).withId("2658e992-0816-48a1-890b-6679b54b3d59");
        assertThat(GyroClient.databaseDown(add, 1, "10.0.0.2:7000", "unreachable since 2026-11-28T16:27:10Z (3.0 s):"
                + " Connection refused", 3_000)).isEqualTo("outcome unknown: instance 1 (10.0.0.2:7000) is up but its"
                + " database is unavailable: unreachable since 2026-11-28T16:27:10Z (3.0 s): Connection refused; the"
                + " client gave up on addItem(7, 3, 1) after 3000 ms, and it may have committed; send it again with the"
                + " same id (2658e992-0816-48a1-890b-6679b54b3d59) to learn its outcome: it runs at most once");
        assertThat(GyroClient.outcomeUnknown(order.withId(add.id()), 1, 2, "10.0.0.3:7000", null, 30_000))
                .endsWith("when the token comes; send it again with the same id (" + add.id() + ") to learn its"
                        + " outcome: it runs at most once");
    }
}
