package dev.gyro.cli;

import dev.gyro.client.GyroClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A ring of two instances, each a replicated group of three replicas, every replica its own process on its own database
 * (a SQLite file; a shorter run with databases on a PostgreSQL and on a MariaDB server), talking mutual TLS
 * (docs/decisions/24-ring-on-groups.md). Under a concurrent workload the leader of each group in turn is killed with
 * SIGKILL, {@link #KILLS} times on SQLite and {@link #SERVER_KILLS} on each server, each kill once the ring has made
 * progress since the last one (an event,
 * not a time), and restarted; then a follower is killed and restarted. Afterwards: nothing acknowledged lost, nothing
 * applied twice (every replica's last gsn equals the orders in its database, which lie between the orders clients saw
 * succeed and those plus the ones answered with an unknown outcome), every replica of a group equal in every table,
 * Gyro's metadata included, the replicated tables equal across groups, and the store's audit holds.
 */
@Tag("servers")
@Tag("processes")
abstract class ReplicaKillTest {

    static final long SEED = 7;
    static final int GROUPS = 2;
    static final int REPLICAS = 3;
    /**
     * Leader kills per run, alternating between the groups, the first of each group's while it holds the token: 2 on
     * SQLite and on each database server (each group's leader once). A kill costs 15-30 s of the suite on 2 cores (a
     * process restarted, a group electing, the ring moving again); a longer run widens the search:
     * {@code -Dgyro.test.kills=30} (seen passing with 30 on SQLite and 6 on each server).
     */
    static final int KILLS = Integer.getInteger("gyro.test.kills", 2),
            SERVER_KILLS = Integer.getInteger("gyro.test.kills", 2);

    final String backend;

    @TempDir
    Path dir;
    GroupProcesses cluster;

    @AfterEach
    void cleanUp() throws Exception {
        if (cluster != null) cluster.close();
    }

    /** One class per backend ({@code ReplicaKillOn*Test}), so that the suite's test JVMs share them out. */
    ReplicaKillTest(String backend) {
        this.backend = backend;
    }

    @Test
    void killedLeadersAndFollowersLoseNothingAcknowledgedAndApplyNothingTwice() throws Exception {
        int kills = backend.equals("sqlite") ? KILLS : SERVER_KILLS;
        cluster = new GroupProcesses(backend, GROUPS, REPLICAS, SEED, dir, "replica-kill-logs");
        Process[][] processes = cluster.processes;
        int tokenHolderKills = 0;
        OrderLoad load;
        try (GyroClient client = GyroClient.connect(cluster.ring, 10_000, -1, cluster.transport)) {
            load = new OrderLoad(client, 4, GROUPS);
            SplittableRandom chaos = new SplittableRandom(SEED);
            // A killed replica is started again in the background while the other group's leader is killed; its own
            // group's next kill waits for it, so a group never loses two replicas at once.
            java.util.concurrent.ExecutorService relaunch = java.util.concurrent.Executors.newFixedThreadPool(GROUPS);
            List<java.util.concurrent.Future<?>> back = new ArrayList<>();
            for (int g = 0; g < GROUPS; g++) back.add(java.util.concurrent.CompletableFuture.completedFuture(null));
            try {
                for (int kill = 0; kill < kills; kill++) {
                    int group = kill % GROUPS; // the leader of each group in turn
                    back.get(group).get(3, TimeUnit.MINUTES);
                    load.awaitOrders(load.ordersOk.get() + 2 + chaos.nextInt(4));
                    int victim = cluster.leader(group);
                    for (Process p : processes[group])
                        assertThat(p.isAlive()).as("every replica of group " + group + " runs before kill " + kill).isTrue();
                    // The first kill of each group waits for its group to hold the token: with 6 kills on a server,
                    // chance alone may never kill a token holder.
                    if (kill < GROUPS ? awaitToken(client, group) : holdsToken(client, group)) tokenHolderKills++;
                    processes[group][victim].destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL
                    back.set(group, relaunch.submit(() -> { // it catches up from its group's log
                        processes[group][victim] = cluster.launch(group, victim);
                        return null;
                    }));
                }
                for (var f : back) f.get(3, TimeUnit.MINUTES);
            } finally {
                relaunch.shutdownNow();
            }
            // a follower too
            int group = chaos.nextInt(GROUPS);
            int follower = (cluster.leader(group) + 1) % REPLICAS;
            processes[group][follower].destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            load.awaitOrders(load.ordersOk.get() + 3); // the group goes on without it
            processes[group][follower] = cluster.launch(group, follower);
            load.awaitOrders(load.ordersOk.get() + 3);
            load.end();
            RingChecks.awaitQuiet(client, GROUPS);
            cluster.awaitReplicasCaughtUp();
        }
        assertThat(load.ordersOk.get()).as("orders that succeeded").isPositive();
        assertThat(tokenHolderKills).as("kills of a leader whose group held the token").isPositive();
        cluster.stopAndCheck(load.ordersOk.get(), load.uncertain.get(), load.acknowledged);
    }

    /** Until {@code group} holds the token, as its status says (the ring is busy, so it comes round), at most 2 min. */
    static boolean awaitToken(GyroClient client, int group) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (!holdsToken(client, group)) {
            if (System.nanoTime() > deadline) throw new AssertionError("group " + group + " never held the token");
            Thread.sleep(5); // between two looks at the status: the token moves without an event to wait on here
        }
        return true;
    }

    static boolean holdsToken(GyroClient client, int group) {
        try {
            String role = new com.fasterxml.jackson.databind.ObjectMapper().readTree(client.status(group)).get("role")
                    .asText();
            return role.equals("APPLYING") || role.equals("PRIMARY") || role.equals("PARKED");
        } catch (Exception e) {
            return false;
        }
    }

}
