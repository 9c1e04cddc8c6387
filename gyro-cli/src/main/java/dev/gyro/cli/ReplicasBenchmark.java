package dev.gyro.cli;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.client.GyroClient;
import dev.gyro.cluster.Backend;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.Value;
import dev.gyro.replication.GroupTimeouts;
import dev.gyro.replication.InstanceReplica;
import dev.gyro.replication.ReplicatedRing;
import dev.gyro.runtime.GyroInstance;
import dev.gyro.runtime.InstanceConfig;
import dev.gyro.wire.Reply;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code gyro bench replicas}: one replica per instance against groups of three (docs/decisions/24-ring-on-groups.md),
 * side by side in one run on this machine, 3 instances of the online store on SQLite files (or throwaway PostgreSQL
 * or MariaDB servers, one per replica), through the client over loopback: local writes and reads (latency percentiles, throughput), a global request at light load, and, for groups
 * of three, failovers (from a leader's kill to the completion of the first request of its group sent after it).
 */
final class ReplicasBenchmark {

    static final String NAME = "replicas";

    private final boolean quick;
    private final Path dir;
    private final PrintStream out;
    private final int instances = 3;
    private final int clients;
    private final long seconds;
    private final int kills;
    private final Backend backend;

    /**
     * @param backend every replica's database (SQLite unless given)
     * @param kills   leader kills, one group after another, 1 or more (null: 20, or 5 with {@code quick}); BenchCommand
     *                refuses fewer
     */
    ReplicasBenchmark(boolean quick, Backend backend, Integer kills, Path dir, PrintStream out) {
        this.quick = quick;
        this.backend = backend == null ? Backend.SQLITE : backend;
        this.dir = dir;
        this.out = out;
        this.clients = 8;
        this.seconds = quick ? 8 : 20;
        this.kills = kills != null ? kills : quick ? 5 : 20;
    }

    /** What one deployment measured. */
    record Figures(int replicas, Histogram write, Histogram read, double opsPerSecond, Histogram global,
                   List<Long> failoversMs) {}

    int run() throws Exception {
        out.printf(Locale.ROOT, "Gyro bench replicas: 3 instances of the online store on %s, 1 replica each vs"
                + " groups of 3; %d clients, %d s measured per size (+2 s warm-up), %d leader kills%n", backend.label(),
                clients, seconds, kills);
        List<Figures> all = new ArrayList<>();
        for (int r : new int[] {1, 3}) all.add(measure(r));
        String table = table(all);
        out.print(table);
        Files.writeString(dir.resolve("summary.md"), "# gyro bench replicas\n\n- backend: " + backend.label()
                + "; " + clients + " clients, " + seconds + " s measured per size, " + kills + " leader kills\n\n" + table
                + "\n");
        out.printf("wrote %s%nbench: OK (replicas)%n", dir.resolve("summary.md"));
        return 0;
    }

    private Figures measure(int replicas) throws Exception {
        Path here = dir.resolve("r" + replicas);
        int n = instances * replicas;
        if (backend != Backend.SQLITE) out.printf("starting %d throwaway %s servers%n", n, backend.label());
        try (LocalCluster dbs = LocalCluster.create(backend, here, new OnlineStore(), n, 1, 42, k -> {})) {
            ReplicatedRing ring = null;
            List<String> addresses;
            if (replicas == 1) {
                dbs.startAll();
                addresses = dbs.addresses();
            } else {
                List<List<String>> databases = new ArrayList<>();
                for (int p = 0; p < instances; p++) {
                    List<String> group = new ArrayList<>();
                    for (int i = 0; i < replicas; i++)
                        group.add(backend == Backend.SQLITE ? dbs.databaseFile(p * replicas + i).toString()
                                : dbs.jdbcUrl(p * replicas + i));
                    databases.add(group);
                }
                ring = ReplicatedRing.start(databases, here.resolve("logs"), "bench", GroupTimeouts.DEFAULT,
                        (p, ring1) -> InstanceConfig.of(p, ring1, databases.get(p).get(0), new OnlineStore()));
                if (!ring.awaitLeaders(Duration.ofSeconds(60))) throw new IllegalStateException("no leaders");
                addresses = ring.addresses();
            }
            try (GyroClient client = GyroClient.connect(addresses, 10_000, -1)) {
                out.printf("%d replica(s) per instance: %s%n", replicas, String.join(", ", addresses));
                Figures f = load(client, replicas);
                List<Long> failovers = ring == null ? List.of() : failovers(ring, client);
                return new Figures(replicas, f.write(), f.read(), f.opsPerSecond(), f.global(), failovers);
            } finally {
                if (ring != null) ring.close();
            }
        }
    }

    /** Clients of local requests (two writes, one read per cart) and one client of orders, at once. */
    private Figures load(GyroClient client, int replicas) throws InterruptedException {
        ConcurrentHistogram write = new ConcurrentHistogram(3), read = new ConcurrentHistogram(3),
                global = new ConcurrentHistogram(3);
        AtomicBoolean measuring = new AtomicBoolean(), stop = new AtomicBoolean();
        AtomicLong ops = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t <= clients; t++) {
            int id = t;
            boolean orders = t == clients;
            Thread th = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(id);
                for (long seq = 1; !stop.get(); seq++) {
                    long cart = (replicas * 100L + id + 1) * 1_000_000 + seq;
                    timed(client, write, measuring, ops, "createCart", cart);
                    timed(client, write, measuring, ops, "addItem", cart, 1L + random.nextInt(1000), 1);
                    timed(client, read, measuring, ops, "getCart", cart);
                    if (orders) timed(client, global, measuring, null, "order", cart);
                }
            }, "bench-" + t);
            threads.add(th);
            th.start();
        }
        Thread.sleep(2_000);
        measuring.set(true);
        long t0 = System.nanoTime();
        Thread.sleep(seconds * 1000);
        measuring.set(false);
        double elapsed = (System.nanoTime() - t0) / 1e9;
        stop.set(true);
        for (Thread t : threads) t.join();
        return new Figures(replicas, write, read, ops.get() / elapsed, global, List.of());
    }

    private static void timed(GyroClient client, Histogram h, AtomicBoolean measuring, AtomicLong ops, String tx,
                              Object... args) {
        long t0 = System.nanoTime();
        Reply r = client.call(tx, args);
        long micros = (System.nanoTime() - t0) / 1000;
        if (r.ok() && measuring.get()) {
            h.recordValue(Math.max(1, micros));
            if (ops != null) ops.incrementAndGet();
        }
    }

    /**
     * Kills the leader of each group in turn; a failover is the time from the kill to the completion of the first
     * request of that group sent after it (a probe sends one request after another to the group, from the kill on).
     */
    private List<Long> failovers(ReplicatedRing ring, GyroClient client) throws Exception {
        List<Long> times = new ArrayList<>();
        PartitionMap map = ring.instance(0).routing().map();
        for (int k = 0; k < kills; k++) {
            int group = k % ring.size();
            InstanceReplica leader = ring.leader(group);
            int victim = leader.group().replica();
            // A crash is instant, but closing a replica in this process is not (Ratis waits up to 3 s for its channels
            // to the other replicas): the failover starts at the kill, when the leader stops answering, and the rest of
            // its closing runs on a thread of its own meanwhile.
            long killed = System.nanoTime();
            GyroInstance serving = leader.instance();
            if (serving != null) serving.stopServing();
            Thread kill = new Thread(() -> ring.kill(group, victim), "bench-kill-" + (k + 1));
            kill.start();
            long cart = 5_000_000_000L + k * 1_000_000L;
            while (true) {
                cart++;
                if (map.instanceOf(new Value.Int(cart)) != group) continue;
                Reply r = client.call("createCart", cart); // sent after the kill; retried by the client with its id
                if (r.ok()) break;
            }
            long ms = (System.nanoTime() - killed) / 1_000_000;
            times.add(ms);
            out.printf(Locale.ROOT, "  kill %d (group %d, replica %d): first request of the group committed %d ms"
                    + " after the kill%n", k + 1, group, victim, ms);
            kill.join();
            ring.restart(group, victim);
            if (!ring.awaitReplicasCaughtUp(Duration.ofSeconds(60))) throw new IllegalStateException("no catch-up");
        }
        return times;
    }

    private static String table(List<Figures> all) {
        StringBuilder s = new StringBuilder();
        s.append("| replicas per instance | local write p50 / p99 | local read p50 / p99 | local requests/s |"
                + " global p50 / p99 | failover p50 / p99 / max (kills) |\n|---|---|---|---|---|---|\n");
        for (Figures f : all) {
            List<Long> sorted = new ArrayList<>(f.failoversMs());
            sorted.sort(null);
            String failover = sorted.isEmpty() ? "" : String.format(Locale.ROOT, "%d / %d / %d ms (%d)",
                    sorted.get(sorted.size() / 2), sorted.get(Math.min(sorted.size() - 1,
                            (int) Math.ceil(sorted.size() * 0.99) - 1)), sorted.get(sorted.size() - 1), sorted.size());
            s.append(String.format(Locale.ROOT, "| %d | %.2f / %.2f ms | %.2f / %.2f ms | %.0f | %.1f / %.1f ms | %s |%n",
                    f.replicas(), ms(f.write(), 50), ms(f.write(), 99), ms(f.read(), 50), ms(f.read(), 99),
                    f.opsPerSecond(), ms(f.global(), 50), ms(f.global(), 99), failover));
        }
        return s.toString();
    }

    private static double ms(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1000.0;
    }
}
