package dev.gyro.runtime;

import dev.gyro.runtime.hook.LinkDelay;
import dev.gyro.wire.Transport;
import io.grpc.Metadata;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An idle, healthy ring is not reported broken after it starts (docs/decisions/18-watching.md): the instances of a
 * ring start one after another, so the first one's question where the token stands finds the next one not listening
 * yet; with the token parked nothing is sent to it afterwards, and had that unanswered question counted, the watch
 * would report the peer "unreachable ... not once since this instance started" once {@link RingWatch#STARTING} had
 * passed, until the first global request. An answer, on the other hand, shows the peer reachable.
 */
class RingStartTest {

    final AtomicLong now = new AtomicLong(1_795_000_000_000L);

    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void aPeerStillStartingWhenAskedWhereTheTokenStandsIsNotAnUnreachablePeer() throws Exception {
        List<String> ring = List.of("127.0.0.1:" + freePort(), "127.0.0.1:" + freePort()); // nobody listens on either
        RingWatch watch = new RingWatch(0, ring, () -> 0, now::get);
        try (PeerLinks peers = new PeerLinks(0, ring, LinkDelay.NONE, Transport.insecure(), new Metadata(), watch)) {
            assertThat(peers.positions(Duration.ofSeconds(5))).as("instance 1 is not up yet").isEmpty();
        }
        now.addAndGet(RingWatch.STARTING.toMillis() + 1_000); // the ring idles, its token parked: nothing is sent
        watch.check();
        assertThat(watch.unreachablePeers()).isZero();
        assertThat(watch.status()).containsEntry("ringBroken", false);
        assertThat(watch.broken()).isZero();
    }
}
