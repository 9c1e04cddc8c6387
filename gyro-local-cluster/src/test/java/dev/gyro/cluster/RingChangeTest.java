package dev.gyro.cluster;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.apps.store.StoreAudit;
import dev.gyro.client.GyroClient;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.GyroInstance;
import dev.gyro.wire.Reply;
import dev.gyro.wire.RingRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ring changes (docs/decisions/44-ring-changes.md) on a running cluster of the online store on SQLite files: a fourth
 * instance joins while clients create carts, fill them and order, takes a fair share of the buckets, and later one of
 * the first three leaves after its buckets moved away. Every cart a client saw filled is whole at its owner, every
 * acknowledged order is there once, the replicated tables are equal on every member, and the store's invariants hold.
 */
class RingChangeTest {

    static final long SEED = 42;

    @TempDir
    Path dir;
    LocalCluster cluster;
    GyroClient client;

    @AfterEach
    void stop() {
        if (client != null) client.close();
        if (cluster != null) cluster.close();
    }

    @Test
    void anInstanceJoinsTakesBucketsAndAnotherLeavesWhileClientsWriteAndOrder() throws Exception {
        cluster = LocalCluster.create(dir, new OnlineStore(), 3, 1, SEED, n -> {}).startAll();
        client = GyroClient.connect(cluster.addresses());
        CartClients clients = new CartClients(client, 3);
        AtomicLong ordersOk = clients.ordersOk;
        Map<Long, Integer> filled = clients.filled;
        List<String> errors = clients.errors;
        Await.until("10 orders before the join", () -> ordersOk.get() >= 10);

        GyroInstance joined = cluster.addInstance();
        assertThat(joined.id()).isEqualTo(3);
        // a fair share of every instance's buckets moves to it: 64 of 256
        PartitionMap before = cluster.instance(0).routing().map();
        for (int from = 0; from < 3; from++) {
            int[] held = before.bucketsOf(from);
            int[] share = java.util.Arrays.copyOf(held, from == 0 ? 22 : 21);
            Reply moved = client.moveBuckets(3, share).get(0);
            assertThat(moved.status()).as(moved.message()).isEqualTo(Reply.Status.OK);
        }
        assertThat(client.routing().map().bucketsOf(3)).hasSize(64);
        Await.until("instance 0 to apply the moves", () -> cluster.instance(0).routing().map().bucketsOf(3).length == 64);
        long afterJoin = ordersOk.get();
        Await.until("10 orders after the join", () -> ordersOk.get() >= afterJoin + 10);
        assertThat(joined.appliedGsn()).isPositive();

        // instance 1 gives its buckets to the others, then leaves
        int[] ones = client.routing().map().bucketsOf(1);
        Reply away = client.moveBuckets(2, java.util.Arrays.copyOf(ones, ones.length / 2)).get(0);
        assertThat(away.status()).as(away.message()).isEqualTo(Reply.Status.OK);
        Reply rest = client.moveBuckets(3, java.util.Arrays.copyOfRange(ones, ones.length / 2, ones.length)).get(0);
        assertThat(rest.status()).as(rest.message()).isEqualTo(Reply.Status.OK);
        cluster.removeInstance(1);
        assertThat(cluster.instance(1)).as("stopped once it applied its leave").isNull();
        long afterLeave = ordersOk.get();
        Await.until("10 orders after the leave", () -> ordersOk.get() >= afterLeave + 10);
        clients.close();
        assertThat(errors).as("requests that failed").isEmpty();
        assertThat(cluster.awaitQuiet(60_000)).as("ring quiet").isTrue();

        List<Integer> members = List.of(0, 2, 3);
        PartitionMap map = cluster.instance(0).routing().map();
        for (int i : members) {
            assertThat(cluster.instance(i).routing().map()).as("instance %d's map", i).isEqualTo(map);
            assertThat(cluster.instance(i).appliedGsn()).isEqualTo(cluster.instance(0).appliedGsn());
        }
        for (Map.Entry<Long, Integer> e : filled.entrySet()) {
            int owner = map.instanceOf(new Value.Int(e.getKey()));
            assertThat(members).contains(owner);
            assertThat(StoreClusterChecks.count(cluster, owner, "SELECT COUNT(*) FROM SHOPPING_CARTS WHERE CART_ID = "
                    + e.getKey())).as("cart %d at its owner %d", e.getKey(), owner).isEqualTo(1 + e.getValue());
        }
        for (String table : new OnlineStore().replicatedTables()) {
            java.util.Set<String> d = new java.util.HashSet<>();
            for (int i : members)
                try (Connection c = cluster.connect(i)) {
                    dev.gyro.check.ReplicaCheck.TableDigest t = dev.gyro.check.ReplicaCheck.digest(c, table, i);
                    d.add(t.rows() + "/" + t.sha256());
                }
            assertThat(d).as("copies of " + table + " on the members").hasSize(1);
        }
        assertThat(StoreClusterChecks.count(cluster, 3, "SELECT COUNT(*) FROM ORDERS")).isEqualTo(ordersOk.get());
        List<Connection> conns = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) conns.add(cluster.connect(i));
            long[] initial = OnlineStore.initialStock(OnlineStore.ITEMS_PER_SCALE, OnlineStore.MIN_STOCK, SEED);
            List<String> violations = StoreAudit.audit(conns, map, initial, ordersOk.get());
            // instance 1 left: its copy of the replicated tables stopped at the leave
            violations.removeIf(v -> v.startsWith("instance 1:"));
            assertThat(violations).isEmpty();
        } finally {
            for (Connection c : conns) c.close();
        }

        // a member restarted after the changes resumes on the ring its database holds
        cluster.stop(2);
        GyroInstance again = cluster.start(2);
        assertThat(client.call("order", cartOf(map, 2, filled)).status()).isIn(Reply.Status.OK, Reply.Status.ABORTED);
        assertThat(again.routing().map()).isEqualTo(map);
        assertThat(cluster.awaitQuiet(60_000)).isTrue();
    }

    /** A filled cart that instance {@code owner} owns under {@code map}. */
    static long cartOf(PartitionMap map, int owner, Map<Long, Integer> filled) {
        return filled.keySet().stream().filter(c -> map.instanceOf(new Value.Int(c)) == owner).findFirst().orElseThrow();
    }

    /**
     * A new address is for a replicated group's new member in a lost one's place (docs/decisions/47-new-member.md):
     * asked of an instance of one address, of one that is no member, or with malformed parameters, the ring refuses it
     * with a message that says why, and changes nothing.
     */
    @Test
    void aNewAddressIsRefusedUnlessItIsAGroupsWithOneMemberReplaced() throws Exception {
        try (LocalCluster c = LocalCluster.create(dir, new OnlineStore(), 2, 1, 42, n -> {}).startAll()) {
            List<String> before = c.instance(0).routing().addresses();
            Reply single = c.instance(0).call(RingRequest.move(1, "127.0.0.1:1"));
            assertThat(single.status()).isEqualTo(Reply.Status.BAD_REQUEST);
            assertThat(single.message()).contains("replicated group").contains("instance 1 is at " + before.get(1));
            Reply stranger = c.instance(0).call(RingRequest.move(7, "127.0.0.1:1+127.0.0.1:2"));
            assertThat(stranger.status()).isEqualTo(Reply.Status.BAD_REQUEST);
            assertThat(stranger.message()).contains("instance 7 is no member of the ring");
            Reply portless = c.instance(0).call(RingRequest.move(1, "127.0.0.1:1+nowhere+127.0.0.1:3"));
            assertThat(portless.status()).isEqualTo(Reply.Status.BAD_REQUEST);
            assertThat(portless.message()).contains("nowhere");
            Reply malformed = c.instance(0).call(new dev.gyro.wire.Request(RingRequest.MOVE,
                    List.of(new dev.gyro.protocol.Value.Text("1")), false, 0));
            assertThat(malformed.status()).isEqualTo(Reply.Status.BAD_REQUEST);
            assertThat(malformed.message()).contains("takes the instance's id and its new address");
            assertThat(c.instance(0).routing().addresses()).isEqualTo(before);
            assertThat(c.instance(1).routing().addresses()).isEqualTo(before);
        }
    }

    @Test
    void aClusterOnDatabasesItWasGivenTakesAnInstanceOnTheDatabaseGivenForIt() throws Exception {
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < 2; i++) urls.add("jdbc:sqlite:" + dir.resolve("given-" + i + ".db"));
        cluster = LocalCluster.attach(urls, new OnlineStore(), 1, SEED, n -> {}).startAll();
        client = GyroClient.connect(cluster.addresses());
        long cart = StoreClusterChecks.cartOwnedBy(client, 1, 1);
        assertThat(client.call("createCart", cart).ok()).isTrue();
        assertThat(client.call("addItem", cart, 3L, 1).ok()).isTrue();
        assertThat(client.call("order", cart).ok()).isTrue();
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> cluster.addInstance()))
                .as("no database named for the new instance").hasMessageContaining("give the new instance's database");
        String mine = "jdbc:sqlite:" + dir.resolve("given-2.db");
        GyroInstance joined = cluster.addInstance(mine);
        assertThat(joined.id()).isEqualTo(2);
        Reply moved = client.moveBuckets(2, client.routing().map().bucketsOf(1)).get(0);
        assertThat(moved.status()).as(moved.message()).isEqualTo(Reply.Status.OK);
        assertThat(client.call("order", cart).status()).as("the cart, ordered before, at its new owner")
                .isEqualTo(Reply.Status.ABORTED);
        assertThat(cluster.awaitQuiet(30_000)).isTrue();
        for (String table : new OnlineStore().replicatedTables())
            assertThat(StoreClusterChecks.digests(cluster, table)).as("copies of " + table).hasSize(1);
        assertThat(StoreClusterChecks.count(cluster, 2, "SELECT COUNT(*) FROM SHOPPING_CARTS WHERE CART_ID = " + cart))
                .as("the cart and its line, moved with their bucket to the instance on the given database").isEqualTo(2);
    }
}
