package dev.gyro.cluster;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.client.GyroClient;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.Value;
import dev.gyro.wire.Reply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bucket moves (docs/decisions/43-bucket-moves.md) on a running cluster of three instances of the online store, each
 * on its own SQLite file: the rows go with the bucket, its requests follow it, and nothing acknowledged is lost or
 * applied twice while clients keep writing.
 */
class BucketMoveTest {

    @TempDir
    Path dir;
    LocalCluster cluster;
    GyroClient client;

    @AfterEach
    void stop() {
        if (client != null) client.close();
        if (cluster != null) cluster.close();
    }

    void start(int instances) throws Exception {
        start(LocalCluster.create(dir, new OnlineStore(), instances, 1, 42, n -> {}));
    }

    void start(LocalCluster created) throws Exception {
        cluster = created.startAll();
        client = GyroClient.connect(cluster.addresses());
    }

    /** A cart of instance 0 with one line (item 5, 1): its two rows. */
    long cartWithALine() {
        long cart = StoreClusterChecks.cartOwnedBy(client, 0, 1);
        assertThat(client.call("createCart", cart).ok()).isTrue();
        assertThat(client.call("addItem", cart, 5L, 1).ok()).isTrue();
        return cart;
    }

    int bucketOf(long cart) {
        return client.routing().map().bucketOf(new Value.Int(cart));
    }

    long cartRows(int instance, long cart) throws Exception {
        return StoreClusterChecks.count(cluster, instance, "SELECT COUNT(*) FROM SHOPPING_CARTS WHERE CART_ID = " + cart);
    }

    @Test
    void aMovedBucketTakesItsRowsAndItsRequestsToTheNewOwner() throws Exception {
        start(3);
        long cart = StoreClusterChecks.cartOwnedBy(client, 0, 1);
        assertThat(client.call("createCart", cart).status()).isEqualTo(Reply.Status.OK);
        assertThat(client.call("addItem", cart, 5L, 2).instance()).isEqualTo(0);
        assertThat(cartRows(2, cart)).isZero(); // a local write stays at its owner

        int bucket = bucketOf(cart);
        GyroClient early = GyroClient.connect(List.of(cluster.addresses().get(1))); // its map is the first one
        List<Reply> moved = client.moveBuckets(2, bucket);
        assertThat(moved).hasSize(1);
        assertThat(moved.get(0).status()).as(moved.get(0).message()).isEqualTo(Reply.Status.OK);
        assertThat(moved.get(0).gsn()).isPositive();

        // Every instance switched at the move's gsn; the new owner has the rows, and runs the cart's requests.
        assertThat(client.routing().map().ownerOfBucket(bucket)).isEqualTo(2);
        for (int i = 0; i < 3; i++) awaitOwner(i, bucket, 2);
        assertThat(cartRows(2, cart)).isEqualTo(2);
        Reply added = client.call("addItem", cart, 7L, 1);
        assertThat(added.status()).isEqualTo(Reply.Status.OK);
        assertThat(added.instance()).isEqualTo(2);
        assertThat(client.call("getCart", cart).values()).containsExactly(new Value.Int(5), new Value.Int(2),
                new Value.Int(7), new Value.Int(1));
        assertThat(cartRows(0, cart)).isEqualTo(2); // the old owner's copy is stale now, and never read
        assertThat(client.status(2)).contains("\"mapVersion\":2").contains("\"bucketsOwned\":86");

        // A client whose map is older is forwarded by the old owner, and learns the new map by itself.
        try (early) {
            assertThat(early.routing().map().version()).isEqualTo(1);
            Reply forwarded = early.call("getCart", cart);
            assertThat(forwarded.instance()).isEqualTo(2);
            assertThat(forwarded.values()).hasSize(4);
            Await.until("the early client's map to follow the move", () -> early.routing().map().version() > 1);
            assertThat(early.call("getCart", cart).instance()).isEqualTo(2);
        }
        // A restarted instance routes by the map its database holds.
        cluster.stop(1);
        cluster.start(1);
        assertThat(cluster.instance(1).routing().map().ownerOfBucket(bucket)).isEqualTo(2);
    }

    @Test
    void rowsWrittenBetweenTheCopyAndTheCutoverGoToTheNewOwnerAndTheStatusShowsTheMove() throws Exception {
        start(3);
        long one = StoreClusterChecks.cartOwnedBy(client, 0, 1);
        int bucket = bucketOf(one);
        long two = one + 1;
        while (bucketOf(two) != bucket) two++;
        long other = StoreClusterChecks.cartOwnedBy(client, 1, 1); // a cart of another instance, ordered meanwhile
        for (long cart : new long[] {one, two, other}) assertThat(client.call("createCart", cart).ok()).isTrue();
        assertThat(client.call("addItem", one, 5L, 2).ok()).isTrue();
        assertThat(client.call("addItem", one, 6L, 1).ok()).isTrue();
        assertThat(client.call("addItem", two, 8L, 3).ok()).isTrue();
        assertThat(client.call("addItem", other, 3L, 1).ok()).isTrue();

        // The old owner holds the move between its copy and its cutover.
        HeldMove move = new HeldMove(bucket);

        JsonNode moving = moving(0);
        assertThat(moving.isMissingNode()).as("the status during the move").isFalse();
        assertThat(moving.get("phase").asText()).isEqualTo("catching up");
        assertThat(moving.get("buckets")).hasSize(1);
        assertThat(moving.get("buckets").get(0).asInt()).isEqualTo(bucket);
        assertThat(moving.get("to").asInt()).isEqualTo(2);
        assertThat(moving.get("rowsCopied").asLong()).isEqualTo(5); // the two carts' rows and their lines
        String metrics = cluster.instance(0).metricsText();
        assertThat(metric(metrics, "gyro_buckets_move_phase")).isEqualTo(2);
        assertThat(metric(metrics, "gyro_bucket_rows_moved_total")).isEqualTo(5);
        // The receivers have the copy; the map has not changed, and the bucket is served at its old owner meanwhile.
        move.awaitCopied();
        for (int i = 1; i < 3; i++) assertThat(cartRows(i, one)).as("instance %d's copy", i).isEqualTo(3);
        assertThat(cluster.instance(2).routing().map().ownerOfBucket(bucket)).isZero();
        Reply added = client.call("addItem", one, 7L, 1);
        assertThat(added.ok()).isTrue();
        assertThat(added.instance()).isZero();
        assertThat(client.call("addItem", one, 5L, 1).ok()).isTrue();
        try (Connection c = cluster.connect(0); Statement st = c.createStatement()) { // as a local request would
            assertThat(st.executeUpdate("DELETE FROM SHOPPING_CARTS WHERE CART_ID = " + two + " AND ITEM_ID = 8"))
                    .isEqualTo(1);
        }
        assertThat(client.call("order", other).ok()).as("a global request while the move catches up").isTrue();
        assertThat(cartRows(2, one)).as("a local write stays at its owner until the cutover").isEqualTo(3);

        String said = move.cutOver();
        System.out.println(said);
        Matcher m = Pattern.compile("\\((\\d+) rows\\) .* (\\d+) ms closed; copied (\\d+) rows at gsn \\d+, caught up (\\d+)"
                + " \\((\\d+) deleted\\)").matcher(said);
        assertThat(m.find()).as(said).isTrue();
        assertThat(m.group(1)).as("rows of the bucket at the cutover").isEqualTo("5");
        assertThat(m.group(3)).as("rows copied").isEqualTo("5");
        assertThat(m.group(4)).as("rows caught up: line 7 new, line 5 changed, line 8 deleted").isEqualTo("3");
        assertThat(m.group(5)).isEqualTo("1");
        assertThat(metric(cluster.instance(0).metricsText(), "gyro_bucket_rows_moved_total")).isEqualTo(8);
        assertThat(metric(cluster.instance(0).metricsText(), "gyro_buckets_move_phase")).isZero();
        assertThat(moving(0).isMissingNode()).as("no move in progress").isTrue();

        for (int i = 0; i < 3; i++) awaitOwner(i, bucket, 2);
        for (int i = 1; i < 3; i++) { // the new owner, and the other receiver, have what the old owner has
            assertThat(cartRows(i, one)).as("instance %d", i).isEqualTo(4);
            assertThat(StoreClusterChecks.count(cluster, i, "SELECT QTY FROM SHOPPING_CARTS WHERE CART_ID = " + one
                    + " AND ITEM_ID = 5")).as("instance %d's line 5", i).isEqualTo(3);
            assertThat(cartRows(i, two)).as("instance %d: the line deleted meanwhile is gone", i).isEqualTo(1);
        }
        assertThat(client.call("getCart", one).values()).containsExactly(new Value.Int(5), new Value.Int(3),
                new Value.Int(6), new Value.Int(1), new Value.Int(7), new Value.Int(1));
        assertThat(client.call("getCart", one).instance()).isEqualTo(2);
    }

    @Test
    void aRowAGlobalRequestWroteBetweenTheCopyAndTheCutoverGoesAgainThoughTheOldOwnerWroteItAfter() throws Exception {
        // ORDERS counted among the bucket's rows: the global order writes a row of its cart's bucket
        start(LocalCluster.create(dir, new OnlineStore(), 3, 1, 42, n -> {}).withClassification(new OnlineStore()
                .classification().withPartitionedTables(Map.of("SHOPPING_CARTS", "CART_ID", "ORDERS", "CART_ID"))));
        long cart = cartWithALine();
        int bucket = bucketOf(cart);
        HeldMove move = new HeldMove(bucket);

        // the order's row reaches every instance with its update; then the old owner deletes it, as a local request
        // of its bucket may: the row is not in the copy, and gone at the old owner, but the receivers have it
        Reply ordered = client.call("order", cart);
        assertThat(ordered.ok()).as(ordered.message()).isTrue();
        for (int i = 1; i < 3; i++) {
            int at = i;
            Await.until("the order at instance " + i, () -> ordersOf(at, cart) == 1);
        }
        try (Connection c = cluster.connect(0); Statement st = c.createStatement()) {
            assertThat(st.executeUpdate("DELETE FROM ORDERS WHERE CART_ID = " + cart)).isEqualTo(1);
        }
        assertThat(move.cutOver()).contains("copied 2 rows").contains("caught up 1 (1 deleted)");
        for (int i = 0; i < 3; i++) awaitOwner(i, bucket, 2);
        for (int i = 1; i < 3; i++) assertThat(ordersOf(i, cart)).as("instance %d's order of cart %d", i, cart).isZero();
    }

    long ordersOf(int instance, long cart) {
        try {
            return StoreClusterChecks.count(cluster, instance, "SELECT COUNT(*) FROM ORDERS WHERE CART_ID = " + cart);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void atTheCutoverARequestInsideFinishesFirstAndOneArrivingIsHeldThenRunOnceByTheNewOwner() throws Exception {
        // a gate that holds the first local request once armed, inside its bucket: the cutover waits for it
        java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();
        CountDownLatch inside = new CountDownLatch(1), release = new CountDownLatch(1);
        dev.gyro.runtime.hook.TransactionGate gate = new dev.gyro.runtime.hook.TransactionGate() {
            @Override
            public Slot enter() throws InterruptedException {
                if (armed.compareAndSet(true, false)) {
                    inside.countDown();
                    release.await();
                }
                return Slot.NOTHING;
            }

            @Override
            public Slot enterAhead() {
                return Slot.NOTHING;
            }
        };
        start(LocalCluster.create(dir, new OnlineStore(), 3, 1, 42, n -> {}).withInstanceConfig(c -> c.withGate(gate)));
        long cart = cartWithALine();
        int bucket = bucketOf(cart);
        HeldMove move = new HeldMove(bucket);

        armed.set(true);
        AtomicReference<Reply> first = new AtomicReference<>(), second = new AtomicReference<>();
        Thread one = new Thread(() -> first.set(client.call("addItem", cart, 6L, 1)));
        one.start();
        inside.await();
        move.release();
        Await.until("the cutover to wait for the request inside", () -> "cut over".equals(moving(0).path("phase")
                .asText()));
        assertThat(metric(cluster.instance(0).metricsText(), "gyro_buckets_move_phase")).isEqualTo(3);
        Thread two = new Thread(() -> second.set(client.call("addItem", cart, 7L, 1)));
        two.start();
        Await.until("the request arriving meanwhile to be held", () -> moving(0).path("requestsHeld").asInt() == 1);
        release.countDown();
        one.join();
        two.join();
        assertThat(move.reply()).contains("caught up 1 (0 deleted)"); // line 6
        assertThat(first.get().ok()).isTrue();
        assertThat(first.get().instance()).as("the request inside ran at the old owner").isZero();
        assertThat(second.get().ok()).as(second.get().message()).isTrue();
        assertThat(second.get().instance()).as("the request held ran at the new owner").isEqualTo(2);
        assertThat(client.call("getCart", cart).values()).containsExactly(new Value.Int(5), new Value.Int(1),
                new Value.Int(6), new Value.Int(1), new Value.Int(7), new Value.Int(1));
        assertThat(cartRows(0, cart)).as("the held request did not run at the old owner").isEqualTo(3);
    }

    @Test
    void aStopOfTheOldOwnerBetweenTheCopyAndTheCutoverLeavesTheMapAndTheMoveAskedAgainCopiesAgain() throws Exception {
        start(3);
        long cart = cartWithALine();
        int bucket = bucketOf(cart);
        HeldMove move = new HeldMove(bucket); // its cutover never asked for
        move.awaitCopied();
        assertThat(client.call("addItem", cart, 7L, 1).instance()).isZero(); // after the copy, at the old owner

        cluster.stop(0); // its copy's digest and the cutover it was to ask for are gone with it
        for (int i = 1; i < 3; i++) assertThat(cluster.instance(i).routing().map().version()).isEqualTo(1);
        assertThat(cartRows(2, cart)).as("the copy at the new owner, which does not own it").isEqualTo(2);
        cluster.start(0);
        assertThat(cluster.instance(0).routing().map().ownerOfBucket(bucket)).isZero();
        move.mover.join();
        Reply moved = move.answer.get().get(0);
        if (moved.status() != Reply.Status.OK) moved = client.moveBuckets(2, bucket).get(0); // asked again
        assertThat(moved.status()).as(moved.message()).isEqualTo(Reply.Status.OK);
        assertThat((String) moved.values().get(0).toJava()).contains("copied 3 rows");
        for (int i = 0; i < 3; i++) awaitOwner(i, bucket, 2);
        assertThat(cartRows(2, cart)).isEqualTo(3);
        assertThat(client.call("getCart", cart).values()).containsExactly(new Value.Int(5), new Value.Int(1),
                new Value.Int(7), new Value.Int(1));
    }

    /** A move of {@code bucket} from instance 0 to 2, which its old owner holds between its copy and its cutover. */
    final class HeldMove {
        final AtomicReference<Runnable> cutOver = new AtomicReference<>();
        final java.util.concurrent.atomic.AtomicLong copyGsn = new java.util.concurrent.atomic.AtomicLong();
        final AtomicReference<List<Reply>> answer = new AtomicReference<>();
        final Thread mover;

        /** Asks for the move, and returns once its copy committed. */
        HeldMove(int bucket) throws InterruptedException {
            cluster.instance(0).observeMoves((buckets, gsn, go) -> {
                copyGsn.set(gsn);
                cutOver.set(go);
            });
            mover = new Thread(() -> answer.set(client.moveBuckets(2, bucket)));
            mover.start();
            Await.until("the copy of bucket " + bucket + " to commit", () -> cutOver.get() != null);
        }

        /** Waits until the other instances applied the copy. */
        void awaitCopied() throws InterruptedException {
            for (int i = 1; i < 3; i++) {
                int at = i;
                Await.until("instance " + i + " to apply the copy", () -> cluster.instance(at).appliedGsn()
                        >= copyGsn.get());
            }
        }

        /** Lets the cutover be asked for. */
        void release() {
            cutOver.get().run();
        }

        /** The move's reply, once it came: OK, and what it says. */
        String reply() throws InterruptedException {
            mover.join();
            Reply moved = answer.get().get(0);
            assertThat(moved.status()).as(moved.message()).isEqualTo(Reply.Status.OK);
            return (String) moved.values().get(0).toJava();
        }

        /** {@link #release}, then {@link #reply}. */
        String cutOver() throws InterruptedException {
            release();
            return reply();
        }
    }

    /** Instance {@code i}'s move in progress, as its status says (a missing node when there is none). */
    JsonNode moving(int i) {
        try {
            return new ObjectMapper().readTree(cluster.instance(i).statusJson()).path("moving");
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The value of metric {@code name} (one series) in Prometheus text. */
    static double metric(String text, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + "(\\{[^}]*})? ([0-9.eE+-]+)$").matcher(text);
        assertThat(m.find()).as(name + " in\n" + text).isTrue();
        return Double.parseDouble(m.group(2));
    }

    @Test
    void aMoveThatCannotBeRunChangesNothingAndSaysWhy() throws Exception {
        start(3);
        long cart = StoreClusterChecks.cartOwnedBy(client, 1, 1);
        int bucket = bucketOf(cart);
        // sent to an instance that does not own the bucket
        Reply wrong = client.call(dev.gyro.wire.MoveRequest.of(2, bucket).withId(java.util.UUID.randomUUID().toString()));
        assertThat(wrong.status()).isEqualTo(Reply.Status.BAD_REQUEST);
        assertThat(wrong.message()).contains("bucket " + bucket + " belongs to instance 1");
        Reply none = client.moveBuckets(1, bucket).get(0);
        assertThat(none.status()).isEqualTo(Reply.Status.BAD_REQUEST);
        assertThat(none.message()).contains("already owns");
        Reply nowhere = client.moveBuckets(7, bucket).get(0);
        assertThat(nowhere.status()).isEqualTo(Reply.Status.BAD_REQUEST);
        assertThat(nowhere.message()).contains("no instance 7");
        // a cutover whose copy its owner does not have (a restart lost it, or a client asks for it)
        Reply uncopied = cluster.instance(1).call(new dev.gyro.wire.Request(dev.gyro.wire.MoveRequest.TRANSACTION,
                List.of(new Value.Int(2), new Value.Text(String.valueOf(bucket)), new Value.Int(1)), false, 0));
        assertThat(uncopied.status()).isNotEqualTo(Reply.Status.OK);
        assertThat(uncopied.message()).contains("has no copy").contains("ask for the move again");
        assertThat(client.routing().map().version()).isEqualTo(1);
        assertThat(cluster.instance(1).routing().map().ownerOfBucket(bucket)).isEqualTo(1);
    }

    @Test
    void aClassificationThatDoesNotSayWhichRowsBelongToABucketRefusesMoves() throws Exception {
        start(LocalCluster.create(dir, new OnlineStore(), 2, 1, 42, n -> {})
                .withClassification(new OnlineStore().classification().withPartitionedTables(Map.of())));
        Reply refused = client.moveBuckets(1, cluster.instance(0).routing().map().bucketsOf(0)[0]).get(0);
        assertThat(refused.status()).isEqualTo(Reply.Status.BAD_REQUEST);
        assertThat(refused.message()).contains("buckets cannot be moved").contains("partitionedTables");
        assertThat(cluster.instance(0).routing().map().version()).isEqualTo(1);
    }

    @Test
    void underLoadEveryAcknowledgedWriteIsThereOnceAfterMoves() throws Exception {
        start(3);
        int clients = 4;
        List<Long> carts = new ArrayList<>();
        for (long c = 1; carts.size() < 40; c++) carts.add(c);
        for (long c : carts) assertThat(client.call("createCart", c).status()).isEqualTo(Reply.Status.OK);
        Map<Long, AtomicInteger> acked = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger failures = new AtomicInteger();
        CountDownLatch going = new CountDownLatch(clients);
        List<Thread> threads = new ArrayList<>();
        List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < clients; t++) {
            int me = t;
            Thread th = new Thread(() -> {
                long item = 1;
                boolean first = true;
                while (!stop.get()) {
                    long cart = carts.get((int) ((me * 7 + item) % carts.size()));
                    // item ids unique per thread, so each acknowledged addItem is one new row
                    long itemId = 1 + me + clients * item++;
                    Reply r = client.call("addItem", cart, itemId, 1);
                    if (r.status() == Reply.Status.OK) acked.computeIfAbsent(cart, k -> new AtomicInteger()).incrementAndGet();
                    else {
                        failures.incrementAndGet();
                        errors.add(r.status() + ": " + r.message());
                    }
                    if (first) {
                        first = false;
                        going.countDown();
                    }
                }
            });
            th.start();
            threads.add(th);
        }
        going.await();
        // Move half of instance 0's buckets to 1, then some of them on to 2, while the clients write.
        int[] zeros = cluster.instance(0).routing().map().bucketsOf(0);
        int[] half = java.util.Arrays.copyOf(zeros, zeros.length / 2);
        Reply first = client.moveBuckets(1, half).get(0);
        assertThat(first.status()).as(first.message()).isEqualTo(Reply.Status.OK);
        Reply second = client.moveBuckets(2, java.util.Arrays.copyOf(half, 8)).get(0);
        assertThat(second.status()).as(second.message()).isEqualTo(Reply.Status.OK);
        Reply back = client.moveBuckets(0, java.util.Arrays.copyOfRange(half, 8, 12)).get(0);
        assertThat(back.status()).as(back.message()).isEqualTo(Reply.Status.OK);
        for (Reply r : List.of(first, second, back)) System.out.println(r.values().get(0).toJava()); // the holds
        stop.set(true);
        for (Thread th : threads) th.join();
        assertThat(errors).as("failed requests").isEmpty();

        PartitionMap map = cluster.instance(0).routing().map();
        for (int i = 0; i < 3; i++) awaitVersion(i, map.version());
        for (long cart : carts) {
            int owner = map.instanceOf(new Value.Int(cart));
            long lines = cartRows(owner, cart) - 1; // the cart's own row (item 0)
            int expected = acked.getOrDefault(cart, new AtomicInteger()).get();
            assertThat(lines).as("cart %d at its owner %d", cart, owner).isEqualTo(expected);
        }
        assertThat(cluster.awaitQuiet(30_000)).isTrue();
        assertThat(StoreClusterChecks.digests(cluster, "ITEMS")).hasSize(1);
    }

    /** Waits until instance {@code i} routes {@code bucket} to {@code owner}: the move's gsn reached it. */
    void awaitOwner(int i, int bucket, int owner) throws InterruptedException {
        Await.until("instance " + i + " to route bucket " + bucket + " to " + owner,
                () -> cluster.instance(i).routing().map().ownerOfBucket(bucket) == owner);
    }

    void awaitVersion(int i, long version) throws InterruptedException {
        Await.until("instance " + i + " to reach map version " + version,
                () -> cluster.instance(i).routing().map().version() >= version);
    }
}
