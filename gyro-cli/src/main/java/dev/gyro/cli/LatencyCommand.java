package dev.gyro.cli;

import dev.gyro.app.TransactionCatalog;
import dev.gyro.app.TxContext;
import dev.gyro.apps.store.OnlineStore;
import dev.gyro.client.GyroClient;
import dev.gyro.wire.Reply;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.GyroInstance;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.SqliteDialect;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.random.RandomGenerator;

/**
 * Measures, side by side in one run: (1) the latency a local request gains by going through Gyro (client library,
 * socket, routing, instance) versus the same transaction run with plain JDBC on the same SQLite file, measured in
 * interleaved blocks so machine noise hits both alike; (2) a global request's latency at light load versus the
 * time the token takes for one rotation of the ring.
 */
@Command(name = "latency", mixinStandardHelpOptions = true,
        description = "Measure local-request overhead versus plain JDBC, and global latency versus one token rotation.")
final class LatencyCommand implements Callable<Integer> {

    @Option(names = "--instances", defaultValue = "3") int instances;
    @Option(names = "--requests", defaultValue = "4000", description = "measured requests per side (default: ${DEFAULT-VALUE})") int requests;
    @Option(names = "--globals", defaultValue = "300", description = "measured global requests (default: ${DEFAULT-VALUE})") int globals;
    @Option(names = "--dir", defaultValue = "latency-data") Path dir;

    private static final int BLOCK = 100;

    @Override
    public Integer call() throws Exception {
        System.out.printf("machine: %d cores, %s %s, Java %s%n", Runtime.getRuntime().availableProcessors(),
                System.getProperty("os.name"), System.getProperty("os.arch"), System.getProperty("java.version"));
        try {
            OwnedFolder.fresh(dir, "--dir");
        } catch (IllegalArgumentException e) {
            System.out.println("latency: FAILED: " + e.getMessage());
            return 2;
        }
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), instances, 1, 42, n -> {}).startAll();
             GyroClient client = GyroClient.connect(cluster.addresses());
             Database plain = Database.open(SqliteDialect.INSTANCE, cluster.databaseFile(0).toString())) {
            TransactionCatalog catalog = new TransactionCatalog(new OnlineStore().transactions());
            // Carts owned by instance 0, so that Gyro runs them on the very file plain JDBC uses.
            List<Long> carts = new ArrayList<>();
            for (long c = 1; carts.size() < 2 * (requests + 2000) / 50 + 10; c++)
                if (client.routing().decide("createCart", List.of(new Value.Int(c)), 0).owner() == 0) carts.add(c);
            for (long c : carts) expectOk(client.call("createCart", c));
            SplittableRandom random = new SplittableRandom(7);

            System.out.printf("%nlocal requests on instance 0's SQLite file, %d of each kind, interleaved in blocks of %d "
                    + "after %d warm-up requests: plain JDBC (the same transaction code on the same file with the same "
                    + "pool settings), Gyro in-process (the paper's deployment: the application calls its Gyro "
                    + "instance), and Gyro through the client library over a loopback socket%n", requests, BLOCK, 1000);
            for (String tx : List.of("addItem", "getCart")) {
                Histogram viaGyro = new Histogram(3), viaJdbc = new Histogram(3), embedded = new Histogram(3);
                GyroInstance zero = cluster.instance(0);
                TransactionCatalog.Entry entry = catalog.get(tx);
                boolean readOnly = tx.equals("getCart");
                int[] next = {0};
                Runnable gyroOne = timedGyro(viaGyro, () -> params(tx, carts, next, random),
                        p -> client.call(new dev.gyro.wire.Request(tx, p, false, 0)));
                Runnable embeddedOne = timedGyro(embedded, () -> params(tx, carts, next, random),
                        p -> zero.call(new dev.gyro.wire.Request(tx, p, false, 0)));
                Runnable jdbcOne = () -> {
                    List<Value> p = params(tx, carts, next, random);
                    long t0 = System.nanoTime();
                    try {
                        plain.inTransaction(readOnly, c -> entry.invoke(ctx(c), p));
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    record(viaJdbc, t0);
                };
                for (int i = 0; i < 1000; i++) {
                    gyroOne.run();
                    embeddedOne.run();
                    jdbcOne.run();
                }
                viaGyro.reset();
                viaJdbc.reset();
                embedded.reset();
                for (int done = 0; done < requests; done += BLOCK) {
                    for (int i = 0; i < BLOCK; i++) jdbcOne.run();
                    for (int i = 0; i < BLOCK; i++) embeddedOne.run();
                    for (int i = 0; i < BLOCK; i++) gyroOne.run();
                }
                System.out.printf("  %-8s plain JDBC:                      mean %8.4f ms  p50 %8.4f  p99 %8.4f%n", tx, mean(viaJdbc),
                        p(viaJdbc, 50), p(viaJdbc, 99));
                System.out.printf("  %-8s Gyro in-process (instance.call): mean %8.4f ms  p50 %8.4f  p99 %8.4f   added: mean %+.4f ms (%+.1f%%), "
                                + "p50 %+.4f ms (%+.1f%%)%n", tx, mean(embedded), p(embedded, 50), p(embedded, 99),
                        mean(embedded) - mean(viaJdbc), 100 * (mean(embedded) / mean(viaJdbc) - 1),
                        p(embedded, 50) - p(viaJdbc, 50), 100 * (p(embedded, 50) / p(viaJdbc, 50) - 1));
                System.out.printf("  %-8s Gyro client over a socket:       mean %8.4f ms  p50 %8.4f  p99 %8.4f   added: mean %+.4f ms (%+.1f%%), "
                                + "p50 %+.4f ms (%+.1f%%)%n", tx, mean(viaGyro), p(viaGyro, 50), p(viaGyro, 99),
                        mean(viaGyro) - mean(viaJdbc), 100 * (mean(viaGyro) / mean(viaJdbc) - 1),
                        p(viaGyro, 50) - p(viaJdbc, 50), 100 * (p(viaGyro, 50) / p(viaJdbc, 50) - 1));
            }

            System.out.printf("%nglobal requests at light load: one client, one order at a time, %d ms apart (the ring "
                    + "parks in between), %d instances; rotation = from the reply until the token has carried the "
                    + "update around the ring and is parked again%n", 20, instances);
            Histogram global = new Histogram(3), rotation = new Histogram(3);
            int cartIndex = 0;
            for (int i = 0; i < globals + 20; i++) {
                long cart = 1_000_000_000L + i;
                expectOk(client.call("createCart", cart));
                expectOk(client.call("addItem", cart, 1L + random.nextInt(1000), 1));
                Thread.sleep(20);
                long t0 = System.nanoTime();
                Reply r = client.call("order", cart);
                long t1 = System.nanoTime();
                expectOk(r);
                // Busy-wait for the update to reach every instance and the token to park again.
                while (!quiet(cluster, r.gsn())) Thread.onSpinWait();
                long t2 = System.nanoTime();
                if (i >= 20) {
                    global.recordValue(t1 - t0);
                    rotation.recordValue(t2 - t1);
                }
            }
            // The idle ring: the token parks, so nothing is sent, and no protocol timer ticks (Ticks).
            // Settle first: the JIT compiler finishes what the measured load left it (its compile time stops growing).
            settle();
            long passes0 = passes(cluster);
            var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
            long cpu0 = os.getProcessCpuTime(), threads0 = javaThreadsCpu(), wall0 = System.nanoTime();
            Thread.sleep(5000);
            long cpu1 = os.getProcessCpuTime(), threads1 = javaThreadsCpu(), wall1 = System.nanoTime();
            long idlePasses = passes(cluster) - passes0;
            System.out.printf("  global request latency: mean %7.3f ms  p50 %7.3f  p99 %7.3f%n", mean(global),
                    p(global, 50), p(global, 99));
            System.out.printf("  one token rotation:     mean %7.3f ms  p50 %7.3f  p99 %7.3f   (ratio of means %.2f)%n",
                    mean(rotation), p(rotation, 50), p(rotation, 99), mean(global) / mean(rotation));
            System.out.printf("%nidle ring (%d instances in this JVM, 5 s, no requests): %d token passes, process CPU %.1f%% "
                    + "of one core, of which the JVM's Java threads (Gyro's, gRPC's, the pools') %.1f%%%n", instances,
                    idlePasses, 100.0 * (cpu1 - cpu0) / (wall1 - wall0), 100.0 * (threads1 - threads0) / (wall1 - wall0));
        }
        return 0;
    }

    /** Returns once the JIT compiler has compiled nothing for a second (at most 20 s). */
    private static void settle() throws InterruptedException {
        var jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        long deadline = System.nanoTime() + 20_000_000_000L, before = -1;
        for (long now = jit.getTotalCompilationTime(); now != before && System.nanoTime() < deadline;
             now = jit.getTotalCompilationTime()) {
            before = now;
            Thread.sleep(1000);
        }
    }

    /** CPU time of every live Java thread (not the JIT compiler's or the collector's, which the JVM hides). */
    private static long javaThreadsCpu() {
        var threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long id : threads.getAllThreadIds()) sum += Math.max(0, threads.getThreadCpuTime(id));
        return sum;
    }

    private static long passes(LocalCluster cluster) throws java.io.IOException {
        long total = 0;
        for (int i = 0; i < cluster.size(); i++)
            total += new com.fasterxml.jackson.databind.ObjectMapper().readTree(cluster.instance(i).statusJson())
                    .get("tokenPasses").asLong();
        return total;
    }

    /** One request through Gyro, timed from the caller's side; its parameters are drawn before the clock starts. */
    private static Runnable timedGyro(Histogram into, java.util.function.Supplier<List<Value>> parameters,
                                      java.util.function.Function<List<Value>, Reply> send) {
        return () -> {
            List<Value> p = parameters.get();
            long t0 = System.nanoTime();
            Reply r = send.apply(p);
            record(into, t0);
            expectOk(r);
        };
    }

    private static boolean quiet(LocalCluster cluster, long gsn) {
        int parked = 0;
        for (int i = 0; i < cluster.size(); i++) {
            GyroInstance g = cluster.instance(i);
            if (g.appliedGsn() < gsn) return false;
            if (g.role().equals("PARKED")) parked++;
        }
        return parked == 1;
    }

    private static List<Value> params(String tx, List<Long> carts, int[] next, SplittableRandom random) {
        long cart = carts.get((next[0]++ / 50) % carts.size());
        return tx.equals("addItem")
                ? List.of(new Value.Int(cart), new Value.Int(1 + random.nextInt(1000)), new Value.Int(1))
                : List.of(new Value.Int(cart));
    }

    private static TxContext ctx(Connection c) {
        return new TxContext() {
            public Connection connection() { return c; }
            public long now() { return 0; }
            public RandomGenerator random() { return new SplittableRandom(1); }
        };
    }

    private static void expectOk(Reply r) {
        if (!r.ok() && r.status() != Reply.Status.ABORTED) throw new IllegalStateException("request failed: " + r);
    }

    /**
     * In nanoseconds: a local read on SQLite takes some 30 us, so microseconds would make one step of the histogram
     * 3% of it, too coarse for the few percent Gyro adds.
     */
    private static void record(Histogram h, long t0) {
        h.recordValue(Math.max(1, System.nanoTime() - t0));
    }

    private static double mean(Histogram h) {
        return h.getMean() / 1e6;
    }

    private static double p(Histogram h, double percentile) {
        return h.getValueAtPercentile(percentile) / 1e6;
    }
}
