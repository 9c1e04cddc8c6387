package dev.gyro.replication;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.apps.store.StoreAudit;
import dev.gyro.check.ReplicaCheck;
import dev.gyro.client.GyroClient;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.runtime.hook.MoveObserver;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.wire.Reply;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A ring of replicated groups grows and shrinks while it serves (docs/decisions/44-ring-changes.md, on groups): a third
 * group of three joins two under load, buckets move to it with their rows while the new owner's leader and then the old
 * owner's leader are killed in the middle of moves (between copy and cutover), and the first group gives its buckets
 * away and leaves. Every acknowledged order is present once, every group's replicas are equal, the store's audit holds.
 * Waits are for events (orders, leaders, a move's phase, the ring quiet); the bounds only end a failing run.
 */
class ReplicatedRingChangesTest {

    @TempDir
    Path dir;

    private final ReplicatedRingTest rings = new ReplicatedRingTest(); // its databases and ring, in this test's folder

    @BeforeEach
    void inThisFolder() {
        rings.dir = dir;
    }

    @Test
    void aGroupJoinsTakesBucketsThroughLeaderKillsAndAnotherLeaves() throws Exception {
        List<List<String>> databases = new ArrayList<>(rings.databases("sqlite"));
        List<String> joining = List.of(dir.resolve("g2r0.db").toString(), dir.resolve("g2r1.db").toString(),
                dir.resolve("g2r2.db").toString());
        ReplicatedRingTest.Workload w;
        PartitionMap map;
        try (ReplicatedRing ring = rings.start(databases, GroupTimeouts.DEFAULT);
             GyroClient client = GyroClient.connect(ring.addresses(), 15_000, -1)) {
            w = new ReplicatedRingTest.Workload(client, 3);
            try (w) {
                w.progress(5);
                List<String> steps = new ArrayList<>();
                databases.add(joining); // the new group's configuration names its first database
                int id = ring.join(joining, new OnlineStore()::createSchema, steps::add);
                assertThat(id).as("the new group's position").isEqualTo(2);
                assertThat(steps).as("the join's steps").anyMatch(s -> s.contains("group 2") && s.contains("leads"));
                w.progress(5);

                // a move from group 0 to the new group; the new group's leader is killed between copy and cutover
                moveKilling(ring, client, 0, 2, 2);
                w.progress(5);
                // a move from group 1 to the new group; the old owner's leader is killed between copy and cutover
                moveKilling(ring, client, 1, 2, 1);
                w.progress(5);

                // group 0 gives its buckets to groups 1 and 2, then leaves the ring
                client.refreshRouting(1);
                int[] zeros = client.routing().map().bucketsOf(0);
                for (int to = 1; to <= 2; to++) {
                    int k = to;
                    int[] share = java.util.stream.IntStream.range(0, zeros.length).filter(i -> i % 2 == k - 1)
                            .map(i -> zeros[i]).toArray();
                    for (Reply r : client.moveBuckets(to, share))
                        assertThat(r.status()).as(r.message()).isEqualTo(Reply.Status.OK);
                }
                ring.leave(0);
                assertThat(ring.departed()).containsExactly(0);
                assertThat(ring.replica(0, 0)).as("the departed group's replicas stop").isNull();
                w.progress(5);
            }
            assertThat(ring.awaitQuiet(ReplicatedRingTest.WAIT)).as("the ring became quiet").isTrue();
            assertThat(ring.awaitReplicasCaughtUp(ReplicatedRingTest.WAIT)).as("every replica caught up: " + ReplicatedRingTest.positions(ring, 2)).isTrue();
            client.refreshRouting(1);
            map = client.routing().map();
            for (int p = 1; p <= 2; p++)
                assertThat(ring.instance(p).routing().map().version()).as("map version at group " + p)
                        .isEqualTo(map.version());
        }
        assertThat(map.bucketsOf(0)).as("the departed group's buckets").isEmpty();
        assertThat(map.bucketsOf(2)).as("the new group's buckets").isNotEmpty();
        checkGroups(databases, w, map);
    }

    /**
     * Moves a quarter of {@code from}'s buckets to {@code to}; once the old owner's copy committed, kills the leader of
     * group {@code victim}, waits for its group's new leader, and lets the cutover go on (when the victim is the old
     * owner, its new leader runs the client's request again, with its id, from the copy).
     */
    private static void moveKilling(ReplicatedRing ring, GyroClient client, int from, int to, int victim)
            throws Exception {
        client.refreshRouting(from);
        int[] owned = client.routing().map().bucketsOf(from);
        int[] moving = Arrays.copyOf(owned, owned.length / 4);
        AtomicReference<Thread> killer = new AtomicReference<>();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        ring.instance(from).observeMoves(new MoveObserver() {
            @Override
            public void copied(int[] buckets, long gsn, Runnable cutOver) {
                Thread t = new Thread(() -> {
                    try {
                        InstanceReplica leader = ring.leader(victim);
                        ring.kill(victim, leader.group().replica());
                        if (!ring.awaitLeaders(ReplicatedRingTest.WAIT)) throw new AssertionError("no new leader of group " + victim);
                        ring.restart(victim, leader.group().replica());
                        if (victim != from) cutOver.run(); // a killed old owner forgot the move: it is asked again
                    } catch (Throwable e) {
                        failed.set(e);
                    }
                }, "kill-group-" + victim);
                if (killer.compareAndSet(null, t)) t.start();
                else cutOver.run(); // the move asked again, at the old owner's new leader
            }
        });
        List<Reply> replies = client.moveBuckets(to, moving);
        killer.get().join();
        System.out.printf("move of %d buckets from group %d to %d, group %d's leader killed between copy and cutover:"
                + " %s%n", moving.length, from, to, victim, replies);
        assertThat(failed.get()).as("the kill between copy and cutover").isNull();
        Reply last = replies.get(replies.size() - 1);
        if (!last.ok()) { // an outcome the kill left unknown, never a refusal of what was asked: asked again
            assertThat(last.status()).as(last.message()).isNotEqualTo(Reply.Status.BAD_REQUEST);
            replies = client.moveBuckets(to, moving);
            last = replies.get(replies.size() - 1);
        }
        assertThat(last.status()).as(last.message()).isEqualTo(Reply.Status.OK);
        client.refreshRouting(to);
        for (int b : moving) assertThat(client.routing().map().ownerOfBucket(b)).as("bucket " + b).isEqualTo(to);
    }

    /** The groups still in the ring (1 and 2): replicas equal, replicated tables equal, orders once, audit. */
    private void checkGroups(List<List<String>> databases, ReplicatedRingTest.Workload w, PartitionMap map) throws Exception {
        List<Connection> first = new ArrayList<>();
        first.add(null); // group 0 left the ring
        try {
            Set<String> acrossGroups = new HashSet<>();
            Set<Long> lastGsns = new HashSet<>();
            for (int p = 1; p <= 2; p++) {
                List<Connection> conns = new ArrayList<>();
                for (String t : databases.get(p)) conns.add(DriverManager.getConnection(Dialect.forTarget(t).jdbcUrl(t)));
                first.add(conns.get(0));
                try {
                    ReplicatedRingTest.replicasEqual(conns, p, acrossGroups);
                    for (Connection c : conns) lastGsns.add(ReplicatedRingTest.single(c, "SELECT last_gsn FROM gyro_state"));
                } finally {
                    for (int r = 1; r < conns.size(); r++) conns.get(r).close();
                }
            }
            assertThat(acrossGroups).as("replicated tables equal on groups 1 and 2")
                    .hasSize(new OnlineStore().replicatedTables().size());
            assertThat(lastGsns).as("last applied gsn on every replica of groups 1 and 2").hasSize(1);
            long orders = ReplicatedRingTest.single(first.get(1), "SELECT COUNT(*) FROM ORDERS");
            assertThat(orders).as("orders (%d acknowledged, %d unknown)", w.ordersOk.get(), w.uncertain.get())
                    .isBetween(w.ordersOk.get(), w.ordersOk.get() + w.uncertain.get());
            Set<Long> ordered = new HashSet<>();
            try (Statement st = first.get(1).createStatement(); ResultSet rs = st.executeQuery("SELECT CART_ID FROM ORDERS")) {
                while (rs.next()) assertThat(ordered.add(rs.getLong(1))).as("cart ordered once").isTrue();
            }
            assertThat(ordered).as("every acknowledged order").containsAll(w.acknowledged);
            long[] initial = OnlineStore.initialStock(OnlineStore.ITEMS_PER_SCALE, OnlineStore.MIN_STOCK, ReplicatedRingTest.SEED);
            assertThat(StoreAudit.audit(first, map, initial, -1)).isEmpty();
        } finally {
            for (Connection c : first) if (c != null) c.close();
        }
    }
}
