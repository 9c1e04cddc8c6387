package dev.gyro.cli;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.apps.store.StoreAudit;
import dev.gyro.check.ReplicaCheck;
import dev.gyro.client.GyroClient;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.servers.FreePorts;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Transport;
import dev.gyro.wire.Wire;
import dev.gyro.wire.tls.Certificates;
import dev.gyro.wire.tls.TlsFiles;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCalls;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

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
     * Leader kills per run, alternating between the groups, the first of each group's while it holds the token: 4 on
     * SQLite, 2 on each database server (each group's leader once). A kill costs 15-30 s of the suite on 2 cores (a
     * process restarted, a group electing, the ring moving again); a longer run widens the search:
     * {@code -Dgyro.test.kills=30} (seen passing with 30 on SQLite and 6 on each server).
     */
    static final int KILLS = Integer.getInteger("gyro.test.kills", 4),
            SERVER_KILLS = Integer.getInteger("gyro.test.kills", 2);
    /** Per group and replica: its database (a SQLite file or a JDBC URL on a throwaway server). */
    final String[][] databases = new String[GROUPS][REPLICAS];
    final String backend;

    @TempDir
    Path dir;
    final Process[][] processes = new Process[GROUPS][REPLICAS];
    final List<List<String>> gyro = new ArrayList<>();
    final List<String> logs = new ArrayList<>();
    final List<String> ring = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        for (Process[] g : processes) for (Process p : g) if (p != null) p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }

    /** The JDBC URL of a replica's database. */
    String database(int group, int replica) {
        String t = databases[group][replica];
        return dev.gyro.runtime.db.Dialect.forTarget(t).jdbcUrl(t);
    }

    /** Each replica's database: SQLite files here, or fresh databases on a throwaway server (skipped when missing). */
    void databases() {
        for (int g = 0; g < GROUPS; g++)
            for (int r = 0; r < REPLICAS; r++) {
                if (backend.equals("sqlite")) {
                    databases[g][r] = dir.resolve("group-" + g + "-replica-" + r + ".db").toString();
                    continue;
                }
                dev.gyro.servers.ServerKind kind = dev.gyro.servers.ServerKind.parse(backend);
                String missing = kind.unavailableReason();
                if (missing != null) {
                    if ("true".equalsIgnoreCase(System.getenv("CI")))
                        org.junit.jupiter.api.Assertions.fail("CI=true and " + backend + " cannot be tested: " + missing);
                    org.junit.jupiter.api.Assumptions.abort("skipped: " + missing);
                }
                databases[g][r] = dev.gyro.servers.ThrowawayServers.freshDatabase(kind, 0);
            }
    }

    Process launch(int group, int replica) throws Exception {
        Path log = logOf(group, replica);
        Files.createDirectories(log.getParent());
        ProcessBuilder pb = new ProcessBuilder(GyroProcesses.command("-Dorg.slf4j.simpleLogger.log.org.apache.ratis=error"));
        pb.command().addAll(List.of("instance", "--id", Integer.toString(group), "--replica", Integer.toString(replica),
                "--ring", String.join(",", ring), "--group-log", logs.get(group), "--load", "1",
                "--seed", Long.toString(SEED), "--tls-dir", dir.resolve("tls").toString(), "--http", "none"));
        if (backend.equals("sqlite")) pb.command().addAll(List.of("--db", databases[group][replica]));
        else pb.command().addAll(List.of("--jdbc-url", databases[group][replica], "--log-dir",
                dir.resolve("group-" + group + "-replica-" + replica + ".group-log").toString()));
        pb.redirectErrorStream(true);
        Process p = pb.start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream()));
        StringBuilder seen = new StringBuilder();
        for (String line; (line = out.readLine()) != null; ) {
            seen.append(line).append('\n');
            if (line.startsWith("gyro instance " + group + " replica " + replica)) break;
        }
        assertThat(p.isAlive()).as("replica " + replica + " of instance " + group + " started; it said:\n" + seen).isTrue();
        Thread drain = new Thread(() -> {
            try (var w = Files.newBufferedWriter(log, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND)) {
                for (String line; (line = out.readLine()) != null; ) w.write(line + "\n");
            } catch (Exception ignored) {
                // the process was killed
            }
        });
        drain.setDaemon(true);
        drain.start();
        p.onExit().thenAccept(x -> { // a replica that ends by itself is a failure the log must show
            try {
                Files.writeString(log, "-- process " + x.pid() + " exited with status " + x.exitValue() + "\n",
                        java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            } catch (java.io.IOException ignored) {
                // the folder is gone
            }
        });
        return p;
    }

    /** The replica of {@code group} that leads it: the only one whose Gyro address answers (only the leader listens). */
    int leader(int group, Transport transport) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < deadline) {
            for (int r = 0; r < REPLICAS; r++) {
                ManagedChannel ch = transport.channel(gyro.get(group).get(r));
                try {
                    ClientCalls.blockingUnaryCall(ch, Wire.STATUS,
                            CallOptions.DEFAULT.withDeadlineAfter(2, TimeUnit.SECONDS), new byte[0]);
                    return r;
                } catch (RuntimeException notListening) {
                    // a follower, or a replica that is down
                } finally {
                    ch.shutdownNow();
                }
            }
            Thread.sleep(20); // mid-election: no replica listens yet
        }
        throw new AssertionError("group " + group + " has had no leader for 2 minutes");
    }

    /** One class per backend ({@code ReplicaKillOn*Test}), so that the suite's test JVMs share them out. */
    ReplicaKillTest(String backend) {
        this.backend = backend;
    }

    @Test
    void killedLeadersAndFollowersLoseNothingAcknowledgedAndApplyNothingTwice() throws Exception {
        databases();
        int kills = backend.equals("sqlite") ? KILLS : SERVER_KILLS;
        try (var old = Files.list(Files.createDirectories(Path.of("target", "replica-kill-logs", backend)))) {
            for (Path f : old.toList()) Files.delete(f);
        }
        List<Integer> ports = FreePorts.take(2 * GROUPS * REPLICAS);
        for (int g = 0, k = 0; g < GROUPS; g++) {
            List<String> gs = new ArrayList<>(), ls = new ArrayList<>();
            for (int r = 0; r < REPLICAS; r++) {
                gs.add("127.0.0.1:" + ports.get(k++));
                ls.add("127.0.0.1:" + ports.get(k++));
            }
            gyro.add(gs);
            logs.add(String.join("+", ls));
            ring.add(String.join("+", gs));
        }
        Certificates.createCluster(dir.resolve("tls"), "replica-kill", GROUPS, List.of());
        Transport transport = Transport.mutualTls(new TlsFiles(dir.resolve("tls")), Certificates.CLIENT);
        for (int g = 0; g < GROUPS; g++) for (int r = 0; r < REPLICAS; r++) processes[g][r] = launch(g, r);

        AtomicBoolean stop = new AtomicBoolean();
        java.util.concurrent.atomic.AtomicReference<Throwable> clientFailure = new java.util.concurrent.atomic.AtomicReference<>();
        AtomicLong ordersOk = new AtomicLong(), uncertain = new AtomicLong();
        int tokenHolderKills = 0;
        try (GyroClient client = GyroClient.connect(ring, 10_000, -1, transport)) {
            List<Thread> clients = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int id = t;
                Thread th = new Thread(() -> {
                    SplittableRandom random = new SplittableRandom(id);
                    try {
                        for (long seq = 1; !stop.get(); seq++) {
                            long cart = (id + 1L) * 1_000_000 + seq;
                            if (!client.call("createCart", cart).ok()) continue;
                            for (int l = 0; l < 2; l++)
                                client.call("addItem", cart, 1L + random.nextInt(100), 1 + random.nextInt(2));
                            Reply r = client.call("order", cart);
                            if (r.ok()) ordersOk.incrementAndGet();
                            else if (r.status() == Reply.Status.UNAVAILABLE) uncertain.incrementAndGet();
                        }
                    } catch (RuntimeException | Error e) {
                        clientFailure.compareAndSet(null, e);
                        stop.set(true);
                    }
                });
                clients.add(th);
                th.start();
            }
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
                    awaitOrders(ordersOk, ordersOk.get() + 2 + chaos.nextInt(4), clientFailure);
                    int victim = leader(group, transport);
                    for (Process p : processes[group])
                        assertThat(p.isAlive()).as("every replica of group " + group + " runs before kill " + kill).isTrue();
                    // The first kill of each group waits for its group to hold the token: with 6 kills on a server,
                    // chance alone may never kill a token holder.
                    if (kill < GROUPS ? awaitToken(client, group) : holdsToken(client, group)) tokenHolderKills++;
                    processes[group][victim].destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL
                    back.set(group, relaunch.submit(() -> { // it catches up from its group's log
                        processes[group][victim] = launch(group, victim);
                        return null;
                    }));
                }
                for (var f : back) f.get(3, TimeUnit.MINUTES);
            } finally {
                relaunch.shutdownNow();
            }
            // a follower too
            int group = chaos.nextInt(GROUPS);
            int follower = (leader(group, transport) + 1) % REPLICAS;
            processes[group][follower].destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            awaitOrders(ordersOk, ordersOk.get() + 3, clientFailure); // the group goes on without it
            processes[group][follower] = launch(group, follower);
            awaitOrders(ordersOk, ordersOk.get() + 3, clientFailure);
            stop.set(true);
            for (Thread th : clients) th.join();
            KillAndRestartTest.awaitQuiet(client, GROUPS);
            awaitReplicasCaughtUp();
        }
        assertThat(ordersOk.get()).as("orders that succeeded").isPositive();
        assertThat(tokenHolderKills).as("kills of a leader whose group held the token").isPositive();
        for (Process[] g : processes) for (Process p : g) p.destroy(); // SIGTERM: clean shutdown
        for (Process[] g : processes) for (Process p : g) p.waitFor(30, TimeUnit.SECONDS);

        Set<String> acrossGroups = new HashSet<>();
        long orders = -1;
        for (int g = 0; g < GROUPS; g++) {
            List<Connection> conns = new ArrayList<>();
            try {
                for (int r = 0; r < REPLICAS; r++)
                    conns.add(DriverManager.getConnection(database(g, r)));
                for (String table : ReplicaCheck.tables(conns.get(0))) {
                    if (table.equalsIgnoreCase("gyro_replica")) continue; // each replica's own stamp
                    Set<String> copies = new HashSet<>();
                    for (int r = 0; r < REPLICAS; r++) {
                        ReplicaCheck.TableDigest d = ReplicaCheck.digest(conns.get(r), table, r);
                        copies.add(d.rows() + "/" + d.sha256());
                    }
                    assertThat(copies).as("group " + g + ": copies of " + table + " on its replicas").hasSize(1);
                }
                for (String table : new OnlineStore().replicatedTables())
                    acrossGroups.add(table + "=" + ReplicaCheck.digest(conns.get(0), table, 0).sha256());
                long here = KillAndRestartTest.scalar(conns.get(0), "SELECT COUNT(*) FROM ORDERS");
                if (orders < 0) orders = here;
                assertThat(here).as("orders in group " + g).isEqualTo(orders);
                for (int r = 0; r < REPLICAS; r++)
                    assertThat(KillAndRestartTest.scalar(conns.get(r), "SELECT last_gsn FROM gyro_state"))
                            .as("last applied gsn of replica " + r + " of group " + g + ": each order applied once")
                            .isEqualTo(orders);
            } finally {
                for (Connection c : conns) c.close();
            }
        }
        assertThat(acrossGroups).as("replicated tables, one digest each across the groups")
                .hasSize(new OnlineStore().replicatedTables().size());
        assertThat(orders).as("orders: those acknowledged, at most those whose outcome was unknown besides")
                .isBetween(ordersOk.get(), ordersOk.get() + uncertain.get());
        List<Connection> one = new ArrayList<>();
        try {
            for (int g = 0; g < GROUPS; g++) one.add(DriverManager.getConnection(database(g, 0)));
            long[] initial = OnlineStore.initialStock(OnlineStore.ITEMS_PER_SCALE, OnlineStore.MIN_STOCK, SEED);
            assertThat(StoreAudit.audit(one, dev.gyro.protocol.PartitionMap.uniform(GROUPS), initial, -1)).isEmpty();
        } finally {
            for (Connection c : one) c.close();
        }
    }

    /** Until {@code n} orders succeeded; fails at once when a client thread failed; the deadline only ends a hang. */
    static void awaitOrders(AtomicLong ordersOk, long n, java.util.concurrent.atomic.AtomicReference<Throwable> failure)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (ordersOk.get() < n) {
            if (failure.get() != null) throw new AssertionError("a client failed", failure.get());
            if (System.nanoTime() > deadline)
                throw new AssertionError("waited 3 minutes for " + n + " orders; " + ordersOk.get() + " succeeded");
            Thread.sleep(5);
        }
    }

    /**
     * Until every replica of each group has applied its group's log as far as the others (read from each replica's
     * database, where the applied log index is recorded with the rows): a restarted follower may still be catching up
     * when the ring is quiet.
     */
    void awaitReplicasCaughtUp() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        String last = "";
        while (System.nanoTime() < deadline) {
            boolean all = true;
            StringBuilder seen = new StringBuilder();
            for (int g = 0; g < GROUPS; g++) {
                Set<Long> indexes = new HashSet<>();
                for (int r = 0; r < REPLICAS; r++) {
                    try (Connection c = DriverManager.getConnection(database(g, r))) {
                        long i = KillAndRestartTest.scalar(c, "SELECT applied_index FROM gyro_replica");
                        indexes.add(i);
                        seen.append("group ").append(g).append(" replica ").append(r).append(": ").append(i).append("; ");
                    }
                }
                if (indexes.size() != 1) all = false;
            }
            last = seen.toString();
            if (all) return;
            for (int g = 0; g < GROUPS; g++)
                for (int r = 0; r < REPLICAS; r++)
                    if (!processes[g][r].isAlive())
                        throw new AssertionError("replica " + r + " of group " + g + " exited (code "
                                + processes[g][r].exitValue() + ") before its group caught up (" + last + "); it said:\n"
                                + logTail(g, r));
            Thread.sleep(50);
        }
        StringBuilder said = new StringBuilder();
        for (int g = 0; g < GROUPS; g++)
            for (int r = 0; r < REPLICAS; r++) said.append("\ngroup ").append(g).append(" replica ").append(r)
                    .append(" said:\n").append(logTail(g, r));
        throw new AssertionError("replicas did not catch up with their groups' logs: " + last + said);
    }

    /** Where replica {@code r} of group {@code g} logs, every launch appended: kept after the run (the temporary
     * folder is not), since what a replica said is what a failure needs. */
    Path logOf(int g, int r) {
        return Path.of("target", "replica-kill-logs", backend, "group-" + g + "-replica-" + r + ".log");
    }

    /** The last lines replica {@code r} of group {@code g} logged, over all its launches. */
    String logTail(int g, int r) throws java.io.IOException {
        Path log = logOf(g, r);
        if (!Files.exists(log)) return "(nothing)";
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    }

    /** Until {@code group} holds the token, as its status says (the ring is busy, so it comes round), at most 2 min. */
    private static boolean awaitToken(GyroClient client, int group) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (!holdsToken(client, group)) {
            if (System.nanoTime() > deadline) throw new AssertionError("group " + group + " never held the token");
            Thread.sleep(5); // between two looks at the status: the token moves without an event to wait on here
        }
        return true;
    }

    private static boolean holdsToken(GyroClient client, int group) {
        try {
            String role = new com.fasterxml.jackson.databind.ObjectMapper().readTree(client.status(group)).get("role")
                    .asText();
            return role.equals("APPLYING") || role.equals("PRIMARY") || role.equals("PARKED");
        } catch (Exception e) {
            return false;
        }
    }

}
