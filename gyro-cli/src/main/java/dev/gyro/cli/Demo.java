package dev.gyro.cli;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.apps.store.StoreAudit;
import dev.gyro.client.GyroClient;
import dev.gyro.wire.Reply;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.runtime.GyroInstance;
import dev.gyro.cluster.Backend;
import dev.gyro.servers.DatabaseServer;
import dev.gyro.check.ReplicaCheck;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The main job: the online store over N instances on N databases (SQLite files, or PostgreSQL or MariaDB servers
 * started for the run), a mixed workload of concurrent clients,
 * then the checks that make the run worth believing (replicas equal, invariants hold) and the figures.
 */
final class Demo {

    /**
     * @param replicas replicas per instance: 1 runs one database per instance; more run each instance as a replicated
     *                 group (docs/decisions/24-ring-on-groups.md)
     * @param chaos    with replicas, kill group leaders abruptly during the run and restart them
     */
    /** How long a run goes on past its duration while no global request has completed yet. */
    static final long OVERTIME_NANOS = 60_000_000_000L;

    /** @param grow add an instance a third into the run, take instance 0 out two thirds into it (decision 44) */
    record Settings(int instances, int clients, double seconds, Path dir, int scale, long seed, Backend backend,
                    int replicas, boolean chaos, boolean grow) {
        Settings(int instances, int clients, double seconds, Path dir, int scale, long seed) {
            this(instances, clients, seconds, dir, scale, seed, Backend.SQLITE, 1, false, false);
        }

        Settings(int instances, int clients, double seconds, Path dir, int scale, long seed, Backend backend) {
            this(instances, clients, seconds, dir, scale, seed, backend, 1, false, false);
        }

        Settings(int instances, int clients, double seconds, Path dir, int scale, long seed, Backend backend,
                 int replicas, boolean chaos) {
            this(instances, clients, seconds, dir, scale, seed, backend, replicas, chaos, false);
        }
    }

    record Result(boolean ok, List<String> failures, long requests) {}

    private static final String[] CLASSES = {"local", "global"};

    private final Settings s;
    private final PrintStream out;

    final ConcurrentHistogram[] latency = {new ConcurrentHistogram(3), new ConcurrentHistogram(3)};
    final AtomicLong ordersOk = new AtomicLong();
    /** The carts whose order a client saw succeed. */
    final java.util.Set<Long> orderedCarts = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Requests answered UNAVAILABLE while leaders were killed (chaos): their outcome is unknown to the client. */
    final AtomicLong inDoubt = new AtomicLong();
    private final AtomicLong aborted = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final List<String> firstFailures = new ArrayList<>();

    Demo(Settings settings, PrintStream out) {
        this.s = settings;
        this.out = out;
    }

    Result run() throws Exception {
        if (s.replicas() > 1) return new ReplicatedDemo(this, s, out).run();
        out.printf("Gyro demo: online store (paper Section IV) on %d instances, %d %s under %s%n",
                s.instances(), s.instances(), s.backend() == Backend.SQLITE ? "SQLite files"
                        : s.backend() == Backend.POSTGRES ? "PostgreSQL servers" : "MariaDB servers", s.dir());
        OwnedFolder.claim(s.dir(), "--dir"); // refuses a folder with files Gyro did not make, before touching it
        stopLeftoverServers(s.dir()); // of an earlier run that was killed, before their data is wiped
        OwnedFolder.fresh(s.dir(), "--dir");
        ProgressBar load = new ProgressBar(out, "loading ");
        try (LocalCluster cluster = LocalCluster.create(s.backend(), s.dir(), new OnlineStore(), s.instances(), s.scale(), s.seed(),
                n -> load.update((double) n / s.instances(), n + "/" + s.instances() + " databases, "
                        + s.scale() * OnlineStore.ITEMS_PER_SCALE + " items each"))) {
            load.done(s.instances() + " databases loaded");
            cluster.startAll();
            out.printf("instances: %s%n", String.join(", ", cluster.addresses()));
            if (!cluster.servers().isEmpty())
                out.printf("%s servers: %s%n", s.backend(), String.join(", ", cluster.servers().stream()
                        .map(v -> "127.0.0.1:" + v.port()).toList()));
            List<String> failures = new ArrayList<>();
            RingChanges changes = s.grow() ? new RingChanges(cluster, failures) : null;
            long elapsedNanos = workload(cluster.addresses(), changes == null ? Tick.NONE : changes);
            if (changes != null && changes.pending())
                failures.add("the ring changes " + changes.untaken() + " were not taken within the run and its overtime");
            if (!cluster.awaitQuiet(60_000)) failures.add("the ring did not become quiet within 60 s");
            if (failed.get() > 0)
                failures.add(failed.get() + " requests failed (first: " + firstFailures.get(0) + ")");
            failures.addAll(checkReplicas(cluster));
            failures.addAll(checkInvariants(cluster));
            printFigures(elapsedNanos / 1e9);
            long total = latency[0].getTotalCount() + latency[1].getTotalCount();
            if (total == 0) failures.add("no request completed");
            if (latency[1].getTotalCount() == 0) failures.add("no global request completed");
            return new Result(failures.isEmpty(), failures, total);
        }
    }

    /**
     * What the workload's progress bar calls at each of its steps (chaos, ring changes); {@link #pending()} says whether
     * it still has a step to take, and the run goes on (for at most {@link #OVERTIME_NANOS} past its duration) until it
     * took them.
     */
    interface Tick {
        Tick NONE = of(() -> {}, () -> false);

        void run();

        boolean pending();

        static Tick of(Runnable step, java.util.function.BooleanSupplier pending) {
            return new Tick() {
                @Override
                public void run() {
                    step.run();
                }

                @Override
                public boolean pending() {
                    return pending.getAsBoolean();
                }
            };
        }
    }

    /**
     * With --grow (docs/decisions/44-ring-changes.md): a third into the run an instance joins and takes a fair share of
     * the buckets, two thirds into it instance 0 gives its buckets to the others and leaves; each step is printed, and
     * a failed one is a failure of the run. On a loaded machine the first step may end past two thirds of a short run:
     * the run goes on until both were taken.
     */
    private final class RingChanges implements Tick {
        private final String[] steps = {"add-instance", "remove-instance-0"};
        private final long start = System.nanoTime();
        private final LocalCluster cluster;
        private final List<String> failures;
        private int next;

        RingChanges(LocalCluster cluster, List<String> failures) {
            this.cluster = cluster;
            this.failures = failures;
        }

        @Override
        public boolean pending() {
            return next < steps.length;
        }

        String untaken() {
            return String.join(", ", java.util.Arrays.asList(steps).subList(next, steps.length));
        }

        @Override
        public void run() {
            if (!pending() || (System.nanoTime() - start) / 1e9 < s.seconds() * (next + 1) / 3) return;
            String step = steps[next++];
            out.println();
            try {
                String result = ClusterControl.run(ClusterControl.Elastic.of(cluster), step, "", null, line -> out.println("ring change: " + line));
                out.println("ring change: " + result);
                if (!result.startsWith("OK")) failures.add(step + ": " + result);
            } catch (Exception e) {
                failures.add(step + ": " + e);
                out.println("ring change: FAILED: " + e);
            }
        }
    }

    /**
     * The clients' run against the cluster at {@code addresses}, with a progress bar; {@code tick} is called at each
     * step of the bar (chaos). Returns its length in nanoseconds.
     */
    long workload(List<String> addresses, Tick tick) throws InterruptedException {
        try (GyroClient client = GyroClient.connect(addresses)) {
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            long start = System.nanoTime();
            for (int i = 0; i < s.clients(); i++) {
                int id = i;
                Thread t = new Thread(() -> clientLoop(client, id, stop), "demo-client-" + i);
                threads.add(t);
                t.start();
            }
            ProgressBar bar = new ProgressBar(out, "workload");
            long durationNanos = (long) (s.seconds() * 1e9);
            // A run that completed no global request has checked nothing of the ring: on a loaded machine a short
            // one may not, so it goes on until one did (and until the tick took its steps), for at most OVERTIME more.
            while (System.nanoTime() - start < durationNanos || ((latency[1].getTotalCount() == 0 || tick.pending())
                    && System.nanoTime() - start < durationNanos + OVERTIME_NANOS)) {
                Thread.sleep(200);
                tick.run();
                double t = (System.nanoTime() - start) / 1e9;
                long local = latency[0].getTotalCount(), global = latency[1].getTotalCount();
                bar.update(t / s.seconds(), String.format("%5.1f/%.0f s  %6.0f req/s  local %d  global %d",
                        t, s.seconds(), (local + global) / t, local, global));
            }
            stop.set(true);
            for (Thread t : threads) t.join();
            long elapsedNanos = System.nanoTime() - start;
            long local = latency[0].getTotalCount(), global = latency[1].getTotalCount();
            bar.done(String.format("%.1f s  local %d  global %d", elapsedNanos / 1e9, local, global));
            return elapsedNanos;
        }
    }

    /** One client: carts of 1-4 items, sometimes looked at, then ordered. Carts are this client's own. */
    private void clientLoop(GyroClient shared, int id, AtomicBoolean stop) {
        GyroClient.Session client = shared.session(); // one user: reads its own orders wherever it goes
        SplittableRandom random = new SplittableRandom(s.seed() * 1_000_003 + id);
        int items = s.scale() * OnlineStore.ITEMS_PER_SCALE;
        for (long seq = 1; !stop.get(); seq++) {
            long cart = (id + 1L) * 100_000_000L + seq;
            if (!call(client, "createCart", cart)) continue;
            int lines = 1 + random.nextInt(4);
            for (int l = 0; l < lines && !stop.get(); l++)
                call(client, "addItem", cart, 1L + random.nextInt(items), 1 + random.nextInt(3));
            if (random.nextInt(10) < 3) call(client, "getCart", cart);
            if (stop.get()) break;
            if (call(client, "order", cart)) {
                ordersOk.incrementAndGet();
                orderedCarts.add(cart);
            }
        }
    }

    /** One request, timed from the client's side; latency goes to the class the request executed as. */
    private boolean call(GyroClient.Session client, String what, Object... parameters) {
        long t0 = System.nanoTime();
        Reply r = client.call(what, parameters);
        long micros = (System.nanoTime() - t0) / 1000;
        if (r.status() == Reply.Status.OK || r.status() == Reply.Status.ABORTED)
            latency[r.executedAs().equals("global") ? 1 : r.executedAs().equals("local") ? 0
                    : client.client().routing().route(what).kind().equals("local") ? 0 : 1].recordValue(Math.max(1, micros));
        return record(r, what);
    }

    private boolean record(Reply r, String what) {
        if (s.chaos() && r.status() == Reply.Status.UNAVAILABLE) { // its group lost its leader meanwhile
            inDoubt.incrementAndGet();
            return false;
        }
        switch (r.status()) {
            case OK -> {
                return true;
            }
            case ABORTED -> {
                aborted.incrementAndGet();
                return false;
            }
            default -> {
                failed.incrementAndGet();
                synchronized (firstFailures) {
                    if (firstFailures.size() < 5) firstFailures.add(what + ": " + r);
                }
                return false;
            }
        }
    }

    private List<String> checkReplicas(LocalCluster cluster) throws SQLException {
        List<String> failures = new ArrayList<>();
        out.println();
        out.println("replicated tables (written by global requests), per instance: rows / sha-256");
        StringBuilder header = new StringBuilder(String.format("  %-12s", "table"));
        for (int i = 0; i < cluster.size(); i++)
            header.append(String.format("  %-26s", "instance " + i + (cluster.instance(i) == null ? " (left)" : "")));
        out.println(header.append("  equal"));
        // instances that left the ring (--grow) keep the tables as they were when they left: not compared
        List<Connection> conns = open(cluster);
        try {
            for (String table : cluster.application().replicatedTables()) {
                StringBuilder line = new StringBuilder(String.format("  %-12s", table));
                String first = null;
                boolean equal = true;
                for (int i = 0; i < conns.size(); i++) {
                    if (conns.get(i) == null) {
                        line.append(String.format("  %-26s", "-"));
                        continue;
                    }
                    ReplicaCheck.TableDigest d = ReplicaCheck.digest(conns.get(i), table, i);
                    line.append(String.format("  %7d / %-16s", d.rows(), d.sha256().substring(0, 16)));
                    String fp = d.rows() + "/" + d.sha256();
                    if (first == null) first = fp;
                    else if (!first.equals(fp)) equal = false;
                }
                out.println(line.append("  ").append(equal ? "yes" : "NO"));
                if (!equal) failures.add("table " + table + " differs between instances");
            }
        } finally {
            close(conns);
        }
        return failures;
    }

    private List<String> checkInvariants(LocalCluster cluster) throws SQLException {
        List<Connection> conns = open(cluster);
        try {
            long[] initial = OnlineStore.initialStock(s.scale() * OnlineStore.ITEMS_PER_SCALE, OnlineStore.MIN_STOCK,
                    s.seed());
            GyroInstance member = null;
            for (int i = 0; i < cluster.size() && member == null; i++) member = cluster.instance(i);
            List<String> violations = StoreAudit.audit(conns, member.routing().map(), initial,
                    ordersOk.get());
            out.println();
            out.println("invariants: no negative stock; every unit taken from stock is in one order line; every order"
                    + " has its cart with exactly its lines; orders in the database = orders the clients saw succeed ("
                    + ordersOk.get() + ")");
            out.println(violations.isEmpty() ? "  all hold on every instance" : "  VIOLATED: " + violations);
            return violations;
        } finally {
            close(conns);
        }
    }

    void printFigures(double seconds) {
        out.println();
        out.printf("requests by class (%.1f s, %d clients, %d instances; %d aborted by the store's own checks, "
                + "e.g. out of stock)%n", seconds, s.clients(), s.instances(), aborted.get());
        out.printf("  %-7s %9s %10s %9s %9s %9s %9s%n", "class", "count", "req/s", "p50 ms", "p95 ms", "p99 ms", "max ms");
        for (int c = 0; c < 2; c++) {
            Histogram h = latency[c];
            out.printf("  %-7s %9d %10.1f %9.2f %9.2f %9.2f %9.2f%n", CLASSES[c], h.getTotalCount(),
                    h.getTotalCount() / seconds, h.getValueAtPercentile(50) / 1000.0,
                    h.getValueAtPercentile(95) / 1000.0, h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0);
        }
    }

    /** A connection to each member's database, by instance id; null for an instance that left the ring. */
    private static List<Connection> open(LocalCluster cluster) throws SQLException {
        List<Connection> conns = new ArrayList<>();
        for (int i = 0; i < cluster.size(); i++) conns.add(cluster.instance(i) == null ? null : cluster.connect(i));
        return conns;
    }

    /** Stops servers an earlier demo left running in {@code dir} (it was killed before it could stop them). */
    static void stopLeftoverServers(Path dir) throws java.io.IOException {
        if (!java.nio.file.Files.isDirectory(dir)) return;
        try (var entries = java.nio.file.Files.list(dir)) {
            for (Path p : entries.filter(p -> p.getFileName().toString().startsWith("server-")).toList())
                DatabaseServer.stopAnyAt(p);
        }
    }

    private static void close(List<Connection> conns) throws SQLException {
        for (Connection c : conns) if (c != null) c.close();
    }
}
