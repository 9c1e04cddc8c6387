package dev.gyro.replication;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.apps.store.StoreAudit;
import dev.gyro.check.ReplicaCheck;
import dev.gyro.client.GyroClient;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.runtime.GyroInstance;
import dev.gyro.runtime.InstanceConfig;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.servers.ServerKind;
import dev.gyro.servers.ThrowawayServers;
import dev.gyro.wire.Reply;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ring on replicated groups (docs/decisions/24-ring-on-groups.md), in one JVM over real sockets: two ring
 * positions, each a group of three replicas with databases of their own, the online store through the client. Leaders
 * are killed (their Ratis server and instance closed at once) under load; a follower's database and log are deleted and
 * it is rebuilt from a snapshot; a group loses its majority and gets it back. Every wait is for an event (orders
 * succeeding, a leader elected, the log applied); the bounds only end a failing run.
 */
@Tag("servers")
class ReplicatedRingTest {

    static final long SEED = 11;
    static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    /** One database per replica, loaded with the store's initial data (identical on each). */
    List<List<String>> databases(String backend) throws Exception {
        List<List<String>> all = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            List<String> group = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                String target;
                if (backend.equals("sqlite")) {
                    target = dir.resolve("g" + p + "r" + r + ".db").toString();
                } else {
                    ServerKind kind = ServerKind.parse(backend);
                    String missing = kind.unavailableReason();
                    if (missing != null) {
                        if ("true".equalsIgnoreCase(System.getenv("CI")))
                            Assertions.fail("CI=true and the " + backend + " backend cannot be tested: " + missing);
                        Assumptions.abort("skipped: " + missing + " (with CI=true this fails)");
                    }
                    target = ThrowawayServers.freshDatabase(kind, 0);
                }
                try (Connection c = DriverManager.getConnection(Dialect.forTarget(target).jdbcUrl(target))) {
                    c.setAutoCommit(false);
                    OnlineStore store = new OnlineStore();
                    store.createSchema(c);
                    store.load(c, 1, SEED);
                    c.commit();
                }
                group.add(target);
            }
            all.add(group);
        }
        return all;
    }

    ReplicatedRing start(List<List<String>> databases, GroupTimeouts timeouts) throws Exception {
        ReplicatedRing ring = ReplicatedRing.start(databases, dir.resolve("logs"), "ring-test", timeouts,
                (p, addresses) -> InstanceConfig.of(p, addresses, databases.get(p).get(0), new OnlineStore()));
        assertThat(ring.awaitLeaders(WAIT)).as("every group elected a leader running its instance").isTrue();
        return ring;
    }

    /** Clients creating carts, adding items and ordering; counts what they saw. */
    static final class Workload implements AutoCloseable {
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong ordersOk = new AtomicLong(), uncertain = new AtomicLong();
        final Set<Long> acknowledged = java.util.concurrent.ConcurrentHashMap.newKeySet();
        final AtomicLong readsChecked = new AtomicLong();
        final List<String> staleReads = new java.util.concurrent.CopyOnWriteArrayList<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();

        Workload(GyroClient client, int clients) {
            for (int t = 0; t < clients; t++) {
                int id = t;
                Thread th = new Thread(() -> {
                    SplittableRandom random = new SplittableRandom(id);
                    try {
                        for (long seq = 1; !stop.get(); seq++) {
                            long cart = (id + 1L) * 1_000_000 + seq;
                            if (!client.call("createCart", cart).ok()) continue;
                            long item = 1L + random.nextInt(100);
                            if (client.call("addItem", cart, item, 1 + random.nextInt(2)).ok()) {
                                // A read never returns data older than a write this client saw acknowledged, across
                                // failovers too (a leader reads by its lease, or its read index: decision 24).
                                Reply read = client.call("getCart", cart);
                                if (read.ok()) {
                                    readsChecked.incrementAndGet();
                                    if (!read.value().equals(new dev.gyro.protocol.Value.Int(item)))
                                        staleReads.add("cart " + cart + " read " + read.values() + " after item "
                                                + item + " was added");
                                }
                            }
                            Reply r = client.call("order", cart);
                            if (r.ok()) {
                                acknowledged.add(cart);
                                ordersOk.incrementAndGet();
                            }
                            else if (r.status() == Reply.Status.UNAVAILABLE) uncertain.incrementAndGet();
                        }
                    } catch (RuntimeException | Error e) {
                        failure.compareAndSet(null, e);
                    }
                }, "workload-" + t);
                threads.add(th);
                th.start();
            }
        }

        /** Until {@code more} orders succeeded after now. */
        void progress(long more) throws InterruptedException {
            long n = ordersOk.get() + more;
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (ordersOk.get() < n) {
                if (failure.get() != null) throw new AssertionError("a client failed", failure.get());
                if (System.nanoTime() > deadline)
                    throw new AssertionError("waited " + WAIT + " for " + n + " orders; " + ordersOk.get() + " succeeded");
                Thread.sleep(5);
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            for (Thread t : threads) t.join();
            if (failure.get() != null) throw new AssertionError("a client failed", failure.get());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgres", "mariadb"})
    void leadersKilledUnderLoadLoseNothingAcknowledged(String backend) throws Exception {
        List<List<String>> databases = databases(backend);
        int kills = backend.equals("sqlite") ? 8 : 4;
        Workload w;
        try (ReplicatedRing ring = start(databases, GroupTimeouts.DEFAULT);
             GyroClient client = GyroClient.connect(ring.addresses(), 15_000, -1)) {
            w = new Workload(client, 3);
            try (w) {
                for (int k = 0; k < kills; k++) {
                    int group = k % 2;
                    w.progress(3);
                    InstanceReplica leader = ring.leader(group);
                    assertThat(leader).as("group " + group + "'s leader").isNotNull();
                    int victim = leader.group().replica();
                    ring.kill(group, victim);
                    assertThat(ring.awaitLeaders(WAIT)).as("a new leader of group " + group).isTrue();
                    ring.restart(group, victim); // it catches up from its group's log
                }
                w.progress(3);
            }
            assertThat(ring.awaitQuiet(WAIT)).as("the ring became quiet").isTrue();
            assertThat(ring.awaitReplicasCaughtUp(WAIT)).isTrue();
        }
        assertThat(w.staleReads).as("reads older than the client's own acknowledged writes").isEmpty();
        assertThat(w.readsChecked.get()).isPositive();
        check(databases, w);
    }

    @Test
    void aReplicaWithoutItsDatabaseIsRebuiltAndAGroupWithoutMajorityRecovers() throws Exception {
        List<List<String>> databases = databases("sqlite");
        GroupTimeouts timeouts = GroupTimeouts.DEFAULT.withCommit(Duration.ofSeconds(2));
        Workload w;
        try (ReplicatedRing ring = start(databases, timeouts);
             GyroClient client = GyroClient.connect(ring.addresses(), 6_000, -1)) {
            w = new Workload(client, 2);
            try (w) {
                w.progress(5);
                // a follower's database is lost: rebuilt from a copy of the leader's database
                int follower = (ring.leader(0).group().replica() + 1) % 3;
                long copied = ring.replace(0, follower);
                assertThat(copied).as("the log index the snapshot held").isPositive();
                w.progress(5);
                assertThat(ring.awaitCaughtUp(0, follower, WAIT)).as("the rebuilt replica caught up: "
                        + positions(ring, 0)).isTrue();
                // the leader's database is replaced too: it hands its leadership over first
                int leader = ring.leader(0).group().replica();
                assertThat(ring.replace(0, leader)).isPositive();
                assertThat(ring.leader(0).group().replica()).as("another replica leads").isNotEqualTo(leader);
                w.progress(5);
                assertThat(ring.awaitCaughtUp(0, leader, WAIT)).as("the rebuilt leader caught up: "
                        + positions(ring, 0)).isTrue();
            }

            // group 1 loses two of its three replicas: its requests are answered UNAVAILABLE in bounded time
            assertThat(ring.awaitLeaders(WAIT)).as("every group has a leader").isTrue();
            long cart = cartOwnedBy(ring, 1), otherCart = cartOwnedBy(ring, 0);
            int leader = ring.leader(1).group().replica();
            ring.kill(1, (leader + 1) % 3);
            ring.kill(1, (leader + 2) % 3);
            long t0 = System.nanoTime();
            Reply refused = client.call("createCart", cart);
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertThat(refused.status()).as(refused.toString()).isEqualTo(Reply.Status.UNAVAILABLE);
            assertThat(refused.message()).as("names the group").containsAnyOf("group 1", "instance 1");
            assertThat(took).as("answered within the client's deadline and a bit").isLessThan(6_000 + 3_000);
            // group 0 goes on meanwhile
            assertThat(client.call("createCart", otherCart).ok()).isTrue();

            ring.restart(1, (leader + 1) % 3);
            ring.restart(1, (leader + 2) % 3);
            assertThat(ring.awaitLeaders(WAIT)).isTrue();
            Reply back = client.call("createCart", cart + 2 * 7919); // a new cart of group 1 once it has a majority
            for (int i = 0; i < 10 && !back.ok(); i++) back = client.call("createCart", cart + 2 * 7919 * (i + 2));
            assertThat(back.ok()).as("group 1 serves again: " + back).isTrue();
            assertThat(ring.awaitQuiet(WAIT)).as("the ring became quiet").isTrue();
            assertThat(ring.awaitReplicasCaughtUp(WAIT)).isTrue();
        }
        check(databases, w);
    }

    /** Where each replica of {@code position} stands in its log, for a failure's message. */
    static String positions(ReplicatedRing ring, int position) {
        StringBuilder s = new StringBuilder();
        for (int r = 0; r < ring.replicas(position); r++) {
            InstanceReplica x = ring.replica(position, r);
            if (x == null) {
                s.append("replica ").append(r).append(" down; ");
                continue;
            }
            try {
                s.append("replica ").append(r).append(x.group().isLeader() ? " (leader)" : "").append(": stored ")
                        .append(x.group().storedIndex()).append(", applied ").append(x.group().appliedIndex())
                        .append(", log ").append(x.group().lastLogIndex()).append(", last request ")
                        .append(x.group().lastRequestIndex()).append("; ");
            } catch (Exception e) {
                s.append(e).append("; ");
            }
        }
        return s.toString();
    }

    /** A cart id that ring position {@code position} owns, by the routing map of any position that has a leader now. */
    static long cartOwnedBy(ReplicatedRing ring, int position) {
        PartitionMap map = null;
        for (int p = 0; p < ring.size() && map == null; p++) {
            GyroInstance up = ring.instance(p);
            if (up != null) map = up.routing().map();
        }
        assertThat(map).as("a position with a leader, to read the routing map from").isNotNull();
        for (long cart = 900_000_000L; ; cart++)
            if (map.instanceOf(new dev.gyro.protocol.Value.Int(cart)) == position) return cart;
    }

    /** Every replica of a group equal in every table; replicated tables equal across groups; each order applied once. */
    /**
     * A member's machine is lost for good (docs/decisions/47-new-member.md): a new member on other addresses takes its
     * place while clients create carts and order; then it leads its group, and the clients and the other group reach
     * it at its new address (carts of its group created, orders passing the token through it).
     */
    @Test
    void aMemberOnALostMachineIsReplacedOnAnotherAddressWhileTheRingServes() throws Exception {
        List<List<String>> databases = databases("sqlite");
        Workload w;
        List<List<String>> after = new ArrayList<>(databases);
        try (ReplicatedRing ring = start(databases, GroupTimeouts.DEFAULT);
             GyroClient client = GyroClient.connect(ring.addresses(), 15_000, -1)) {
            w = new Workload(client, 2);
            try (w) {
                w.progress(5);
                int lost = (ring.leader(0).group().replica() + 1) % 3;
                String before = ring.addresses().get(0);
                String database = dir.resolve("g0-new-member.db").toString();
                InstanceReplica joined = ring.replaceMember(0, lost, database);
                List<String> group = new ArrayList<>(databases.get(0));
                group.set(lost, database);
                after.set(0, group);
                String now = ring.addresses().get(0);
                assertThat(now).as("group 0's address names the new member").isNotEqualTo(before)
                        .doesNotContain(before.split("\\+")[lost]);
                w.progress(5);

                InstanceReplica leader = ring.leader(0);
                assertThat(leader.group().transferLeadership(lost, WAIT)).as("leadership handed to the new member")
                        .isTrue();
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (ring.leader(0) != joined && System.nanoTime() < deadline) Thread.sleep(5); // the new one leads
                assertThat(ring.leader(0)).as("the new member leads group 0").isSameAs(joined);
                w.progress(10); // orders pass the token through group 0 at its new address
                long cart = cartOwnedBy(ring, 0);
                assertThat(client.call("createCart", cart).ok()).as("a cart of group 0, at the new member").isTrue();
            }
            assertThat(ring.awaitQuiet(WAIT)).as("the ring became quiet").isTrue();
            assertThat(ring.awaitReplicasCaughtUp(WAIT)).isTrue();
        }
        assertThat(w.staleReads).isEmpty();
        check(after, w, 1);
    }

    void check(List<List<String>> databases, Workload w) throws Exception {
        check(databases, w, 0);
    }

    /** @param ringChanges global requests of the ring's own besides the orders (a new address: one each) */
    void check(List<List<String>> databases, Workload w, long ringChanges) throws Exception {
        Set<String> acrossGroups = new HashSet<>();
        long orders = -1;
        List<Connection> first = new ArrayList<>();
        try {
            for (int p = 0; p < databases.size(); p++) {
                List<Connection> conns = new ArrayList<>();
                for (String t : databases.get(p)) conns.add(DriverManager.getConnection(Dialect.forTarget(t).jdbcUrl(t)));
                first.add(conns.get(0));
                try {
                    replicasEqual(conns, p, acrossGroups);
                    long here = single(conns.get(0), "SELECT COUNT(*) FROM ORDERS");
                    if (orders < 0) orders = here;
                    assertThat(here).isEqualTo(orders);
                    for (Connection c : conns)
                        assertThat(single(c, "SELECT last_gsn FROM gyro_state")).as("each order applied once")
                                .isEqualTo(orders + ringChanges);
                } finally {
                    for (int r = 1; r < conns.size(); r++) conns.get(r).close();
                }
            }
            assertThat(acrossGroups).hasSize(new OnlineStore().replicatedTables().size());
            assertThat(w.ordersOk.get()).isPositive();
            assertThat(orders).as("orders: every acknowledged one, and at most the unknown ones besides")
                    .isBetween(w.ordersOk.get(), w.ordersOk.get() + w.uncertain.get());
            long[] initial = OnlineStore.initialStock(OnlineStore.ITEMS_PER_SCALE, OnlineStore.MIN_STOCK, SEED);
            assertThat(StoreAudit.audit(first, PartitionMap.uniform(2), initial, -1)).isEmpty();
        } finally {
            for (Connection c : first) c.close();
        }
    }

    /**
     * Every table of group {@code p} equal on its replicas {@code conns} (but each replica's own stamp, gyro_replica);
     * the replicated tables' digests of its first replica added to {@code acrossGroups}.
     */
    static void replicasEqual(List<Connection> conns, int p, Set<String> acrossGroups) throws Exception {
        assertThat(ReplicaCheck.compareReplicas(conns).differences()).as("group " + p + "'s replicas").isEmpty();
        for (String table : new OnlineStore().replicatedTables())
            acrossGroups.add(table + "=" + ReplicaCheck.digest(conns.get(0), table, 0).sha256());
    }

    static long single(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
