package dev.gyro.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gyro.apps.store.OnlineStore;
import dev.gyro.apps.store.StoreAudit;
import dev.gyro.client.GyroClient;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.check.ReplicaCheck;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three instances as three processes on three SQLite files. Under a concurrent workload, instances are killed
 * with SIGKILL at random moments (the token holder included) and restarted. Afterwards every update must have
 * been applied exactly once everywhere: replicated tables equal, stock conserved, and each instance's last
 * applied gsn equal to the number of orders (every successful order is exactly one state update).
 */
@Tag("processes")
class KillAndRestartTest {

    static final long SEED = 42;

    @TempDir
    Path dir;
    final Process[] processes = new Process[3];
    final List<String> ring = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        for (Process p : processes) if (p != null) p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }

    Process launch(int id) throws Exception {
        Path log = dir.resolve("instance-" + id + ".log");
        ProcessBuilder pb = new ProcessBuilder(GyroProcesses.command(List.of("instance", "--id", Integer.toString(id),
                "--ring", String.join(",", ring), "--db", LocalCluster.databaseFile(dir, id).toString(), "--load", "1",
                "--seed", Long.toString(SEED), "--tls-dir", dir.resolve("tls").toString()))); // three processes, mutual TLS
        return GyroProcesses.start(pb, "gyro instance " + id, log);
    }

    @Test
    void killedInstancesResumeWithoutLosingOrRepeatingAnUpdate() throws Exception {
        for (int port : dev.gyro.servers.FreePorts.take(3)) ring.add("127.0.0.1:" + port);
        dev.gyro.wire.tls.Certificates.createCluster(dir.resolve("tls"), "kill-and-restart", 3, List.of());
        for (int i = 0; i < 3; i++) processes[i] = launch(i);
        OrderLoad load;
        try (GyroClient client = GyroClient.connect(ring, 5_000, -1, dev.gyro.wire.Transport.mutualTls(
                new dev.gyro.wire.tls.TlsFiles(dir.resolve("tls")), dev.gyro.wire.tls.Certificates.CLIENT))) {
            load = new OrderLoad(client, 4, 3);
            SplittableRandom chaos = new SplittableRandom(SEED);
            int[] victims = {0, 1, 2, chaos.nextInt(3)};
            for (int victim : victims) {
                // Each kill comes once the ring has made progress since the last restart: an event, not a time.
                load.awaitOrders(load.ordersOk.get() + 5 + chaos.nextInt(10));
                processes[victim].destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL: no shutdown hook
                processes[victim] = launch(victim); // returns once the instance says it serves
            }
            load.awaitOrders(load.ordersOk.get() + 5);
            load.end();
            assertThat(load.ordersOk.get()).as("orders that succeeded").isPositive();
            awaitQuiet(client);
        }
        for (Process p : processes) p.destroy(); // SIGTERM: clean shutdown
        for (Process p : processes) p.waitFor(20, TimeUnit.SECONDS);

        List<Connection> conns = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) conns.add(DriverManager.getConnection("jdbc:sqlite:" + LocalCluster.databaseFile(dir, i)));
            for (String table : new OnlineStore().replicatedTables()) {
                Set<String> copies = new HashSet<>();
                for (int i = 0; i < 3; i++) {
                    ReplicaCheck.TableDigest d = ReplicaCheck.digest(conns.get(i), table, i);
                    copies.add(d.rows() + "/" + d.sha256());
                }
                assertThat(copies).as("copies of " + table).hasSize(1);
            }
            long[] initial = OnlineStore.initialStock(OnlineStore.ITEMS_PER_SCALE, OnlineStore.MIN_STOCK, SEED);
            assertThat(StoreAudit.audit(conns, dev.gyro.protocol.PartitionMap.uniform(3), initial, -1)).isEmpty();
            long orders = scalar(conns.get(0), "SELECT COUNT(*) FROM ORDERS");
            assertThat(orders).isBetween(load.ordersOk.get(), load.ordersOk.get() + load.uncertain.get());
            for (int i = 0; i < 3; i++)
                assertThat(scalar(conns.get(i), "SELECT last_gsn FROM gyro_state"))
                        .as("last applied gsn of instance " + i).isEqualTo(orders);
        } finally {
            for (Connection c : conns) c.close();
        }
    }

    /** Until {@code n} orders succeeded; the deadline only ends a hung test. */
    static void awaitOrders(AtomicLong ordersOk, long n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (ordersOk.get() < n) {
            if (System.nanoTime() > deadline)
                throw new AssertionError("waited 3 minutes for " + n + " orders; " + ordersOk.get() + " succeeded");
            Thread.sleep(5);
        }
    }

    void awaitQuiet(GyroClient client) throws Exception {
        awaitQuiet(client, 3);
    }

    /** Until the ring of {@code instances} is quiet: one gsn everywhere, the token parked, no global waiting. */
    static void awaitQuiet(GyroClient client, int instances) throws Exception {
        ObjectMapper json = new ObjectMapper();
        long deadline = System.currentTimeMillis() + 180_000;
        String last = "";
        while (System.currentTimeMillis() < deadline) {
            try {
                Set<Long> gsns = new HashSet<>();
                int parked = 0;
                long queued = 0;
                StringBuilder all = new StringBuilder();
                for (int i = 0; i < instances; i++) {
                    JsonNode s = json.readTree(client.status(i));
                    gsns.add(s.get("lastGsn").asLong());
                    queued += s.get("queuedGlobals").asLong();
                    if (s.get("role").asText().equals("PARKED")) parked++;
                    all.append(s).append('\n');
                }
                last = all.toString();
                // quiet: one gsn everywhere, the token parked, and no global waiting for it anywhere
                if (gsns.size() == 1 && parked == 1 && queued == 0) return;
            } catch (RuntimeException e) {
                last = e.toString();
            }
            Thread.sleep(50);
        }
        throw new AssertionError("ring did not become quiet; last status:\n" + last);
    }

    static long scalar(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
