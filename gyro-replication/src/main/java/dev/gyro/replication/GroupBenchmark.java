package dev.gyro.replication;

import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.servers.FreePorts;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures a replicated group on SQLite files (docs/decisions/22-group-log.md): committed-write latency and throughput
 * of one replica against three, side by side in one run, then the failover time of a three-replica group whose leader
 * is killed (its Ratis server closed at once) again and again under a steady write load: from the kill to the first
 * committed request that was submitted after it.
 *
 * <p>Each request inserts one row and updates a running total, one DBMS transaction whose row images travel through
 * the group's log. Run it as README.md says ("Replicated groups, measured").
 */
@Command(name = "group-benchmark", mixinStandardHelpOptions = true,
        description = "Latency and throughput of a group of 1 and of 3 replicas, and failover times of the group of 3.")
public final class GroupBenchmark implements Callable<Integer> {

    @Option(names = "--writers", description = "concurrent writers (default ${DEFAULT-VALUE})")
    int writers = 4;
    @Option(names = "--warmup", description = "seconds of warm-up per group size, not measured (default ${DEFAULT-VALUE})")
    int warmupSeconds = 3;
    @Option(names = "--seconds", description = "measured seconds per group size (default ${DEFAULT-VALUE})")
    int seconds = 15;
    @Option(names = "--kills", description = "leader kills under load (default ${DEFAULT-VALUE})")
    int kills = 12;
    @Option(names = "--between-kills", description = "milliseconds of load between a failover and the next kill, "
            + "once the killed replica has caught up again (default ${DEFAULT-VALUE})")
    long betweenKillsMillis = 1000;
    @Option(names = "--election-min", description = "election timeout, lower bound, ms (default: GroupTimeouts.DEFAULT)")
    Long electionMin;
    @Option(names = "--election-max", description = "election timeout, upper bound, ms (default: GroupTimeouts.DEFAULT)")
    Long electionMax;
    @Option(names = "--dir", description = "where the databases and logs go (default: a fresh temporary folder)")
    Path dir;
    @Option(names = "--log-minutes", description = "instead of the above: a group of 3 under the load for this many"
            + " minutes, the size of its log directory every --log-every seconds, printed and plotted"
            + " (log-size.csv and log-size.png in --dir)")
    Integer logMinutes;
    @Option(names = "--log-every", description = "seconds between two looks at the log directory (default ${DEFAULT-VALUE})")
    int logEverySeconds = 30;

    private int position;

    public static void main(String[] args) {
        System.exit(new CommandLine(new GroupBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (dir == null) dir = Files.createTempDirectory("gyro-group-benchmark");
        GroupTimeouts timeouts = GroupTimeouts.DEFAULT;
        if (electionMin != null || electionMax != null)
            timeouts = timeouts.withElection(Duration.ofMillis(electionMin != null ? electionMin : timeouts.electionMin().toMillis()),
                    Duration.ofMillis(electionMax != null ? electionMax : timeouts.electionMax().toMillis()));
        if (logMinutes != null) {
            System.out.printf(Locale.ROOT, "group benchmark: %d writers on a group of 3 for %d minutes, its log directory"
                            + " every %d s; snapshot every %d entries, segments of %d KiB; SQLite files under %s%n",
                    writers, logMinutes, logEverySeconds, LogRetention.DEFAULT.snapshotEvery(),
                    LogRetention.DEFAULT.segmentBytes() >> 10, dir);
            return logSize(timeouts);
        }
        System.out.printf(Locale.ROOT, "group benchmark: %d writers, %d s measured per size after %d s warm-up, %d kills;"
                        + " election timeout %d-%d ms, commit timeout %d ms; SQLite files under %s%n", writers, seconds,
                warmupSeconds, kills, timeouts.electionMin().toMillis(), timeouts.electionMax().toMillis(),
                timeouts.commit().toMillis(), dir);
        Steady one = steady(1, timeouts);
        Steady three = steady(3, timeouts);
        Histogram failovers = failovers(timeouts);

        System.out.println();
        System.out.printf(Locale.ROOT, "%-10s %10s %10s %10s %12s %10s%n", "replicas", "p50 ms", "p99 ms", "max ms",
                "writes/s", "elections");
        for (Steady s : List.of(one, three))
            System.out.printf(Locale.ROOT, "%-10d %10.1f %10.1f %10.1f %12.0f %10d%n", s.replicas, ms(s.latency, 50),
                    ms(s.latency, 99), s.latency.getMaxValue() / 1e3, s.throughput, s.elections);
        System.out.printf(Locale.ROOT, "failover (3 replicas, %d kills): p50 %.0f ms, p99 %.0f ms, max %.0f ms%n",
                failovers.getTotalCount(), ms(failovers, 50), ms(failovers, 99), failovers.getMaxValue() / 1e3);
        System.out.printf(Locale.ROOT, "load average at the end: %s%n", loadAverage());
        return 0;
    }

    private record Steady(int replicas, Histogram latency, double throughput, long elections) {}

    /**
     * A group of 3 under the write load for {@link #logMinutes}: every {@link #logEverySeconds} the bytes under its log
     * directory (three replicas' logs) and where each replica's log starts and ends (docs/decisions/45).
     */
    private int logSize(GroupTimeouts timeouts) throws Exception {
        List<Double> minutes = new ArrayList<>(), megabytes = new ArrayList<>();
        long maxBytes = 0;
        try (ReplicatedGroup group = start(3, timeouts)) {
            Path logs = dir.resolve("group-" + (position - 1) + "-logs");
            group.awaitLeader(Duration.ofSeconds(30));
            Load load = new Load(group, writers, null, new AtomicBoolean());
            long begin = System.nanoTime();
            load.start();
            StringBuilder csv = new StringBuilder("seconds,committed_writes,log_bytes,log_first_index,log_last_index\n");
            for (long at = 0; at <= logMinutes * 60L; at += logEverySeconds) {
                long wake = begin + TimeUnit.SECONDS.toNanos(at);
                long left = wake - System.nanoTime();
                if (left > 0) TimeUnit.NANOSECONDS.sleep(left); // a benchmark's sampling period, not a test's wait
                long bytes;
                try (var files = Files.walk(logs)) {
                    bytes = files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
                } catch (java.io.UncheckedIOException | java.io.IOException raced) {
                    continue; // a segment purged while it was read: the next look counts again
                }
                maxBytes = Math.max(maxBytes, bytes);
                GroupReplica leader = group.leader();
                long first = -1, last = -1;
                if (leader != null) {
                    first = leader.logStartIndex();
                    last = leader.lastLogIndex();
                }
                System.out.printf(Locale.ROOT, "%5d s: %,10d writes committed, log directory %7.2f MB (3 replicas),"
                                + " the leader's log %d..%d, load average %s%n", at, load.committed.get(), bytes / 1e6,
                        first, last, loadAverage());
                csv.append(at).append(',').append(load.committed.get()).append(',').append(bytes).append(',')
                        .append(first).append(',').append(last).append('\n');
                minutes.add(at / 60.0);
                megabytes.add(bytes / 1e6);
            }
            load.stop();
            Files.writeString(dir.resolve("log-size.csv"), csv);
            System.out.printf(Locale.ROOT, "log directory: at most %.2f MB over %d minutes and %,d writes%n",
                    maxBytes / 1e6, logMinutes, load.committed.get());
        }
        org.knowm.xchart.XYChart chart = new org.knowm.xchart.XYChartBuilder().width(800).height(450)
                .title("A group of 3 under load: its log directory").xAxisTitle("minutes").yAxisTitle("MB").build();
        chart.addSeries("log directory (3 replicas)", minutes, megabytes);
        chart.getStyler().setYAxisMin(0.0);
        org.knowm.xchart.BitmapEncoder.saveBitmap(chart, dir.resolve("log-size").toString(),
                org.knowm.xchart.BitmapEncoder.BitmapFormat.PNG);
        System.out.println("wrote " + dir.resolve("log-size.csv") + " and " + dir.resolve("log-size.png"));
        return 0;
    }

    /** Latency (microseconds) of committed writes and their rate, {@code replicas} replicas, no failures injected. */
    private Steady steady(int replicas, GroupTimeouts timeouts) throws Exception {
        try (ReplicatedGroup group = start(replicas, timeouts)) {
            group.awaitLeader(Duration.ofSeconds(30));
            ConcurrentHistogram latency = new ConcurrentHistogram(TimeUnit.MINUTES.toMicros(1), 3);
            AtomicBoolean measuring = new AtomicBoolean();
            Load load = new Load(group, writers, latency, measuring);
            load.start();
            TimeUnit.SECONDS.sleep(warmupSeconds); // a benchmark's measuring window, not a test's wait
            GroupReplica leaderBefore = group.awaitLeader(Duration.ofSeconds(30));
            long termBefore = leaderBefore.term();
            long batchesBefore = leaderBefore.batchesCommitted(), entriesBefore = leaderBefore.ownEntriesCommitted();
            measuring.set(true);
            long begin = System.nanoTime();
            TimeUnit.SECONDS.sleep(seconds);
            measuring.set(false);
            GroupReplica leaderAfter = group.leader();
            long elections = leaderAfter == null ? -1 : leaderAfter.term() - termBefore;
            double elapsed = (System.nanoTime() - begin) / 1e9;
            long batches = leaderBefore.batchesCommitted() - batchesBefore;
            long entries = leaderBefore.ownEntriesCommitted() - entriesBefore;
            load.stop();
            Histogram copy = latency.copy();
            double rate = copy.getTotalCount() / elapsed;
            System.out.printf(Locale.ROOT, "R=%d: %d committed writes in %.1f s (%.0f/s), p50 %.1f ms, p99 %.1f ms,"
                            + " %d refused, %s; %.1f entries per batch (DBMS commit) on the leader%n", replicas,
                    copy.getTotalCount(), elapsed, rate, ms(copy, 50), ms(copy, 99), load.refused.get(),
                    elections < 0 ? "no leader at the end" : elections + " elections while measured (no kills: spurious"
                            + " ones)", batches == 0 ? 0.0 : (double) entries / batches);
            return new Steady(replicas, copy, rate, elections);
        }
    }

    /** Kills the leader of a 3-replica group {@link #kills} times under load; each failover's time in microseconds. */
    private Histogram failovers(GroupTimeouts timeouts) throws Exception {
        Histogram times = new Histogram(TimeUnit.MINUTES.toMicros(1), 3);
        try (ReplicatedGroup group = start(3, timeouts)) {
            group.awaitLeader(Duration.ofSeconds(30));
            Load load = new Load(group, writers, null, new AtomicBoolean());
            load.start();
            long spurious = 0;
            long term = group.awaitLeader(Duration.ofSeconds(30)).term();
            for (int k = 1; k <= kills; k++) {
                TimeUnit.MILLISECONDS.sleep(betweenKillsMillis); // steady load before the kill
                GroupReplica leader = group.awaitLeader(Duration.ofSeconds(30));
                long termAtKill = leader.term();
                spurious += termAtKill - term; // elections since the last failover settled, without a kill
                long committedBefore = load.committed.get();
                long kill = System.nanoTime();
                load.killedAt.set(kill);
                group.stop(leader.replica());
                long first = load.awaitFirstCommitAfter(kill, Duration.ofSeconds(60));
                if (first < 0) {
                    System.out.printf(Locale.ROOT, "kill %d: no request committed within 60 s; stopping%n", k);
                    break;
                }
                long micros = (first - kill) / 1000;
                times.recordValue(micros);
                GroupReplica next = group.leader();
                System.out.printf(Locale.ROOT, "kill %2d: replica %d killed, replica %s leads after %s election(s),"
                                + " first commit after %.0f ms (%d writes committed before the kill, load average %s)%n",
                        k, leader.replica(), next == null ? "?" : String.valueOf(next.replica()),
                        next == null ? "?" : String.valueOf(next.term() - termAtKill), micros / 1e3, committedBefore,
                        loadAverage());
                group.restart(leader.replica());
                GroupReplica now = group.awaitLeader(Duration.ofSeconds(30));
                if (!group.awaitApplied(now.lastLogIndex(), Duration.ofSeconds(60)))
                    System.out.printf(Locale.ROOT, "kill %d: the restarted replica did not catch up within 60 s%n", k);
                term = group.awaitLeader(Duration.ofSeconds(30)).term();
            }
            System.out.printf(Locale.ROOT, "elections between failovers (spurious): %d%n", spurious);
            load.stop();
            System.out.printf(Locale.ROOT, "failover load: %d committed, %d refused (outcome unknown or no leader in"
                    + " time, each retried as a new request)%n", load.committed.get(), load.refused.get());
        }
        return times;
    }

    private ReplicatedGroup start(int replicas, GroupTimeouts timeouts) throws Exception {
        int p = position++;
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (int port : FreePorts.take(replicas)) addresses.add(new InetSocketAddress("127.0.0.1", port));
        // In one JVM on loopback, like the measurements so far: a plaintext group log, chosen here
        // (docs/decisions/32-group-log-tls.md)
        GroupSpec spec = new GroupSpec("benchmark", p, addresses, timeouts, dev.gyro.wire.Transport.insecure());
        List<String> files = new ArrayList<>();
        for (int i = 0; i < replicas; i++) {
            String file = dir.resolve("group-" + p + "-replica-" + i + ".db").toString();
            try (Database db = Database.open(Dialect.forTarget(file), file)) {
                db.inTransaction(false, c -> {
                    try (Statement st = c.createStatement()) {
                        st.executeUpdate("CREATE TABLE writes (id BIGINT PRIMARY KEY, writer INT NOT NULL,"
                                + " payload VARCHAR(100) NOT NULL)");
                        st.executeUpdate("CREATE TABLE totals (writer INT PRIMARY KEY, n BIGINT NOT NULL)");
                    }
                    return null;
                });
            }
            files.add(file);
        }
        return ReplicatedGroup.start(spec, files, dir.resolve("group-" + p + "-logs"));
    }

    /** {@code writers} threads submitting writes back to back, each retried as a new request when refused. */
    private static final class Load {
        private final ReplicatedGroup group;
        private final List<Thread> threads = new ArrayList<>();
        private final ConcurrentHistogram latency;
        private final AtomicBoolean measuring;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicLong ids = new AtomicLong();
        final AtomicLong committed = new AtomicLong();
        final AtomicLong refused = new AtomicLong();
        /** The last kill ({@link System#nanoTime()}), and the first commit of a request submitted after it. */
        final AtomicLong killedAt = new AtomicLong(Long.MAX_VALUE);
        private final AtomicLong firstAfterKill = new AtomicLong(-1);

        Load(ReplicatedGroup group, int writers, ConcurrentHistogram latency, AtomicBoolean measuring) {
            this.group = group;
            this.latency = latency;
            this.measuring = measuring;
            for (int w = 0; w < writers; w++) {
                int writer = w;
                threads.add(new Thread(() -> run(writer), "writer-" + w));
            }
        }

        void start() {
            threads.forEach(Thread::start);
        }

        void stop() throws InterruptedException {
            running.set(false);
            for (Thread t : threads) t.join();
        }

        private void run(int writer) {
            while (running.get()) {
                long id = ids.incrementAndGet();
                long begin = System.nanoTime();
                try {
                    group.submit(tx -> {
                        try (PreparedStatement ps = tx.connection().prepareStatement(
                                "INSERT INTO writes (id, writer, payload) VALUES (?, ?, ?)")) {
                            ps.setLong(1, id);
                            ps.setInt(2, writer);
                            ps.setString(3, "write " + id + " of writer " + writer);
                            ps.executeUpdate();
                        }
                        try (PreparedStatement ps = tx.connection().prepareStatement(
                                "UPDATE totals SET n = n + 1 WHERE writer = ?")) {
                            ps.setInt(1, writer);
                            if (ps.executeUpdate() == 0) {
                                try (PreparedStatement ins = tx.connection().prepareStatement(
                                        "INSERT INTO totals (writer, n) VALUES (?, 1)")) {
                                    ins.setInt(1, writer);
                                    ins.executeUpdate();
                                }
                            }
                        }
                        return null;
                    });
                    long end = System.nanoTime();
                    committed.incrementAndGet();
                    if (latency != null && measuring.get()) latency.recordValue((end - begin) / 1000);
                    if (begin > killedAt.get()) {
                        synchronized (this) { // checked again: the kill's wait may have ended meanwhile
                            if (begin > killedAt.get() && firstAfterKill.get() < 0) {
                                firstAfterKill.set(end);
                                notifyAll();
                            }
                        }
                    }
                } catch (GroupUnavailableException e) {
                    refused.incrementAndGet();
                } catch (SQLException e) {
                    refused.incrementAndGet();
                    System.out.println("writer " + writer + ": " + e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        /** Waits for the first commit of a request submitted after the kill at {@code kill}; its time, or -1. */
        synchronized long awaitFirstCommitAfter(long kill, Duration within) throws InterruptedException {
            long deadline = System.nanoTime() + within.toNanos();
            while (firstAfterKill.get() < 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) return -1;
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            killedAt.set(Long.MAX_VALUE);
            return firstAfterKill.getAndSet(-1);
        }
    }

    private static double ms(Histogram h, double percentile) {
        return h.getValueAtPercentile(percentile) / 1e3;
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (Exception e) {
            return "unknown";
        }
    }
}
