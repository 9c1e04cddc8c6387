package dev.gyro.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gyro.apps.store.OnlineStore;
import dev.gyro.client.GyroClient;
import dev.gyro.runtime.hook.TransactionGate;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Request ids on instances without replication (docs/decisions/37-request-ids.md): every request a client sends carries
 * an id; an instance records the reply of one that wrote in the same transaction as its writes, and answers the same id
 * again from that record; a request whose client gave up is not committed behind its back; and when the instance is up
 * but its database is not, the answer names the database. addItem adds to a cart line's quantity, so a write applied
 * twice shows as a quantity of 2. Every wait is for a reply or a state reached.
 */
class RequestIdsTest {

    static final ObjectMapper JSON = new ObjectMapper();

    /** The quantity of {@code item} in {@code cart} at instance {@code i}'s database, or 0 when it has no line. */
    static long quantity(LocalCluster cluster, int i, long cart, long item) throws Exception {
        try (Connection c = cluster.connect(i);
             PreparedStatement ps = c.prepareStatement("SELECT QTY FROM SHOPPING_CARTS WHERE CART_ID = ? AND ITEM_ID = ?")) {
            ps.setLong(1, cart);
            ps.setLong(2, item);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    static long recordedReplies(LocalCluster cluster, int i) throws Exception {
        try (Connection c = cluster.connect(i); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM gyro_requests")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static int owner(GyroClient client, long cart) {
        return client.routing().decide("addItem", Request.of("addItem", cart, 1L, 1).parameters(), -1).owner();
    }

    static Request addItem(long cart, long item) {
        return Request.of("addItem", cart, item, 1).withId(UUID.randomUUID().toString());
    }

    /** A transaction gate that holds the next local request (or global one) once armed, until released. */
    static final class Holding implements TransactionGate {
        final boolean globals; // holds a global request the token holder runs (enterAhead) instead of a local one
        final AtomicBoolean hold = new AtomicBoolean();
        volatile CountDownLatch held = new CountDownLatch(1);
        volatile CountDownLatch release = new CountDownLatch(1);
        volatile CountDownLatch over = new CountDownLatch(1); // the held request's transaction is over

        /** Holds the next local request, with fresh latches. */
        void armAgain() {
            held = new CountDownLatch(1);
            release = new CountDownLatch(1);
            over = new CountDownLatch(1);
            hold.set(true);
        }

        Holding() {
            this(false);
        }

        Holding(boolean globals) {
            this.globals = globals;
        }

        private Slot held() throws InterruptedException {
            if (!hold.compareAndSet(true, false)) return Slot.NOTHING;
            CountDownLatch done = over;
            held.countDown();
            release.await();
            return done::countDown;
        }

        @Override
        public Slot enter() throws InterruptedException {
            return globals ? Slot.NOTHING : held();
        }

        @Override
        public Slot enterAhead() throws InterruptedException {
            return globals ? held() : Slot.NOTHING;
        }
    }

    @Test
    void aWriteSentAgainWithItsIdIsAnsweredFromItsRecordNotRunTwice(@TempDir Path dir) throws Exception {
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 2, 1, 42, n -> {}).startAll();
             GyroClient client = GyroClient.connect(cluster.addresses())) {
            long cart = 7;
            int owner = owner(client, cart);
            assertThat(client.call("createCart", cart).ok()).isTrue();
            Request add = addItem(cart, 3);
            Reply first = client.call(add);
            assertThat(first.status()).as(first.toString()).isEqualTo(Reply.Status.OK);
            Reply again = client.call(add);
            assertThat(again).isEqualTo(first);
            assertThat(quantity(cluster, owner, cart, 3)).isEqualTo(1);

            // The same write with another id is another request: it runs.
            assertThat(client.call(addItem(cart, 3)).ok()).isTrue();
            assertThat(quantity(cluster, owner, cart, 3)).isEqualTo(2);

            // A request the client sends without an id is given one: its reply is recorded too.
            long before = recordedReplies(cluster, owner);
            assertThat(client.call("addItem", cart, 4L, 1).ok()).isTrue();
            assertThat(recordedReplies(cluster, owner)).isEqualTo(before + 1);
            // A read-only one changes nothing and records nothing.
            assertThat(client.call("getCart", cart).ok()).isTrue();
            assertThat(recordedReplies(cluster, owner)).isEqualTo(before + 1);
        }
    }

    /**
     * A write held up at its instance past its client's deadline (here by the instance's transaction gate): the client
     * is told the outcome is unknown and how to learn it, never that the live instance is "unreachable"; the write is
     * not committed once it goes on; the client sends it again with the same id and it is applied once. Sent again
     * while the first is still held, it waits for the first, which changes nothing, and then runs.
     */
    @Test
    void aWriteWhoseClientGaveUpIsNotCommittedBehindItsBack(@TempDir Path dir) throws Exception {
        Holding gate = new Holding();
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 2, 1, 42, n -> {})
                .withInstanceConfig(c -> c.withGate(gate)).startAll();
             GyroClient patient = GyroClient.connect(cluster.addresses());
             GyroClient hasty = GyroClient.connect(cluster.addresses(), 1_000, -1)) {
            long cart = 11;
            int owner = owner(patient, cart);
            assertThat(patient.call("createCart", cart).ok()).isTrue();

            Request add = addItem(cart, 5);
            gate.hold.set(true);
            Reply gaveUp = hasty.call(add);
            assertThat(gate.held.getCount()).isZero();
            System.out.println("the client that gave up was told: " + gaveUp.message());
            assertThat(gaveUp.status()).isEqualTo(Reply.Status.UNAVAILABLE);
            assertThat(gaveUp.message()).startsWith("outcome unknown: instance " + owner + " ("
                            + cluster.addresses().get(owner) + ") is up but did not answer addItem(")
                    .contains("send it again with the same id (" + add.id() + ")")
                    .doesNotContain("unreachable");

            gate.release.countDown();
            assertThat(gate.over.await(1, TimeUnit.MINUTES)).isTrue();
            assertThat(quantity(cluster, owner, cart, 5)).as("committed after its client gave up").isZero();

            Reply retried = patient.call(add);
            assertThat(retried.status()).as(retried.toString()).isEqualTo(Reply.Status.OK);
            assertThat(patient.call(add)).isEqualTo(retried);
            assertThat(quantity(cluster, owner, cart, 5)).isEqualTo(1);

            Request second = addItem(cart, 6);
            gate.armAgain();
            assertThat(hasty.call(second).message()).startsWith("outcome unknown: ");
            java.util.concurrent.CompletableFuture<Reply> meanwhile =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> patient.call(second));
            gate.release.countDown();
            Reply afterIt = meanwhile.get(1, TimeUnit.MINUTES);
            assertThat(afterIt.status()).as(afterIt.toString()).isEqualTo(Reply.Status.OK);
            assertThat(quantity(cluster, owner, cart, 6)).isEqualTo(1);
        }
    }

    /**
     * A global request queued for the token when its client's deadline passes (the token held up at the other
     * instance, whose global request the transaction gate holds) is withdrawn: its client is answered that it did not
     * run, and it never runs, not even once the token comes (a global request queued behind it was answered and the
     * ring is quiet); sent again with the same id, it runs once.
     */
    @Test
    void aGlobalRequestQueuedForTheTokenIsWithdrawnWhenItsClientGivesUp(@TempDir Path dir) throws Exception {
        Holding gate = new Holding(true);
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 2, 1, 42, n -> {})
                .withInstanceConfig(c -> c.withGate(gate)).startAll();
             GyroClient patient = GyroClient.connect(cluster.addresses());
             GyroClient hasty = GyroClient.connect(cluster.addresses(), 1_000, -1)) {
            long[] carts = new long[3]; // owned by instance 0, 1, 1
            for (long cart = 100, k = 0; k < carts.length; cart++)
                if (owner(patient, cart) == (k == 0 ? 0 : 1)) carts[(int) k++] = cart;
            for (long cart : carts) {
                assertThat(patient.call("createCart", cart).ok()).isTrue();
                assertThat(patient.call(addItem(cart, 2)).ok()).isTrue();
            }
            gate.hold.set(true);
            java.util.concurrent.CompletableFuture<Reply> holding =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> patient.call("order", carts[0]));
            assertThat(gate.held.await(1, TimeUnit.MINUTES)).isTrue(); // the token stays at instance 0 meanwhile

            Request queued = Request.of("order", carts[1]).withId(UUID.randomUUID().toString());
            Reply gaveUp = hasty.call(queued);
            System.out.println("the client of a global request queued for the token that gave up was told: "
                    + gaveUp.message());

            gate.release.countDown();
            assertThat(holding.get(1, TimeUnit.MINUTES).ok()).isTrue();
            Reply behind = patient.call("order", carts[2]); // queued after the withdrawn one at instance 1
            assertThat(behind.status()).as(behind.toString()).isEqualTo(Reply.Status.OK);
            assertThat(cluster.awaitQuiet(60_000)).isTrue();
            for (int i = 0; i < 2; i++)
                assertThat(orders(cluster, i, carts[1])).as("committed at instance " + i + " after its client gave up")
                        .isZero();
            assertThat(gaveUp.status()).as(gaveUp.toString()).isEqualTo(Reply.Status.UNAVAILABLE);
            assertThat(gaveUp.message()).startsWith("not run: instance 1 (" + cluster.addresses().get(1) + ") withdrew "
                    + queued + " at its client's deadline").contains("send it again with the same id (" + queued.id() + ")");

            Reply again = patient.call(queued);
            assertThat(again.status()).as(again.toString()).isEqualTo(Reply.Status.OK);
            assertThat(patient.call(queued)).isEqualTo(again);
            for (int i = 0; i < 2; i++) assertThat(orders(cluster, i, carts[1])).isEqualTo(1);
        }
    }

    static long orders(LocalCluster cluster, int i, long cart) throws Exception {
        try (Connection c = cluster.connect(i);
             PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM ORDERS WHERE CART_ID = ?")) {
            ps.setLong(1, cart);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    @Test
    @Tag("servers")
    void writesDuringAPostgresOutageAreAppliedOnceWhenSentAgainWithTheirIds() throws Exception {
        writesDuringADatabaseOutageAreAppliedOnceWhenSentAgainWithTheirIds(Backend.POSTGRES);
    }

    @Test
    @Tag("servers")
    void writesDuringAMariaDbOutageAreAppliedOnceWhenSentAgainWithTheirIds() throws Exception {
        writesDuringADatabaseOutageAreAppliedOnceWhenSentAgainWithTheirIds(Backend.MARIADB);
    }

    /**
     * The database stopped under a running instance (its server killed: PostgreSQL's {@code pg_ctl stop -m
     * immediate}, MariaDB's SIGKILL), one write already inside the instance (held by its transaction gate until the
     * server is down) and more sent meanwhile: each times out with an answer that names the database; none is
     * committed once the database is back; sent again with the same ids, each is applied exactly once, and a second
     * time answered from its record.
     */
    void writesDuringADatabaseOutageAreAppliedOnceWhenSentAgainWithTheirIds(Backend backend) throws Exception {
        TestServers.require(backend);
        Holding gate = new Holding();
        try (LocalCluster cluster = LocalCluster.create(backend, TestServers.base().resolve(
                "request-ids-" + System.nanoTime()), new OnlineStore(), 1, 1, 42, n -> {})
                .withInstanceConfig(c -> c.withGate(gate)).startAll();
             GyroClient patient = GyroClient.connect(cluster.addresses());
             GyroClient hasty = GyroClient.connect(cluster.addresses(), 3_000, -1);
             GyroClient steady = GyroClient.connect(cluster.addresses(), 10_000, -1)) {
            long cart = 21;
            assertThat(patient.call("createCart", cart).ok()).isTrue();
            assertThat(patient.call(addItem(cart, 1)).ok()).isTrue();

            List<Request> writes = new ArrayList<>();
            Request inside = addItem(cart, 2);
            writes.add(inside);
            gate.hold.set(true);
            java.util.concurrent.CompletableFuture<Reply> waiting =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> steady.call(inside)); // answered in time
            assertThat(gate.held.await(1, TimeUnit.MINUTES)).isTrue();

            cluster.server(0).crash();

            gate.release.countDown();
            Reply notRun = waiting.get(1, TimeUnit.MINUTES);
            System.out.println("inside the instance when its database stopped: " + notRun.message());
            assertThat(notRun.status()).as(notRun.toString()).isEqualTo(Reply.Status.UNAVAILABLE);
            assertThat(notRun.message()).startsWith("not run: instance 0 (" + cluster.addresses().get(0)
                    + ") is up but its database is unavailable: ").doesNotContain("is unreachable");
            for (long item = 3; item <= 5; item++) {
                Request add = addItem(cart, item);
                writes.add(add);
                Reply r = hasty.call(add);
                System.out.println("during the outage: " + r.message());
                assertThat(r.status()).as(r.toString()).isEqualTo(Reply.Status.UNAVAILABLE);
                assertThat(r.message()).contains("instance 0 (" + cluster.addresses().get(0)
                        + ") is up but its database is unavailable: ").doesNotContain("is unreachable");
            }

            cluster.server(0).start();
            awaitDatabaseAnswers(patient);

            for (int k = 0; k < writes.size(); k++)
                assertThat(quantity(cluster, 0, cart, k + 2)).as("committed after its client gave up").isZero();
            for (Request add : writes) {
                Reply retried = patient.call(add);
                assertThat(retried.status()).as(retried.toString()).isEqualTo(Reply.Status.OK);
                assertThat(patient.call(add)).isEqualTo(retried);
            }
            for (int k = 0; k < writes.size(); k++) assertThat(quantity(cluster, 0, cart, k + 2)).isEqualTo(1);
            assertThat(quantity(cluster, 0, cart, 1)).isEqualTo(1);
        }
    }

    /** Asks instance 0's status until it says its database answers; the limit only ends a hung test. */
    static void awaitDatabaseAnswers(GyroClient client) throws Exception {
        long limit = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (JSON.readTree(client.status(0)).path("databaseDown").asBoolean()) {
            if (System.nanoTime() > limit) throw new AssertionError("instance 0's database did not answer again: "
                    + client.status(0));
            Thread.sleep(20);
        }
    }
}
