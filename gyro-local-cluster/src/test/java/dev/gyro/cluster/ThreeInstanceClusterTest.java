package dev.gyro.cluster;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.apps.store.StoreAudit;
import dev.gyro.client.GyroClient;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.wire.Wire;
import dev.gyro.protocol.Value;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCalls;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** Three instances in this JVM, each on its own SQLite file, talking over real loopback sockets. */
class ThreeInstanceClusterTest {

    static final long SEED = 42;
    static final int ITEMS = OnlineStore.ITEMS_PER_SCALE;

    @TempDir
    Path dir;
    LocalCluster cluster;
    GyroClient client;

    @BeforeEach
    void start() throws Exception {
        cluster = LocalCluster.create(dir, new OnlineStore(), 3, 1, SEED, n -> {}).startAll();
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
    void localRequestsRunAtTheOwnerOfTheirPartitionOnly() throws Exception {
        long cart = cartOwnedBy(2, 1);
        assertThat(client.call("createCart", cart).instance()).isEqualTo(2);
        Reply added = client.call("addItem", cart, 5L, 2);
        assertThat(added.status()).isEqualTo(Reply.Status.OK);
        assertThat(added.executedAs()).isEqualTo("local");
        assertThat(added.instance()).isEqualTo(2);
        assertThat(client.call("getCart", cart).values()).containsExactly(new Value.Int(5), new Value.Int(2));
        // The cart exists only in instance 2's database: local writes are not replicated.
        assertThat(countCartRows(0, cart)).isZero();
        assertThat(countCartRows(1, cart)).isZero();
        assertThat(countCartRows(2, cart)).isEqualTo(2);
    }

    @Test
    void anInstanceForwardsARequestItDoesNotOwn() throws Exception {
        long cart = cartOwnedBy(1, 1);
        client.call("createCart", cart);
        ManagedChannel toZero = dev.gyro.wire.Wire.channel(cluster.addresses().get(0));
        try {
            byte[] body = ClientCalls.blockingUnaryCall(toZero, Wire.EXECUTE,
                    CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), Request.of("getCart", cart).encode());
            Reply r = Reply.decode(body);
            assertThat(r.status()).isEqualTo(Reply.Status.OK);
            assertThat(r.instance()).isEqualTo(1);
        } finally {
            toZero.shutdownNow();
        }
    }

    @Test
    void aGlobalRequestsUpdateReachesEveryInstance() throws Exception {
        long cart = cartOwnedBy(1, 1);
        client.call("createCart", cart);
        client.call("addItem", cart, 7L, 3);
        long before = stock(0, 7);
        Reply order = client.call("order", cart);
        assertThat(order.status()).as(order.toString()).isEqualTo(Reply.Status.OK);
        assertThat(order.executedAs()).isEqualTo("global");
        assertThat(order.instance()).isEqualTo(1);
        assertThat(order.gsn()).isEqualTo(1);
        assertThat(cluster.awaitQuiet(10_000)).isTrue();
        for (int i = 0; i < 3; i++) {
            assertThat(stock(i, 7)).as("stock on instance " + i).isEqualTo(before - 3);
            assertThat(cluster.instance(i).appliedGsn()).isEqualTo(1);
        }
        // The generated order key is the same everywhere: row images carry it.
        assertThat(digests("ORDERS")).hasSize(1);
    }

    @Test
    void errorsNameTheProblemAndChangeNothing() throws Exception {
        Reply unknown = client.call("checkout", 1L);
        assertThat(unknown.status()).isEqualTo(Reply.Status.BAD_REQUEST);
        assertThat(unknown.message()).contains("unknown transaction 'checkout'").contains("addItem");
        Reply tooFew = client.call("addItem", 1L);
        assertThat(tooFew.status()).isEqualTo(Reply.Status.BAD_REQUEST);
        assertThat(tooFew.message()).contains("addItem(long cartId, long itemId, int qty)").contains("got 1");
        Reply wrongType = client.call("addItem", 1L, "seven", 1);
        assertThat(wrongType.status()).isEqualTo(Reply.Status.BAD_REQUEST);
        assertThat(wrongType.message()).contains("itemId").contains("long");

        // A global request that rolls back ships no update and uses no gsn.
        long cart = cartOwnedBy(0, 1);
        client.call("createCart", cart);
        client.call("addItem", cart, 9L, 1);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + cluster.databaseFile(0));
             Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE ITEMS SET STOCK = 0 WHERE I_ID = 9"); // sold out behind the cart's back
        }
        Reply order = client.call("order", cart);
        assertThat(order.status()).isEqualTo(Reply.Status.ABORTED);
        assertThat(order.message()).contains("item 9 has only 0 in stock");
        assertThat(cluster.awaitQuiet(60_000)).isTrue(); // anything it shipped would have gone round by now
        for (int i = 0; i < 3; i++) assertThat(cluster.instance(i).appliedGsn()).isZero();
        assertThat(count(0, "SELECT COUNT(*) FROM ORDERS")).isZero();
    }

    @Test
    void anUnreachableInstanceIsReportedByName() throws Exception {
        long cart = cartOwnedBy(2, 1);
        cluster.stop(2);
        Reply r = client.call("createCart", cart);
        assertThat(r.status()).isEqualTo(Reply.Status.UNAVAILABLE);
        assertThat(r.message()).contains("instance 2").contains(cluster.addresses().get(2));
    }

    @Test
    void concurrentMixedWorkloadWithARestartKeepsReplicasEqualAndInvariants() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong ordersOk = new AtomicLong(), uncertain = new AtomicLong();
        List<Thread> clients = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            int id = t;
            Thread th = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(id);
                for (long seq = 1; !stop.get(); seq++) {
                    long cart = (id + 1L) * 1_000_000 + seq;
                    if (!client.call("createCart", cart).ok()) continue;
                    for (int l = 0; l < 3; l++) client.call("addItem", cart, 1L + random.nextInt(50), 1 + random.nextInt(3));
                    Reply r = client.call("order", cart);
                    if (r.ok()) ordersOk.incrementAndGet();
                    else if (r.status() == Reply.Status.UNAVAILABLE) uncertain.incrementAndGet();
                }
            });
            clients.add(th);
            th.start();
        }
        Await.until("20 orders before the restart", () -> ordersOk.get() >= 20);
        cluster.stop(1); // in-flight requests fail; its database keeps what committed
        cluster.start(1);
        long before = ordersOk.get();
        Await.until("20 more orders after the restart", () -> ordersOk.get() >= before + 20);
        stop.set(true);
        for (Thread th : clients) th.join();
        assertThat(cluster.awaitQuiet(30_000)).as("ring quiet").isTrue();
        assertThat(ordersOk.get()).isPositive();
        for (String table : new OnlineStore().replicatedTables())
            assertThat(digests(table)).as("copies of " + table).hasSize(1);
        List<Connection> conns = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) conns.add(DriverManager.getConnection("jdbc:sqlite:" + cluster.databaseFile(i)));
            long[] initial = OnlineStore.initialStock(ITEMS, OnlineStore.MIN_STOCK, SEED);
            assertThat(StoreAudit.audit(conns, client.routing().map(), initial, -1)).isEmpty();
            long orders = count(0, "SELECT COUNT(*) FROM ORDERS");
            assertThat(orders).isBetween(ordersOk.get(), ordersOk.get() + uncertain.get());
        } finally {
            for (Connection c : conns) c.close();
        }
    }

    // ---------------------------------------------------------------- helpers reading the databases directly

    java.util.Set<String> digests(String table) throws Exception {
        return StoreClusterChecks.digests(cluster, table);
    }

    long stock(int instance, long item) throws Exception {
        return count(instance, "SELECT STOCK FROM ITEMS WHERE I_ID = " + item);
    }

    long countCartRows(int instance, long cart) throws Exception {
        return count(instance, "SELECT COUNT(*) FROM SHOPPING_CARTS WHERE CART_ID = " + cart);
    }

    long count(int instance, String sql) throws Exception {
        return StoreClusterChecks.count(cluster, instance, sql);
    }
}
