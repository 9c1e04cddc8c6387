package dev.gyro.cli;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.apps.store.StoreAudit;
import dev.gyro.check.ReplicaCheck;
import dev.gyro.servers.FreePorts;
import dev.gyro.wire.Transport;
import dev.gyro.wire.Wire;
import dev.gyro.wire.tls.Certificates;
import dev.gyro.wire.tls.TlsFiles;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCalls;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A ring of replicated groups of the online store, every replica a {@code gyro instance --replica} process of its own
 * on its own database (a SQLite file, or a fresh database on a throwaway PostgreSQL or MariaDB server), talking mutual
 * TLS (docs/decisions/24-ring-on-groups.md); what the tests that kill or freeze replicas share. What each replica
 * logs is kept under {@code target/<logs>/<backend>} (the temporary folder is not), since what a replica said is what
 * a failure needs.
 */
final class GroupProcesses implements AutoCloseable {

    final int groups;
    final int replicas;
    final long seed;
    final String backend;
    final Path dir;
    final Path logFolder;
    /** Per group and replica: its database (a SQLite file or a JDBC URL on a throwaway server). */
    final String[][] databases;
    final Process[][] processes;
    /** Per group: its replicas' Gyro addresses. */
    final List<List<String>> gyro = new ArrayList<>();
    /** Per group: its group log's addresses, joined by {@code +}. */
    final List<String> logs = new ArrayList<>();
    /** Per group: its address in the ring ({@code A+B+C}). */
    final List<String> ring = new ArrayList<>();
    final Transport transport;

    /**
     * Starts every replica of {@code groups} groups of {@code replicas}; skips the calling test (fails it under
     * CI=true) when the backend's server cannot be started here.
     */
    GroupProcesses(String backend, int groups, int replicas, long seed, Path dir, String logs) throws Exception {
        this.backend = backend;
        this.groups = groups;
        this.replicas = replicas;
        this.seed = seed;
        this.dir = dir;
        this.databases = new String[groups][replicas];
        this.processes = new Process[groups][replicas];
        this.logFolder = Files.createDirectories(Path.of("target", logs, backend));
        try (var old = Files.list(logFolder)) {
            for (Path f : old.toList()) Files.delete(f);
        }
        databases();
        List<Integer> ports = FreePorts.take(2 * groups * replicas);
        for (int g = 0, k = 0; g < groups; g++) {
            List<String> gs = new ArrayList<>(), ls = new ArrayList<>();
            for (int r = 0; r < replicas; r++) {
                gs.add("127.0.0.1:" + ports.get(k++));
                ls.add("127.0.0.1:" + ports.get(k++));
            }
            gyro.add(gs);
            this.logs.add(String.join("+", ls));
            ring.add(String.join("+", gs));
        }
        Certificates.createCluster(dir.resolve("tls"), "replicas-" + logs, groups, List.of());
        transport = Transport.mutualTls(new TlsFiles(dir.resolve("tls")), Certificates.CLIENT);
        for (int g = 0; g < groups; g++) for (int r = 0; r < replicas; r++) processes[g][r] = launch(g, r);
    }

    /** Every replica still running is killed (SIGKILL). */
    @Override
    public void close() throws InterruptedException {
        for (Process[] g : processes) for (Process p : g) if (p != null) p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }

    /** The JDBC URL of a replica's database. */
    String database(int group, int replica) {
        String t = databases[group][replica];
        return dev.gyro.runtime.db.Dialect.forTarget(t).jdbcUrl(t);
    }

    /** Each replica's database: SQLite files here, or fresh databases on a throwaway server (skipped when missing). */
    private void databases() {
        for (int g = 0; g < groups; g++)
            for (int r = 0; r < replicas; r++) {
                if (backend.equals("sqlite")) {
                    databases[g][r] = dir.resolve("group-" + g + "-replica-" + r + ".db").toString();
                    continue;
                }
                databases[g][r] = freshDatabase(backend);
            }
    }

    /**
     * A fresh database on the throwaway server of {@code backend} (postgres, mariadb); skips the calling test (fails it
     * under CI=true) when that server cannot be started here.
     */
    static String freshDatabase(String backend) {
        dev.gyro.servers.ServerKind kind = dev.gyro.servers.ServerKind.parse(backend);
        String missing = kind.unavailableReason();
        if (missing != null) {
            if ("true".equalsIgnoreCase(System.getenv("CI")))
                org.junit.jupiter.api.Assertions.fail("CI=true and " + backend + " cannot be tested: " + missing);
            org.junit.jupiter.api.Assumptions.abort("skipped: " + missing);
        }
        return dev.gyro.servers.ThrowawayServers.freshDatabase(kind, 0);
    }

    /** Starts replica {@code replica} of {@code group} and waits until it says it runs. */
    Process launch(int group, int replica) throws Exception {
        return launch(group, replica, "--load", "1");
    }

    /**
     * Starts replica {@code replica} of {@code group} with its database replaced by a copy of {@code copyFrom}'s (a
     * live replica's) and its own group log (docs/decisions/45-database-as-snapshot.md); waits until it says it runs.
     */
    Process launchRebuilt(int group, int replica, String copyFrom) throws Exception {
        return launch(group, replica, "--rebuild", "--copy-from", copyFrom);
    }

    private Process launch(int group, int replica, String... more) throws Exception {
        Path log = logOf(group, replica);
        ProcessBuilder pb = new ProcessBuilder(GyroProcesses.command("-Dorg.slf4j.simpleLogger.log.org.apache.ratis=error"));
        pb.command().addAll(List.of("instance", "--id", Integer.toString(group), "--replica", Integer.toString(replica),
                "--ring", String.join(",", ring), "--group-log", logs.get(group),
                "--seed", Long.toString(seed), "--tls-dir", dir.resolve("tls").toString(), "--http", "none"));
        pb.command().addAll(List.of(more));
        if (backend.equals("sqlite")) pb.command().addAll(List.of("--db", databases[group][replica]));
        else pb.command().addAll(List.of("--jdbc-url", databases[group][replica], "--log-dir",
                logDirOf(group, replica).toString()));
        return GyroProcesses.start(pb, "gyro instance " + group + " replica " + replica, log);
    }

    /** Where a replica keeps its group log: beside its SQLite file, or one folder per server database. */
    Path logDirOf(int group, int replica) {
        String db = databases[group][replica];
        return backend.equals("sqlite") ? Path.of(db + ".group-log") : dir.resolve("group-" + group + "-replica-"
                + replica + "-" + Integer.toHexString(db.hashCode()) + ".group-log");
    }

    /** Replica {@code replica}'s database is lost: its SQLite files deleted (a server's database is left as it is). */
    void loseDatabase(int group, int replica) throws java.io.IOException {
        if (!backend.equals("sqlite")) return;
        for (String suffix : new String[] {"", "-wal", "-shm"})
            Files.deleteIfExists(Path.of(databases[group][replica] + suffix));
    }

    /**
     * Replica {@code replica} of {@code group}, whose process, database and log are gone, replaced by a new member on
     * new addresses with a new database made a copy of {@code copyFrom} (docs/decisions/47-new-member.md); every later
     * launch names the new addresses. Returns once it says it runs, a member of its group.
     */
    Process launchNewMember(int group, int replica, String copyFrom) throws Exception {
        List<Integer> ports = FreePorts.take(2);
        List<String> gs = new ArrayList<>(gyro.get(group));
        gs.set(replica, "127.0.0.1:" + ports.get(0));
        gyro.set(group, gs);
        ring.set(group, String.join("+", gs));
        List<String> ls = new ArrayList<>(List.of(logs.get(group).split("\\+")));
        ls.set(replica, "127.0.0.1:" + ports.get(1));
        logs.set(group, String.join("+", ls));
        databases[group][replica] = backend.equals("sqlite")
                ? dir.resolve("group-" + group + "-replica-" + replica + "-new.db").toString() : freshDatabase(backend);
        return launch(group, replica, "--new-member", "--copy-from", copyFrom);
    }

    /** The replica of {@code group} that leads it: the only one whose Gyro address answers (only the leader listens). */
    int leader(int group) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < deadline) {
            for (int r = 0; r < replicas; r++) {
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

    /**
     * Until every replica of each group has applied its group's log as far as the others (read from each replica's
     * database, where the applied log index is recorded with the rows): a restarted follower may still be catching up
     * when the ring is quiet.
     */
    /**
     * Until every replica of every group has applied some of its group's log: a replica that started late may have an
     * empty log for a while, and Ratis counts no vote of a replica with an empty log once its group has committed
     * entries, so a group that lost its leader then could elect none until the old one returned
     * (docs/decisions/40-peers-abandon-a-frozen-leader.md).
     */
    void awaitEveryReplicaApplied() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (true) {
            StringBuilder behind = new StringBuilder();
            for (int g = 0; g < groups; g++)
                for (int r = 0; r < replicas; r++)
                    try (Connection c = DriverManager.getConnection(database(g, r))) {
                        if (RingChecks.scalar(c, "SELECT applied_index FROM gyro_replica") < 1)
                            behind.append(" replica ").append(r).append(" of group ").append(g);
                    }
            if (behind.isEmpty()) return;
            if (System.nanoTime() > deadline)
                throw new AssertionError("no entry applied within 2 minutes by" + behind);
            Thread.sleep(50); // the replicas' databases are what changes
        }
    }

    void awaitReplicasCaughtUp() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        String last = "";
        while (System.nanoTime() < deadline) {
            boolean all = true;
            StringBuilder seen = new StringBuilder();
            for (int g = 0; g < groups; g++) {
                Set<Long> indexes = new HashSet<>();
                for (int r = 0; r < replicas; r++) {
                    try (Connection c = DriverManager.getConnection(database(g, r))) {
                        long i = RingChecks.scalar(c, "SELECT applied_index FROM gyro_replica");
                        indexes.add(i);
                        seen.append("group ").append(g).append(" replica ").append(r).append(": ").append(i).append("; ");
                    }
                }
                if (indexes.size() != 1) all = false;
            }
            last = seen.toString();
            if (all) return;
            for (int g = 0; g < groups; g++)
                for (int r = 0; r < replicas; r++)
                    if (!processes[g][r].isAlive())
                        throw new AssertionError("replica " + r + " of group " + g + " exited (code "
                                + processes[g][r].exitValue() + ") before its group caught up (" + last + "); it said:\n"
                                + logTail(g, r));
            Thread.sleep(50);
        }
        StringBuilder said = new StringBuilder();
        for (int g = 0; g < groups; g++)
            for (int r = 0; r < replicas; r++) said.append("\ngroup ").append(g).append(" replica ").append(r)
                    .append(" said:\n").append(logTail(g, r));
        throw new AssertionError("replicas did not catch up with their groups' logs: " + last + said);
    }

    /** Where replica {@code r} of group {@code g} logs, every launch appended. */
    Path logOf(int g, int r) {
        return logFolder.resolve("group-" + g + "-replica-" + r + ".log");
    }

    /** The last lines replica {@code r} of group {@code g} logged, over all its launches. */
    String logTail(int g, int r) throws java.io.IOException {
        Path log = logOf(g, r);
        if (!Files.exists(log)) return "(nothing)";
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    }

    /**
     * Stops every replica cleanly (SIGTERM) and checks their databases: every replica of a group equal in every table,
     * Gyro's metadata included; the replicated tables equal across groups; every replica's last gsn equal to the orders
     * in its database (each order applied once), which lie between {@code ordersOk} and {@code ordersOk + uncertain};
     * every order in {@code acknowledgedCarts} present; and the store's audit holds.
     */
    void stopAndCheck(long ordersOk, long uncertain, Set<Long> acknowledgedCarts) throws Exception {
        stopAndCheck(ordersOk, uncertain, acknowledgedCarts, 0);
    }

    /** As above, the ring having run {@code ringChanges} global requests of its own besides the orders. */
    void stopAndCheck(long ordersOk, long uncertain, Set<Long> acknowledgedCarts, long ringChanges) throws Exception {
        for (Process[] g : processes) for (Process p : g) p.destroy(); // SIGTERM: clean shutdown
        for (Process[] g : processes) for (Process p : g) p.waitFor(30, TimeUnit.SECONDS);
        Set<String> acrossGroups = new HashSet<>();
        long orders = -1;
        for (int g = 0; g < groups; g++) {
            List<Connection> conns = new ArrayList<>();
            try {
                for (int r = 0; r < replicas; r++)
                    conns.add(DriverManager.getConnection(database(g, r)));
                assertThat(ReplicaCheck.compareReplicas(conns).differences()).as("group " + g + "'s replicas").isEmpty();
                for (String table : new OnlineStore().replicatedTables())
                    acrossGroups.add(table + "=" + ReplicaCheck.digest(conns.get(0), table, 0).sha256());
                long here = RingChecks.scalar(conns.get(0), "SELECT COUNT(*) FROM ORDERS");
                if (orders < 0) orders = here;
                assertThat(here).as("orders in group " + g).isEqualTo(orders);
                for (int r = 0; r < replicas; r++)
                    assertThat(RingChecks.scalar(conns.get(r), "SELECT last_gsn FROM gyro_state"))
                            .as("last applied gsn of replica " + r + " of group " + g + ": each order applied once")
                            .isEqualTo(orders + ringChanges);
                Set<Long> carts = new HashSet<>();
                try (var s = conns.get(0).createStatement(); var rs = s.executeQuery("SELECT CART_ID FROM ORDERS")) {
                    while (rs.next()) carts.add(rs.getLong(1));
                }
                assertThat(carts).as("group " + g + ": the orders clients saw acknowledged").containsAll(acknowledgedCarts);
            } finally {
                for (Connection c : conns) c.close();
            }
        }
        assertThat(acrossGroups).as("replicated tables, one digest each across the groups")
                .hasSize(new OnlineStore().replicatedTables().size());
        assertThat(orders).as("orders: those acknowledged, at most those whose outcome was unknown besides")
                .isBetween(ordersOk, ordersOk + uncertain);
        List<Connection> one = new ArrayList<>();
        try {
            for (int g = 0; g < groups; g++) one.add(DriverManager.getConnection(database(g, 0)));
            long[] initial = OnlineStore.initialStock(OnlineStore.ITEMS_PER_SCALE, OnlineStore.MIN_STOCK, seed);
            assertThat(StoreAudit.audit(one, dev.gyro.protocol.PartitionMap.uniform(groups), initial, -1)).isEmpty();
        } finally {
            for (Connection c : one) c.close();
        }
    }
}
