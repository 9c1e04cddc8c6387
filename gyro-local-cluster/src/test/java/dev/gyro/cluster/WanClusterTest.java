package dev.gyro.cluster;

import dev.gyro.runtime.GyroInstance;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.apps.store.StoreAudit;
import dev.gyro.client.GyroClient;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.wire.Wire;
import dev.gyro.emulation.wan.Site;
import dev.gyro.emulation.wan.Wan;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCalls;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three instances on the paper's emulated WAN (Germany, Japan, US east; Table II), over real sockets on SQLite. The
 * client here talks to the instances directly (no client delay: that is gyro-bench's), so every delay measured is
 * the ring's own. Bounds are lower bounds the emulation guarantees whatever the machine's speed, plus one generous
 * upper bound where the point is that no inter-site link is crossed at all.
 */
class WanClusterTest {

    static final long SEED = 42;
    static final Wan.Placement GJU = Wan.paper().place(3);

    @Test
    void globalRequestsWaitForTheTokenToCrossTheEmulatedRingAndReplicasConverge(@TempDir Path dir) throws Exception {
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 3, 1, SEED, n -> {})
                .withWan(GJU).startAll();
             GyroClient client = GyroClient.connect(cluster.addresses())) {
            assertThat(cluster.wan().sites()).containsExactly(Site.GERMANY, Site.JAPAN, Site.US_EAST);
            long nextCart = 1;
            for (int round = 0; round < 3; round++) {
                assertThat(cluster.awaitQuiet(30_000)).isTrue();
                int holder = holder(cluster);
                // The holder's predecessor on the ring: its Want reaches the holder over the last hop of the ring
                // (p -> holder), then the token comes the rest of the way (holder -> holder+1 -> p): one whole round.
                int p = (holder + 2) % 3;
                long cart = StoreClusterChecks.cartOwnedBy(client, p, nextCart);
                nextCart = cart + 1;
                assertThat(client.call("createCart", cart).ok()).isTrue();
                assertThat(client.call("addItem", cart, 1L + round, 2).ok()).isTrue();
                long t0 = System.nanoTime();
                Reply order = client.call("order", cart);
                long nanos = System.nanoTime() - t0;
                assertThat(order.status()).as(order.toString()).isEqualTo(Reply.Status.OK);
                assertThat(order.executedAs()).isEqualTo("global");
                assertThat(order.instance()).isEqualTo(p);
                assertThat(nanos).as("order at instance %d with the token parked at %d, in ms", p, holder)
                        .isGreaterThanOrEqualTo(GJU.tokenRound().toNanos()); // 249 ms
            }
            assertThat(cluster.awaitQuiet(30_000)).isTrue();
            for (String table : new OnlineStore().replicatedTables())
                assertThat(StoreClusterChecks.digests(cluster, table)).as("copies of " + table).hasSize(1);
            List<Connection> conns = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) conns.add(cluster.connect(i));
                long[] initial = OnlineStore.initialStock(OnlineStore.ITEMS_PER_SCALE, OnlineStore.MIN_STOCK, SEED);
                assertThat(StoreAudit.audit(conns, client.routing().map(), initial, -1)).isEmpty();
            } finally {
                for (Connection c : conns) c.close();
            }
            for (int i = 0; i < 3; i++) assertThat(wanDelayed(cluster.instance(i))).isPositive();
        }
    }

    @Test
    void aForwardedRequestCrossesItsLinkBothWaysAndALocalOneCrossesNone(@TempDir Path dir) throws Exception {
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 3, 1, SEED, n -> {})
                .withWan(GJU).startAll();
             GyroClient client = GyroClient.connect(cluster.addresses())) {
            long cart = StoreClusterChecks.cartOwnedBy(client, 1, 1); // owned by Japan
            assertThat(client.call("createCart", cart).ok()).isTrue();

            // Straight to its owner: no inter-site link on the way, so no link delays a message meanwhile (the ring
            // is parked: it sends nothing of its own).
            assertThat(cluster.awaitQuiet(30_000)).isTrue();
            long before = wanDelayed(cluster);
            for (int i = 0; i < 21; i++) assertThat(client.call("getCart", cart).ok()).isTrue();
            assertThat(wanDelayed(cluster)).as("messages the WAN links delayed while requests went to their owner")
                    .isEqualTo(before);

            // Through Germany, which forwards to Japan: the request and its reply each cross G-J (126.5 ms).
            ManagedChannel toGermany = dev.gyro.wire.Wire.channel(cluster.addresses().get(0));
            try {
                for (int i = 0; i < 3; i++) {
                    long t0 = System.nanoTime();
                    Reply r = Reply.decode(ClientCalls.blockingUnaryCall(toGermany, Wire.EXECUTE,
                            CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
                            Request.of("getCart", cart).encode()));
                    long nanos = System.nanoTime() - t0;
                    assertThat(r.status()).isEqualTo(Reply.Status.OK);
                    assertThat(r.instance()).isEqualTo(1);
                    assertThat(nanos).isGreaterThanOrEqualTo(2 * GJU.oneWay(0, 1).toNanos()); // 253 ms
                }
            } finally {
                toGermany.shutdownNow();
            }
            // The in-process path (GyroInstance.call) forwards through the same links.
            long t0 = System.nanoTime();
            assertThat(cluster.instance(2).call(Request.of("getCart", cart)).ok()).isTrue();
            assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(2 * GJU.oneWay(2, 1).toNanos()); // 153 ms
        }
    }

    @Test
    void withoutWanNothingIsDelayedAndNoSchedulerExists(@TempDir Path dir) throws Exception {
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 3, 1, SEED, n -> {}).startAll();
             GyroClient client = GyroClient.connect(cluster.addresses())) {
            assertThat(cluster.wan().emulated()).isFalse();
            long cart = StoreClusterChecks.cartOwnedBy(client, 1, 1);
            assertThat(client.call("createCart", cart).ok()).isTrue();
            assertThat(client.call("addItem", cart, 3L, 1).ok()).isTrue();
            assertThat(cluster.instance(0).call(Request.of("getCart", cart)).ok()).isTrue(); // forwarded
            assertThat(client.call("order", cart).ok()).isTrue(); // token and updates cross every link
            assertThat(cluster.awaitQuiet(10_000)).isTrue();
            for (int i = 0; i < 3; i++) {
                assertThat(new String(cluster.instance(i).statusJson())).doesNotContain("wanDelayed");
            }
        }
    }

    /** How many messages the emulated WAN links of every instance have delayed. */
    static long wanDelayed(LocalCluster cluster) throws java.io.IOException {
        long n = 0;
        for (int i = 0; i < cluster.size(); i++) n += wanDelayed(cluster.instance(i));
        return n;
    }

    /** How many messages the instance's emulated WAN links have delayed, as its Status reports it. */
    static long wanDelayed(GyroInstance instance) throws java.io.IOException {
        return new com.fasterxml.jackson.databind.ObjectMapper().readTree(instance.statusJson()).path("wanDelayed")
                .asLong(0);
    }

    static int holder(LocalCluster cluster) {
        for (int i = 0; i < cluster.size(); i++) if (cluster.instance(i).role().equals("PARKED")) return i;
        throw new AssertionError("no instance holds the parked token");
    }
}
