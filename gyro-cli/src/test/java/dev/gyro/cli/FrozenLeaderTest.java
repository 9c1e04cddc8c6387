package dev.gyro.cli;

import dev.gyro.client.GyroClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A leader frozen with its connections open (SIGSTOP, as a long pause or a partition that drops nothing the kernel
 * answers would do) under a load of global requests, on a ring of two groups of three replicas, each its own process
 * on its own SQLite file (docs/decisions/40-peers-abandon-a-frozen-leader.md). First the leader of the group the token
 * goes to next is frozen (the other group holds it), then the leader of the group that holds the token. Each time its
 * group elects a new leader, and the ring's token must move on to it: a global request sent to each group after the
 * freeze is acknowledged within {@link #RECOVERY_MILLIS} of it, although the old leader stays frozen for
 * {@link #FREEZE_SECONDS}. When it resumes it serves nothing stale: a cart written through the new leader during the
 * freeze, read from the old leader alone at once, holds the write or is refused. And it must change nothing:
 * afterwards every replica of a group is equal in
 * every table, each order is applied once (every replica's last gsn equals its orders), every order a client saw
 * acknowledged is there, and the store's audit holds. Before the peers abandoned a frozen leader, the token waited
 * for the old process to resume: the whole freeze.
 */
@Tag("processes")
@Tag("slow")
// On request only (docs/testing.md): 2.5 minutes of processes. A group that elected no leader during a freeze had a
// replica that started late and had an empty log, whose vote Ratis does not count (decision 40); the test now freezes
// once every replica applied some of its log
@org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "gyro.test.frozen", matches = "true",
        disabledReason = "on request: -Dgyro.test.frozen=true (docs/testing.md)")
class FrozenLeaderTest {

    static final long SEED = 11;
    static final int GROUPS = 2;
    static final int REPLICAS = 3;
    /**
     * How long a leader stays frozen: long enough that a ring which waits for the frozen process fails clearly; the
     * figure for the 60 s of a long pause: {@code -Dgyro.test.freeze.seconds=60}.
     */
    static final int FREEZE_SECONDS = Integer.getInteger("gyro.test.freeze.seconds", 20);
    /**
     * A frozen leader costs the clients of global requests no more than this: its group's failover, a second for the
     * peers and the clients to give up on it and one to ask its Status, and a round of the token. The target is 5 s
     * (measured 2.7-5.0 s with load averages of 20-40 on 2 cores); the bound leaves a busy machine room, while a ring
     * that waits for the frozen process takes the whole freeze and more (21-22.5 s for 20 s).
     */
    static final long RECOVERY_MILLIS = 10_000;

    @TempDir
    Path dir;
    GroupProcesses cluster;

    @AfterEach
    void cleanUp() throws Exception {
        if (cluster != null) cluster.close(); // a frozen process dies of SIGKILL too
    }

    @Test
    void aFrozenLeaderCostsTheRingNoMoreThanItsGroupsFailover() throws Exception {
        cluster = new GroupProcesses("sqlite", GROUPS, REPLICAS, SEED, dir, "frozen-leader-logs");
        List<String> figures = new ArrayList<>();
        long[] recoveries = new long[2];
        OrderLoad load;
        try (GyroClient client = GyroClient.connect(cluster.ring, 10_000, -1, cluster.transport)) {
            load = new OrderLoad(client, 6, GROUPS);
            load.awaitOrders(5);
            cluster.awaitEveryReplicaApplied(); // each group can elect a new leader without the one frozen
            // the group the token goes to next: group 1's leader, frozen while group 0 holds the token
            recoveries[0] = freeze(client, load, 1, 0, "the leader of the group the token goes to next", figures);
            // the token holder's group
            recoveries[1] = freeze(client, load, 0, 0, "the leader of the group that holds the token", figures);
            load.end();
            RingChecks.awaitQuiet(client, GROUPS);
            cluster.awaitReplicasCaughtUp();
        }
        assertThat(load.ordersOk.get()).as("orders that succeeded").isPositive();
        cluster.stopAndCheck(load.ordersOk.get(), load.uncertain.get(), load.acknowledged);
        for (int k = 0; k < recoveries.length; k++)
            assertThat(recoveries[k]).as(figures.get(k)).isBetween(0L, RECOVERY_MILLIS);
    }

    /**
     * Freezes the leader of {@code group} for {@link #FREEZE_SECONDS} once {@code holder} holds the token, as its
     * status says; the milliseconds from the freeze until every group acknowledged an order sent after it (-1: none
     * during the freeze and 2 minutes after). The old leader is resumed (SIGCONT) when the freeze ends, and the ring
     * made progress since when this returns.
     */
    long freeze(GyroClient client, OrderLoad load, int group, int holder, String what, List<String> figures)
            throws Exception {
        load.awaitOrders(load.ordersOk.get() + 5);
        int leader = cluster.leader(group);
        long cart = cartOf(client, group, 9_000_000L + 1_000L * figures.size());
        assertThat(client.call("createCart", cart).ok()).isTrue();
        ReplicaKillTest.awaitToken(client, holder);
        long pid = cluster.processes[group][leader].pid();
        long frozenAt = System.nanoTime();
        load.since(frozenAt);
        signal("STOP", pid);
        long thawAt = frozenAt + TimeUnit.SECONDS.toNanos(FREEZE_SECONDS);
        long recovered;
        try {
            recovered = load.awaitEveryGroup(thawAt);
            // written through the new leader while the old one is frozen; read from the old one once it resumes
            if (recovered > 0) assertThat(client.call("addItem", cart, FRESH_ITEM, 1).ok()).isTrue();
            long left = thawAt - System.nanoTime();
            if (left > 0) Thread.sleep(TimeUnit.NANOSECONDS.toMillis(left)); // the freeze's length: the fault, not a wait
        } finally {
            signal("CONT", pid);
        }
        if (recovered > 0) noStaleRead(group, leader, cart);
        if (recovered < 0) recovered = load.awaitEveryGroup(System.nanoTime() + TimeUnit.MINUTES.toNanos(2));
        long millis = recovered < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(recovered - frozenAt);
        figures.add(what + " (replica " + leader + " of group " + group + ", group " + holder + " held the token) frozen "
                + FREEZE_SECONDS + " s: every group acknowledged an order sent after the freeze "
                + (millis < 0 ? "not even 2 minutes after it ended" : "within " + millis + " ms"));
        System.out.println(figures.get(figures.size() - 1));
        load.awaitOrders(load.ordersOk.get() + 5); // resumed, it changes nothing
        return millis;
    }

    /** The item added to a cart while its group's old leader is frozen. */
    static final long FRESH_ITEM = 5;

    /** The first cart from {@code from} on that {@code group} owns. */
    static long cartOf(GyroClient client, int group, long from) {
        long cart = from;
        while (client.routing().decide("getCart", dev.gyro.wire.Request.of("getCart", cart).parameters(), -1).owner()
                != group) cart++;
        return cart;
    }

    /**
     * Right after the old leader of {@code group} (replica {@code old}) resumes, a client that knows no other replica
     * of that group asks it for {@code cart}: it answers with the item added during the freeze, or refuses (it no
     * longer leads); never with the cart as it was before the freeze.
     */
    void noStaleRead(int group, int old, long cart) {
        List<String> ring = new ArrayList<>(cluster.ring);
        ring.set(group, cluster.gyro.get(group).get(old));
        try (GyroClient only = GyroClient.connect(ring, 10_000, -1, cluster.transport)) {
            dev.gyro.wire.Reply r = only.call("getCart", cart);
            System.out.println("the resumed old leader (replica " + old + " of group " + group + ") answered getCart "
                    + cart + ": " + r);
            if (r.ok()) {
                boolean fresh = false;
                for (int i = 0; i + 1 < r.values().size(); i += 2)
                    fresh |= Long.valueOf(FRESH_ITEM).equals(r.values().get(i).toJava());
                assertThat(fresh).as("a read answered by the resumed old leader holds what was written during the"
                        + " freeze: " + r).isTrue();
            } else {
                assertThat(r.status()).as(r.toString()).isNotIn(dev.gyro.wire.Reply.Status.ABORTED);
            }
        }
    }

    /** Sends {@code signal} (STOP, CONT) to process {@code pid}. */
    static void signal(String signal, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        assertThat(kill.waitFor()).as("kill -" + signal + " " + pid).isZero();
    }
}
