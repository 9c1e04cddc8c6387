package dev.gyro.cluster;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.client.GyroClient;
import dev.gyro.wire.Reply;
import dev.gyro.protocol.Message;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Token;
import dev.gyro.protocol.Value;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An instance whose state would contradict the protocol stops (fail-stop) instead of carrying on: it applies
 * nothing, tells its process why, and recovers from its database when restarted. A message from outside the ring is
 * dropped without stopping anything.
 */
class FailStopTest {

    @Test
    void aTokenWithAGapInGsnsStopsTheInstanceAndARestartRecovers(@TempDir Path dir) throws Exception {
        CompletableFuture<String> told = new CompletableFuture<>();
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 2, 1, 42, n -> {})
                .withInstanceConfig(c -> c.withFailStop((instance, reason, cause) -> told.complete(instance + ": " + reason)))
                .startAll();
             GyroClient client = GyroClient.connect(cluster.addresses())) {
            long cart = StoreClusterChecks.cartOwnedBy(client, 0, 1);
            assertThat(client.call("createCart", cart).ok()).isTrue();
            assertThat(client.call("addItem", cart, 3L, 1).ok()).isTrue();
            assertThat(client.call("order", cart).gsn()).isEqualTo(1);
            assertThat(cluster.awaitQuiet(60_000)).isTrue();
            long ordersBefore = StoreClusterChecks.count(cluster, 1, "SELECT COUNT(*) FROM ORDERS");

            // From instance 1's predecessor, a token carrying gsn 7 when gsn 2 comes next: no instance decided that.
            StateUpdate skipped = new StateUpdate(7, 0, List.of(new RowChange("ORDERS", RowChange.Kind.UPSERT,
                    List.of("O_ID"), List.of(new Value.Int(999_999)), List.of("O_ID"))));
            deliver(cluster.addresses(), cluster.addresses().get(1), new Message.TokenPass(0, new Token(1_000, List.of(skipped))));
            assertThat(told.get(2, TimeUnit.MINUTES)).startsWith("1: ").contains("gap in gsns");
            assertThat(cluster.instance(1).stopped()).isTrue();
            assertThat(cluster.instance(1).role()).isEqualTo("STOPPED");
            assertThat(StoreClusterChecks.count(cluster, 1, "SELECT COUNT(*) FROM ORDERS")).isEqualTo(ordersBefore);

            cluster.stop(1);
            cluster.start(1);
            Reply again = client.call("order", cart); // a second order of the same cart: global, from instance 0
            assertThat(again.status()).as(again.toString()).isIn(Reply.Status.OK, Reply.Status.ABORTED);
            assertThat(cluster.awaitQuiet(60_000)).isTrue();
            assertThat(cluster.instance(1).appliedGsn()).isEqualTo(cluster.instance(0).appliedGsn());
        }
    }

    @Test
    void aMessageFromOutsideTheRingIsDroppedAndTheInstanceCarriesOn(@TempDir Path dir) throws Exception {
        CompletableFuture<String> told = new CompletableFuture<>();
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 2, 1, 42, n -> {})
                .withInstanceConfig(c -> c.withFailStop((instance, reason, cause) -> told.complete(reason)))
                .startAll();
             GyroClient client = GyroClient.connect(cluster.addresses())) {
            deliver(cluster.addresses(), cluster.addresses().get(1), new Message.Want(5)); // instance 5 of a ring of 2
            long cart = StoreClusterChecks.cartOwnedBy(client, 1, 1);
            assertThat(client.call("createCart", cart).ok()).isTrue();
            assertThat(client.call("addItem", cart, 3L, 1).ok()).isTrue();
            assertThat(client.call("order", cart).ok()).isTrue(); // the belt still runs
            assertThat(told).isNotDone();
            assertThat(cluster.instance(1).stopped()).isFalse();
        }
    }

    /** Sends one belt message as a peer of the ring would (its headers say so), and waits until the instance took it. */
    static void deliver(List<String> ring, String address, Message message) {
        io.grpc.Status st = SecureClusterTest.deliver(address, dev.gyro.wire.Transport.insecure(),
                SecureClusterTest.headers(dev.gyro.runtime.InstanceConfig.Network.UNNAMED, ring, message.from()), message);
        assertThat(st.isOk()).as(st.toString()).isTrue();
    }
}
