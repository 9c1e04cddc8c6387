package dev.gyro.cli;

import dev.gyro.client.GyroClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A machine lost for good, every replica a process of its own (docs/decisions/47-new-member.md): two groups of three
 * with mutual TLS under an order load; a follower of group 0 is killed with its database and log deleted, and one
 * command on "another machine" (`gyro instance --replica R --new-member --copy-from` a live replica's database, on new
 * addresses) makes a new member in its place; group 0's leaders are then killed until the new member leads, and the
 * orders go on through it (the clients and the other group follow the group to its new address); a follower of group 1
 * that lost its database is started again with `--rebuild --copy-from` its leader's; then every replica equal, every
 * acknowledged order in place, each applied once.
 */
@Tag("processes")
abstract class NewMemberProcessTest {

    static final long SEED = 13;

    @TempDir
    Path dir;
    GroupProcesses cluster;
    final String backend;

    /** One class per backend ({@code NewMemberProcessOn*Test}). */
    NewMemberProcessTest(String backend) {
        this.backend = backend;
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (cluster != null) cluster.close();
    }

    @Test
    void aNewMemberProcessTakesALostReplicasPlaceAndLeads() throws Exception {
        cluster = new GroupProcesses(backend, 2, 3, SEED, dir, "new-member-logs");
        Process[][] processes = cluster.processes;
        OrderLoad load;
        try (GyroClient client = GyroClient.connect(cluster.ring, 10_000, -1, cluster.transport)) {
            load = new OrderLoad(client, 3, 2);
            load.awaitOrders(5);
            int leader = cluster.leader(0);
            int lost = (leader + 1) % 3;
            processes[0][lost].destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL: the machine is gone
            cluster.loseDatabase(0, lost);
            deleteTree(cluster.logDirOf(0, lost));
            String before = cluster.ring.get(0);

            processes[0][lost] = cluster.launchNewMember(0, lost, cluster.databases[0][leader]);
            assertThat(cluster.ring.get(0)).isNotEqualTo(before);
            load.awaitOrders(load.ordersOk.get() + 5);

            // Until the new member leads (each kill hands the leadership to one of the other two).
            for (int k = 0; k < 12 && cluster.leader(0) != lost; k++) {
                int victim = cluster.leader(0);
                processes[0][victim].destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                load.awaitOrders(load.ordersOk.get() + 2);
                processes[0][victim] = cluster.launch(0, victim); // it catches up, on the group's new addresses
            }
            assertThat(cluster.leader(0)).as("the new member leads group 0").isEqualTo(lost);
            load.awaitOrders(load.ordersOk.get() + 10); // through the new member, at its new address

            // A follower of group 1 loses its database (its log stays): started again with a copy of its leader's.
            int leader1 = cluster.leader(1), follower = (leader1 + 1) % 3;
            processes[1][follower].destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            cluster.loseDatabase(1, follower);
            processes[1][follower] = cluster.launchRebuilt(1, follower, cluster.databases[1][leader1]);
            load.awaitOrders(load.ordersOk.get() + 5);
            load.end();
            RingChecks.awaitQuiet(client, 2);
            cluster.awaitReplicasCaughtUp();
        }
        assertThat(load.ordersOk.get()).isPositive();
        cluster.stopAndCheck(load.ordersOk.get(), load.uncertain.get(), load.acknowledged, 1); // one ring change: the move
    }

    private static void deleteTree(Path root) throws Exception {
        if (!Files.exists(root)) return;
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }
}
