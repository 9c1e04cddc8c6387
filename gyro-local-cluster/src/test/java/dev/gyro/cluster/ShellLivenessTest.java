package dev.gyro.cluster;

import dev.gyro.runtime.GyroInstance;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gyro.apps.store.OnlineStore;
import dev.gyro.client.GyroClient;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.protocol.Value;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests that wait hold no thread the belt needs. Here an instance has two request threads and many more reads
 * waiting for a gsn its client saw elsewhere (the session guarantee): the token that brings that gsn must still be
 * delivered and applied, and every read answered. When waiting reads held the request threads, and peer messages
 * shared them, the token queued behind the reads until they gave up (UNAVAILABLE after 30 s).
 */
class ShellLivenessTest {

    private static final int WAITING_READS = 12;

    @Test
    void aTokenIsDeliveredWhileMoreReadsWaitForItsGsnThanThereAreRequestThreads(@TempDir Path dir) throws Exception {
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 2, 1, 42, n -> {})
                .withInstanceConfig(c -> c.withRequestThreads(2))
                .startAll();
             GyroClient client = GyroClient.connect(cluster.addresses())) {
            long readCart = StoreClusterChecks.cartOwnedBy(client, 1, 1);
            assertThat(client.call("createCart", readCart).ok()).isTrue();
            long next = cluster.instance(1).appliedGsn() + 1;

            List<CompletableFuture<Reply>> reads = new ArrayList<>();
            for (int i = 0; i < WAITING_READS; i++)
                reads.add(CompletableFuture.supplyAsync(() -> client.call(
                        new Request("getCart", List.of(Value.of(readCart)), false, next))));
            awaitWaiting(cluster.instance(1), WAITING_READS);

            long orderCart = StoreClusterChecks.cartOwnedBy(client, 0, readCart + 1);
            assertThat(client.call("createCart", orderCart).ok()).isTrue();
            assertThat(client.call("addItem", orderCart, 3L, 1).ok()).isTrue();
            Reply order = client.call("order", orderCart);
            assertThat(order.ok()).as(order.toString()).isTrue();
            assertThat(order.gsn()).isEqualTo(next);

            for (CompletableFuture<Reply> read : reads) {
                Reply r = read.get(2, TimeUnit.MINUTES);
                assertThat(r.status()).as(r.toString()).isEqualTo(Reply.Status.OK);
            }
            assertThat(cluster.instance(1).appliedGsn()).isGreaterThanOrEqualTo(next);
        }
    }

    /** Until the instance's Status says {@code n} requests wait for their gsn. */
    static void awaitWaiting(GyroInstance instance, int n) throws Exception {
        ObjectMapper json = new ObjectMapper();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (json.readTree(instance.statusJson()).path("waitingForGsn").asInt() < n) {
            assertThat(System.nanoTime()).as("requests waiting for their gsn").isLessThan(deadline);
            Thread.sleep(5); // polls the condition; the deadline only ends a hung test
        }
    }
}
