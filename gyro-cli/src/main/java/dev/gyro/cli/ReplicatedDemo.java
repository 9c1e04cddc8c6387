package dev.gyro.cli;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.apps.store.StoreAudit;
import dev.gyro.check.ReplicaCheck;
import dev.gyro.cluster.Backend;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.replication.GroupTimeouts;
import dev.gyro.replication.InstanceReplica;
import dev.gyro.replication.ReplicatedRing;
import dev.gyro.runtime.GyroInstance;
import dev.gyro.runtime.InstanceConfig;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * {@code gyro demo --replicas R}: the online store over N instances, each a replicated group of R replicas with its own
 * database (docs/decisions/24-ring-on-groups.md), all in this process over real sockets; with {@code --chaos}, group
 * leaders are killed abruptly during the run (at least two, one of them while its group holds the token) and brought
 * back. Then: the ring quiet, every replica caught up, every table equal within each group (Gyro's metadata included),
 * the replicated tables equal everywhere, the store's invariants on every group, and every order a client saw
 * succeed present.
 */
final class ReplicatedDemo {

    private final Demo demo;
    private final Demo.Settings s;
    private final PrintStream out;
    private final SplittableRandom random;
    private ReplicatedRing ring;
    private int kills;
    private int killsHoldingToken;
    private long nextKillNanos;
    private long startNanos;
    private final List<String> chaosFailures = new ArrayList<>();

    ReplicatedDemo(Demo demo, Demo.Settings settings, PrintStream out) {
        this.demo = demo;
        this.s = settings;
        this.out = out;
        this.random = new SplittableRandom(settings.seed() ^ 0x5DEECE66DL);
    }

    Demo.Result run() throws Exception {
        int n = s.instances(), r = s.replicas();
        out.printf("Gyro demo: online store (paper Section IV) on %d instances, each a group of %d replicas: %d %s under"
                + " %s%s%n", n, r, n * r, s.backend() == Backend.SQLITE ? "SQLite files"
                : s.backend() == Backend.POSTGRES ? "PostgreSQL servers" : "MariaDB servers", s.dir(),
                s.chaos() ? "; leaders killed at random moments (--chaos)" : "");
        OwnedFolder.claim(s.dir(), "--dir");
        Demo.stopLeftoverServers(s.dir());
        OwnedFolder.fresh(s.dir(), "--dir");
        ProgressBar load = new ProgressBar(out, "loading ");
        // n * r identical databases: every replica of a group starts from the same state
        try (LocalCluster dbs = LocalCluster.create(s.backend(), s.dir(), new OnlineStore(), n * r, s.scale(), s.seed(),
                k -> load.update((double) k / (n * r), k + "/" + (n * r) + " databases, "
                        + s.scale() * OnlineStore.ITEMS_PER_SCALE + " items each"))) {
            load.done((n * r) + " databases loaded");
            List<List<String>> databases = new ArrayList<>();
            for (int p = 0; p < n; p++) {
                List<String> group = new ArrayList<>();
                for (int i = 0; i < r; i++) group.add(target(dbs, p * r + i));
                databases.add(group);
            }
            ring = ReplicatedRing.start(databases, s.dir().resolve("logs"), "demo", GroupTimeouts.DEFAULT,
                    (p, addresses) -> InstanceConfig.of(p, addresses, databases.get(p).get(0), new OnlineStore()));
            try {
                if (!ring.awaitLeaders(Duration.ofSeconds(60)))
                    return new Demo.Result(false, List.of("not every group elected a leader within 60 s"), 0);
                out.printf("instances (groups of replicas, the leader listens): %s%n", String.join(", ", ring.addresses()));
                startNanos = System.nanoTime();
                nextKillNanos = startNanos + killGap();
                long elapsedNanos = demo.workload(ring.addresses(), s.chaos()
                        // pending: what the run checks below, which a loaded machine may need overtime for
                        ? Demo.Tick.of(this::chaosTick, () -> kills < 2 || killsHoldingToken < 1) : Demo.Tick.NONE);
                List<String> failures = new ArrayList<>(chaosFailures);
                if (s.chaos()) {
                    out.printf("failovers: %d (leaders killed: %d, %d of them while their group held the token;"
                            + " %d requests answered UNAVAILABLE meanwhile, outcome unknown to their clients)%n",
                            kills, kills, killsHoldingToken, demo.inDoubt.get());
                    if (kills < 2) failures.add("only " + kills + " leaders were killed (at least 2 expected)");
                    if (killsHoldingToken < 1) failures.add("no leader was killed while its group held the token");
                }
                restartAll();
                if (!ring.awaitQuiet(Duration.ofSeconds(60))) failures.add("the ring did not become quiet within 60 s");
                if (!ring.awaitReplicasCaughtUp(Duration.ofSeconds(60)))
                    failures.add("the replicas did not catch up with their groups' logs within 60 s");
                if (demo.failed.get() > 0)
                    failures.add(demo.failed.get() + " requests failed (first: " + demo.firstFailures.get(0) + ")");
                failures.addAll(checkGroups(dbs));
                failures.addAll(checkInvariants(dbs));
                demo.printFigures(elapsedNanos / 1e9);
                long total = demo.latency[0].getTotalCount() + demo.latency[1].getTotalCount();
                if (total == 0) failures.add("no request completed");
                if (demo.latency[1].getTotalCount() == 0) failures.add("no global request completed");
                return new Demo.Result(failures.isEmpty(), failures, total);
            } finally {
                ring.close();
            }
        }
    }

    private static String target(LocalCluster dbs, int i) {
        return dbs.backend() == Backend.SQLITE ? dbs.databaseFile(i).toString() : dbs.jdbcUrl(i);
    }

    /** Between kills: the run's length spread so that about four kills happen, at random moments. */
    private long killGap() {
        double mean = s.seconds() / 5;
        return (long) ((0.5 + random.nextDouble()) * mean * 1e9);
    }

    /**
     * On the progress bar's step: brings back replicas killed before (each once its group has a new leader), and at
     * the next kill's moment kills a leader: the token holder's for the first kill and every other one after (at the
     * first step after that moment that finds a group holding the token), a random group's otherwise. Kills stop at
     * 85% of the run once two happened, one of them at the token holder; until then they go on into the overtime.
     */
    private void chaosTick() {
        try {
            restartKilled(false);
            long now = System.nanoTime();
            boolean enough = kills >= 2 && killsHoldingToken >= 1;
            if (now < nextKillNanos || (enough && now - startNanos > (long) (s.seconds() * 0.85e9))) return;
            int holder = tokenHolder();
            boolean atHolder = kills % 2 == 0 || killsHoldingToken == 0;
            if (atHolder && holder < 0) return; // the token is on its way between groups: try at the next step
            int position = atHolder ? holder : random.nextInt(ring.size());
            InstanceReplica leader = ring.leader(position);
            if (leader == null) return; // mid-failover already: try at the next step
            boolean holds = holdsToken(roleOf(leader));
            ring.kill(position, leader.group().replica());
            kills++;
            if (holds) killsHoldingToken++;
            killed.add(new int[] {position, leader.group().replica()});
            nextKillNanos = now + killGap();
        } catch (Exception e) {
            chaosFailures.add("chaos: " + e);
        }
    }

    private final List<int[]> killed = new ArrayList<>();

    private int tokenHolder() {
        for (int p = 0; p < ring.size(); p++) {
            InstanceReplica l = ring.leader(p);
            String role = l == null ? null : roleOf(l);
            if (holdsToken(role)) return p;
        }
        return -1;
    }

    /** The belt's roles while it holds the token (ConveyorBelt.Role): applying, running its round, or parked. */
    private static boolean holdsToken(String role) {
        return "APPLYING".equals(role) || "PRIMARY".equals(role) || "PARKED".equals(role);
    }

    private static String roleOf(InstanceReplica r) {
        GyroInstance g = r.instance();
        return g == null ? null : g.role();
    }

    /** Restarts the killed replicas whose group has a leader again (all of them with {@code all}). */
    private void restartKilled(boolean all) throws Exception {
        for (var it = killed.iterator(); it.hasNext(); ) {
            int[] k = it.next();
            if (!all && ring.leader(k[0]) == null) continue;
            ring.restart(k[0], k[1]);
            it.remove();
        }
    }

    private void restartAll() throws Exception {
        restartKilled(true);
        if (!ring.awaitLeaders(Duration.ofSeconds(60))) chaosFailures.add("a group has no leader 60 s after the run");
    }

    /**
     * Within each group every table equal on every replica (the application's and Gyro's, but for each replica's own
     * stamp, gyro_replica); across groups the replicated tables equal.
     */
    private List<String> checkGroups(LocalCluster dbs) throws SQLException {
        List<String> failures = new ArrayList<>();
        int r = s.replicas();
        out.println();
        out.println("every table, per group: rows / sha-256 on each replica");
        Set<String> replicatedDigests = new HashSet<>();
        for (int p = 0; p < ring.size(); p++) {
            List<Connection> conns = new ArrayList<>();
            try {
                for (int i = 0; i < r; i++) conns.add(dbs.connect(p * r + i));
                ReplicaCheck.ReplicaComparison compared = ReplicaCheck.compareReplicas(conns);
                for (String d : compared.differences()) failures.add("group " + p + ": " + d);
                for (String table : new OnlineStore().replicatedTables())
                    replicatedDigests.add(table + " " + ReplicaCheck.digest(conns.get(0), table, 0).sha256());
                out.printf("  group %d: %d tables on %d replicas: %s%n", p, compared.tables(), r,
                        compared.equal() ? "equal" : "DIFFER");
            } finally {
                for (Connection c : conns) c.close();
            }
        }
        int expected = new OnlineStore().replicatedTables().size();
        boolean across = replicatedDigests.size() == expected;
        out.printf("  replicated tables (written by global requests) across groups: %s%n", across ? "equal" : "DIFFER");
        if (!across) failures.add("replicated tables differ between groups");
        return failures;
    }

    /** The store's invariants on one replica of each group; every order a client saw succeed is in the database. */
    private List<String> checkInvariants(LocalCluster dbs) throws SQLException {
        List<Connection> conns = new ArrayList<>();
        try {
            for (int p = 0; p < ring.size(); p++) conns.add(dbs.connect(p * s.replicas()));
            long[] initial = OnlineStore.initialStock(s.scale() * OnlineStore.ITEMS_PER_SCALE, OnlineStore.MIN_STOCK,
                    s.seed());
            // With chaos a request answered UNAVAILABLE may have committed, so the orders are at least those seen.
            List<String> violations = new ArrayList<>(StoreAudit.audit(conns, ring.instance(0).routing().map(), initial,
                    s.chaos() ? -1 : demo.ordersOk.get()));
            Set<Long> present = new HashSet<>();
            try (Statement st = conns.get(0).createStatement();
                 ResultSet rs = st.executeQuery("SELECT CART_ID FROM ORDERS")) {
                while (rs.next()) present.add(rs.getLong(1));
            }
            long missing = demo.orderedCarts.stream().filter(c -> !present.contains(c)).count();
            if (missing > 0) violations.add(missing + " orders a client saw succeed are not in the database");
            out.println();
            out.println("invariants: no negative stock; every unit taken from stock is in one order line; every order"
                    + " has its cart with exactly its lines; every order the clients saw succeed ("
                    + demo.orderedCarts.size() + ") is in the database (" + present.size() + " orders)");
            out.println(violations.isEmpty() ? "  all hold on every group" : "  VIOLATED: " + violations);
            return violations;
        } finally {
            for (Connection c : conns) c.close();
        }
    }
}
