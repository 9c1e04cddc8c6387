package dev.gyro.cluster;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.apps.store.StoreAudit;
import dev.gyro.client.GyroClient;
import dev.gyro.wire.Reply;
import dev.gyro.protocol.Value;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The online store on three Gyro instances, each on its own real database server that the test starts, talking
 * over real loopback sockets. One subclass per server backend.
 */
abstract class BackendClusterContract {

    static final long SEED = 42;
    static final int ITEMS = OnlineStore.ITEMS_PER_SCALE;
    static final AtomicInteger CLUSTERS = new AtomicInteger();

    abstract Backend backend();

    LocalCluster cluster;
    GyroClient client;

    @BeforeEach
    void start() throws Exception {
        TestServers.require(backend());
        Path dir = TestServers.base().resolve(backend().label() + "-cluster-" + CLUSTERS.incrementAndGet());
        cluster = LocalCluster.create(backend(), dir, new OnlineStore(), 3, 1, SEED, n -> {}).startAll();
        client = GyroClient.connect(cluster.addresses());
    }

    @AfterEach
    void stop() {
        if (client != null) client.close();
        if (cluster != null) cluster.close();
    }

    long cartOwnedBy(int instance, long from) {
        return StoreClusterChecks.cartOwnedBy(client, instance, from);
    }

    @Test
    void aGlobalRequestsUpdateReachesEveryServerWithItsGeneratedKey() throws Exception {
        assertThat(cluster.servers()).hasSize(3).allMatch(s -> s.kind() == backend().serverKind() && s.isRunning());
        long cart = cartOwnedBy(1, 1);
        assertThat(client.call("createCart", cart).ok()).isTrue();
        assertThat(client.call("addItem", cart, 7L, 3).ok()).isTrue();
        long before = count(0, "SELECT STOCK FROM ITEMS WHERE I_ID = 7");
        Reply order = client.call("order", cart);
        assertThat(order.status()).as(order.toString()).isEqualTo(Reply.Status.OK);
        assertThat(order.executedAs()).isEqualTo("global");
        assertThat(order.gsn()).isEqualTo(1);
        assertThat(cluster.awaitQuiet(10_000)).isTrue();
        for (int i = 0; i < 3; i++) {
            assertThat(count(i, "SELECT STOCK FROM ITEMS WHERE I_ID = 7")).as("stock on " + i).isEqualTo(before - 3);
            assertThat(count(i, "SELECT COUNT(*) FROM SHOPPING_CARTS WHERE CART_ID = " + cart))
                    .as("the cart is local to instance 1").isEqualTo(i == 1 ? 2 : 0);
        }
        assertThat(order.values()).containsExactly(new Value.Int(count(0, "SELECT O_ID FROM ORDERS")));
        assertThat(digests("ORDERS")).hasSize(1);
        assertThat(digests("ORDER_LINES")).hasSize(1);
    }

    /**
     * Concurrent clients; once 20 orders went through, the database server of instance 1 crashes and comes back, and
     * the clients go on until 20 more did.
     * Afterwards the replicated tables are equal everywhere, the store's invariants hold on every instance, and
     * every instance has applied exactly as many global updates as there are orders.
     */
    @Test
    void aConcurrentWorkloadSurvivesADatabaseServerCrashAndConverges() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong ordersOk = new AtomicLong(), uncertain = new AtomicLong(), failed = new AtomicLong();
        List<Thread> clients = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            int id = t;
            Thread th = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(id);
                for (long seq = 1; !stop.get(); seq++) {
                    long cart = (id + 1L) * 1_000_000 + seq;
                    if (!client.call("createCart", cart).ok()) {
                        failed.incrementAndGet();
                        continue;
                    }
                    for (int l = 0; l < 3; l++) client.call("addItem", cart, 1L + random.nextInt(50), 1 + random.nextInt(3));
                    Reply r = client.call("order", cart);
                    if (r.ok()) ordersOk.incrementAndGet();
                    else if (r.status() == Reply.Status.UNAVAILABLE || r.status() == Reply.Status.FAILED)
                        uncertain.incrementAndGet();
                }
            });
            clients.add(th);
            th.start();
        }
        Await.until("20 orders before the crash", () -> ordersOk.get() >= 20);
        cluster.server(1).crash();
        cluster.server(1).start();
        long before = ordersOk.get();
        Await.until("20 more orders after the server came back", () -> ordersOk.get() >= before + 20);
        stop.set(true);
        for (Thread th : clients) th.join(120_000);
        assertThat(cluster.awaitQuiet(60_000)).as("ring quiet").isTrue();
        assertThat(ordersOk.get()).isPositive();
        for (String table : new OnlineStore().replicatedTables())
            assertThat(digests(table)).as("copies of " + table).hasSize(1);
        List<Connection> conns = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) conns.add(cluster.connect(i));
            long[] initial = OnlineStore.initialStock(ITEMS, OnlineStore.MIN_STOCK, SEED);
            assertThat(StoreAudit.audit(conns, client.routing().map(), initial, -1)).isEmpty();
        } finally {
            for (Connection c : conns) c.close();
        }
        long orders = count(0, "SELECT COUNT(*) FROM ORDERS");
        assertThat(orders).isBetween(ordersOk.get(), ordersOk.get() + uncertain.get());
        for (int i = 0; i < 3; i++)
            assertThat(cluster.instance(i).appliedGsn()).as("updates applied by instance " + i + ": one per order")
                    .isEqualTo(orders);
        // Appendix B: globals ran concurrently exactly where the DBMS has commit ordering or OrderedCommits makes it
        // (docs/decisions/06-commit-ordering.md and docs/decisions/20-postgres-ordered-commits.md).
        boolean parallel = backend().dialect().parallelGlobals() || backend().dialect().orderedCommits();
        int most = 0;
        for (int i = 0; i < 3; i++) {
            assertThat(cluster.instance(i).parallelGlobals()).isEqualTo(parallel);
            most = Math.max(most, cluster.instance(i).mostGlobalsAtOnce());
        }
        if (parallel) assertThat(most).as("globals executing at once").isGreaterThan(1);
        else assertThat(most).as("globals executing at once").isEqualTo(1);
    }

    /**
     * Bucket moves (docs/decisions/43-bucket-moves.md) while clients create carts, fill them and order: half of
     * instance 0's buckets move to instance 1, then some of those on to instance 2. Afterwards every cart a client saw
     * filled is whole at its owner by the final map, every acknowledged order is there once, the replicated tables are
     * equal and the store's invariants hold.
     */
    @Test
    void bucketsMoveWithTheirRowsWhileClientsWriteAndOrderAndAnInstanceJoins() throws Exception {
        CartClients clients = new CartClients(client, 4);
        AtomicLong ordersOk = clients.ordersOk;
        java.util.Map<Long, Integer> filled = clients.filled;
        List<String> errors = clients.errors;
        int[] zeros = client.routing().map().bucketsOf(0);
        int[] half = java.util.Arrays.copyOf(zeros, zeros.length / 2);
        Await.until("10 orders before the first move", () -> ordersOk.get() >= 10);
        Reply first = client.moveBuckets(1, half).get(0);
        assertThat(first.status()).as(first.message()).isEqualTo(Reply.Status.OK);
        long before = ordersOk.get();
        Await.until("10 orders after the first move", () -> ordersOk.get() >= before + 10);
        Reply second = client.moveBuckets(2, java.util.Arrays.copyOf(half, 10)).get(0);
        assertThat(second.status()).as(second.message()).isEqualTo(Reply.Status.OK);
        long after = ordersOk.get();
        Await.until("10 orders after the second move", () -> ordersOk.get() >= after + 10);
        // a fourth instance joins on a server of its own, its database a copy of a member's through JDBC, and takes
        // buckets of instance 1 while the clients go on
        cluster.addInstance();
        Reply third = client.moveBuckets(3, java.util.Arrays.copyOf(client.routing().map().bucketsOf(1), 10)).get(0);
        assertThat(third.status()).as(third.message()).isEqualTo(Reply.Status.OK);
        long joined = ordersOk.get();
        Await.until("10 orders after the move to the new instance", () -> ordersOk.get() >= joined + 10);
        clients.close();
        assertThat(errors).as("requests that failed").isEmpty();
        assertThat(cluster.awaitQuiet(60_000)).as("ring quiet").isTrue();
        dev.gyro.protocol.PartitionMap map = cluster.instance(0).routing().map();
        assertThat(map.version()).isEqualTo(4);
        assertThat(map.bucketsOf(3)).hasSize(10);
        for (int i = 0; i < 4; i++) assertThat(cluster.instance(i).routing().map()).isEqualTo(map);
        for (java.util.Map.Entry<Long, Integer> e : filled.entrySet()) {
            int owner = map.instanceOf(new Value.Int(e.getKey()));
            assertThat(count(owner, "SELECT COUNT(*) FROM SHOPPING_CARTS WHERE CART_ID = " + e.getKey()))
                    .as("cart %d at its owner %d", e.getKey(), owner).isEqualTo(1 + e.getValue());
        }
        for (String table : new OnlineStore().replicatedTables())
            assertThat(digests(table)).as("copies of " + table).hasSize(1);
        assertThat(count(0, "SELECT COUNT(*) FROM ORDERS")).isEqualTo(ordersOk.get());
        List<Connection> conns = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) conns.add(cluster.connect(i));
            long[] initial = OnlineStore.initialStock(ITEMS, OnlineStore.MIN_STOCK, SEED);
            assertThat(StoreAudit.audit(conns, map, initial, ordersOk.get())).isEmpty();
        } finally {
            for (Connection c : conns) c.close();
        }
    }

    Set<String> digests(String table) throws Exception {
        return StoreClusterChecks.digests(cluster, table);
    }

    long count(int instance, String sql) throws Exception {
        return StoreClusterChecks.count(cluster, instance, sql);
    }
}
