package dev.gyro.runtime;

import dev.gyro.protocol.Message;
import dev.gyro.protocol.Token;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ring's watch on its own clock: a token unacknowledged or a peer unreachable counts as broken once it has lasted
 * {@link RingWatch#ALARM}, not before, and heals with the acknowledgement or the next delivery. (The WARN and INFO lines
 * themselves are checked on real processes by gyro-cli's BrokenRingTest.)
 */
class RingWatchTest {

    final AtomicLong now = new AtomicLong(1_795_000_000_000L);
    final RingWatch watch = new RingWatch(0, List.of("127.0.0.1:7000", "127.0.0.1:7001", "127.0.0.1:7002"), () -> 1,
            now::get);
    final long alarm = RingWatch.ALARM.toMillis();

    @Test
    void aTokenUnacknowledgedForLongerThanTheBoundBreaksTheRingUntilItsAcknowledgement() {
        assertThat(watch.tokenSent(1, 5)).isTrue();
        assertThat(watch.tokenSent(1, 5)).as("a resend of the same hop").isFalse();
        now.addAndGet(alarm - 1);
        watch.check();
        assertThat(watch.broken()).isZero();
        now.addAndGet(1);
        watch.check();
        assertThat(watch.broken()).isOne();
        assertThat(watch.tokenUnacknowledgedSeconds()).isEqualTo(alarm / 1000.0);
        @SuppressWarnings("unchecked") Map<String, Object> token = (Map<String, Object>) watch.status().get("token");
        assertThat(token).containsEntry("passedTo", 1).containsEntry("hop", 5L).containsEntry("acknowledged", false);

        watch.received(new Message.TokenAck(2, 5)); // not from the instance it was passed to
        watch.received(new Message.TokenAck(1, 4)); // an older hop
        assertThat(watch.broken()).isOne();
        watch.received(new Message.TokenAck(1, 5));
        assertThat(watch.broken()).isZero();
        assertThat(watch.tokenUnacknowledgedSeconds()).isZero();
    }

    @Test
    void theTokenComingRoundAgainCountsAsAcknowledged() {
        watch.tokenSent(1, 5);
        now.addAndGet(alarm);
        watch.check();
        watch.received(new Message.TokenPass(2, new Token(7, List.of())));
        assertThat(watch.broken()).isZero();
    }

    @Test
    void aPeerUnreachableForLongerThanTheBoundIsReportedWithSinceWhenUntilItIsReachedAgain() {
        watch.reached(2); // it answered once: from now on, two seconds without an answer is a broken ring
        long since = now.get();
        watch.unreachable(2, "UNAVAILABLE (io exception)");
        now.addAndGet(alarm / 2);
        watch.unreachable(2, "UNAVAILABLE (io exception)"); // still the first failure's time
        watch.check();
        assertThat(watch.unreachablePeers()).isZero();
        now.addAndGet(alarm / 2);
        watch.check();
        assertThat(watch.unreachablePeers()).isOne();
        assertThat(watch.status().get("unreachable").toString()).contains("instance=2")
                .contains(java.time.Instant.ofEpochMilli(since).toString()).contains("UNAVAILABLE (io exception)");
        assertThat(watch.status()).containsEntry("ringBroken", true);
        watch.reached(2);
        assertThat(watch.unreachablePeers()).isZero();
        assertThat(watch.status()).containsEntry("ringBroken", false);
    }

    @Test
    void aPeerThatHasNotAnsweredOnceIsGivenTimeToStartThenReportedAllTheSame() {
        watch.unreachable(1, "UNAVAILABLE (io exception)"); // the ring's instances start one after another
        now.addAndGet(RingWatch.STARTING.toMillis() - 1);
        watch.check();
        assertThat(watch.unreachablePeers()).as("still starting, not a broken ring").isZero();
        watch.reached(1);
        watch.check();
        assertThat(watch.unreachablePeers()).isZero();

        watch.unreachable(2, "UNAVAILABLE (io exception)"); // one that never starts
        now.addAndGet(RingWatch.STARTING.toMillis());
        watch.check();
        assertThat(watch.unreachablePeers()).isOne();
        assertThat(watch.status().get("unreachable").toString()).contains("instance=2");
    }
}
