package dev.gyro.cli;

import dev.gyro.apps.tpcw.Tpcw;
import dev.gyro.app.Application;
import dev.gyro.app.WorkloadOptions;
import dev.gyro.bench.InProcessTarget;
import dev.gyro.bench.Scenarios;
import dev.gyro.bench.WorkloadRunner;
import dev.gyro.check.ReplicaCheck;
import dev.gyro.cluster.Backend;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.emulation.Capacity;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code gyro bench grow} (docs/decisions/44-ring-changes.md): TPC-W on 3 instances, each a small server of the
 * paper's capacity emulation, loaded past its peak by a closed loop of clients; a third into the run a fourth instance
 * joins and takes a fair share of the buckets with their rows, while the load goes on. One run: throughput before,
 * during and after (a plot per second), how long each bucket's requests were held at its cutover (p50 / p99), and the
 * gain of 4 instances over 3; then the ring quiet, the replicated tables equal on every instance.
 */
final class GrowBenchmark {

    static final String NAME = "grow";

    private final boolean quick;
    private final Path dir;
    private final PrintStream out;

    GrowBenchmark(boolean quick, Path dir, PrintStream out) {
        this.quick = quick;
        this.dir = dir;
        this.out = out;
    }

    int run() throws Exception {
        Application app = quick ? new Tpcw(new Tpcw.Size(300, 400)) : new Tpcw();
        Capacity capacity = Capacity.of(Scenarios.APP_CONCURRENCY, Scenarios.APP_SERVICE_MS);
        long third = quick ? 12 : 30;
        int sessions = 48;
        out.printf(Locale.ROOT, "Gyro bench grow: TPC-W on 3 SQLite instances, each a server of %d x %d ms, %d closed-loop"
                        + " clients for %d s; at %d s a fourth instance joins and takes a fair share of the buckets%n",
                Scenarios.APP_CONCURRENCY, Scenarios.APP_SERVICE_MS, sessions, 3 * third, third);
        try (LocalCluster cluster = LocalCluster.create(Backend.SQLITE, dir.resolve("cluster"), app, 3, 1, 42, n -> {})
                .withCapacity(capacity).startAll(); InProcessTarget target = new InProcessTarget(cluster)) {
            List<String> steps = new ArrayList<>();
            double[] window = new double[2]; // seconds into the run: the change began, ended
            long start = System.nanoTime();
            Thread grow = new Thread(() -> {
                try {
                    Thread.sleep(third * 1000);
                    window[0] = (System.nanoTime() - start) / 1e9;
                    String result = ClusterControl.run(ClusterControl.Elastic.of(cluster), "add-instance", "", null, line -> {
                        steps.add(line);
                        out.println("  " + line);
                    });
                    window[1] = (System.nanoTime() - start) / 1e9;
                    steps.add(result);
                    out.println("  " + result);
                } catch (Exception e) {
                    steps.add("FAILED: " + e);
                }
            }, "bench-grow");
            grow.start();
            WorkloadRunner.Result r = WorkloadRunner.run(app.workload(1, WorkloadOptions.NONE), target,
                    new WorkloadRunner.Settings(sessions, Duration.ofSeconds(3 * third), 42), (t, total, done) -> {});
            grow.join();
            double[] perSecond = r.timeline().throughput();
            double step = r.timeline().intervalSeconds();
            double before = mean(perSecond, step, third / 3.0, third);
            double after = mean(perSecond, step, window[1] + third / 3.0, 3 * third);
            double during = min(perSecond, step, window[0], window[1] + step);
            List<Long> holds = holds(steps);
            List<String> failures = new ArrayList<>();
            for (String s : steps) if (s.startsWith("FAILED")) failures.add(s);
            if (r.failed() > 0) failures.add(r.failed() + " calls failed (first: " + r.failures() + ")");
            if (!cluster.awaitQuiet(60_000)) failures.add("the ring did not become quiet within 60 s");
            failures.addAll(equalReplicas(cluster, app));
            String summary = summary(before, during, after, window, holds, r, perSecond.length);
            out.print(summary);
            Files.writeString(dir.resolve("summary.md"), "# gyro bench grow\n\n" + summary + "\n## Steps\n\n"
                    + String.join("\n", steps.stream().map(s -> "- " + s).toList()) + "\n");
            StringBuilder csv = new StringBuilder("seconds,completed_per_second\n");
            for (int i = 0; i < perSecond.length; i++)
                csv.append(String.format(Locale.ROOT, "%.1f,%.1f%n", (i + 1) * step, perSecond[i]));
            Files.writeString(dir.resolve("results.csv"), csv.toString());
            plot(perSecond, step, window);
            out.printf("wrote %s, results.csv, grow.png%n", dir.resolve("summary.md"));
            if (!failures.isEmpty()) {
                out.println("bench: FAILED: " + String.join("; ", failures));
                return 1;
            }
            out.printf(Locale.ROOT, "bench: OK (grow: %.0f -> %.0f calls/s, %.2fx; cutover p99 %d ms)%n", before,
                    after, after / before, percentile(holds, 99));
            return 0;
        }
    }

    private static final Pattern CLOSED = Pattern.compile("moved buckets \\[([0-9, ]+)] .* (\\d+) ms closed");

    /** Each moved bucket's hold: the time its move had it closed (one move closes a batch of buckets at once). */
    static List<Long> holds(List<String> steps) {
        List<Long> out = new ArrayList<>();
        for (String s : steps) {
            Matcher m = CLOSED.matcher(s);
            if (!m.find()) continue;
            int buckets = m.group(1).split(",").length;
            for (int i = 0; i < buckets; i++) out.add(Long.parseLong(m.group(2)));
        }
        out.sort(null);
        return out;
    }

    static long percentile(List<Long> sorted, double p) {
        if (sorted.isEmpty()) return -1;
        return sorted.get(Math.min(sorted.size() - 1, Math.max(0, (int) Math.ceil(sorted.size() * p / 100) - 1)));
    }

    private static double mean(double[] perSecond, double step, double from, double to) {
        double sum = 0;
        int n = 0;
        for (int i = 0; i < perSecond.length; i++) {
            double t = (i + 1) * step;
            if (t > from && t <= to) {
                sum += perSecond[i];
                n++;
            }
        }
        return n == 0 ? Double.NaN : sum / n;
    }

    private static double min(double[] perSecond, double step, double from, double to) {
        double m = Double.NaN;
        for (int i = 0; i < perSecond.length; i++) {
            double t = (i + 1) * step;
            if (t > from && t <= to) m = Double.isNaN(m) ? perSecond[i] : Math.min(m, perSecond[i]);
        }
        return m;
    }

    private String summary(double before, double during, double after, double[] window, List<Long> holds,
                           WorkloadRunner.Result r, int points) {
        return String.format(Locale.ROOT, """
                | | 3 instances (before) | while the 4th joins | 4 instances (after) |
                |---|---|---|---|
                | completed calls/s | %.0f | %.0f (lowest second) | %.0f (%.2fx) |

                The change took %.1f s (from %.1f s to %.1f s into the run); %d buckets moved; each bucket's requests \
                were held at its cutover p50 %d ms, p99 %d ms, max %d ms. %d calls in %.0f s, %d failed; %d points of \
                %.1f s in results.csv.
                """, before, during, after, after / before, window[1] - window[0], window[0], window[1], holds.size(),
                percentile(holds, 50), percentile(holds, 99), holds.isEmpty() ? -1 : holds.get(holds.size() - 1),
                r.completed(), r.seconds(), r.failed(), points, r.timeline().intervalSeconds());
    }

    private void plot(double[] perSecond, double step, double[] window) throws java.io.IOException {
        XYChart chart = new XYChartBuilder().width(900).height(480).title("TPC-W, 3 instances, a fourth joins")
                .xAxisTitle("seconds").yAxisTitle("completed calls per second").build();
        double[] x = new double[perSecond.length];
        for (int i = 0; i < x.length; i++) x[i] = (i + 1) * step;
        chart.addSeries("throughput", x, perSecond.length == 0 ? new double[] {0} : perSecond);
        double top = 0;
        for (double v : perSecond) top = Math.max(top, v);
        chart.addSeries("the 4th instance joins", new double[] {window[0], window[0]}, new double[] {0, top});
        chart.addSeries("its buckets moved", new double[] {window[1], window[1]}, new double[] {0, top});
        BitmapEncoder.saveBitmap(chart, dir.resolve("grow.png").toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /** The replicated tables' copies, equal on every instance. */
    private static List<String> equalReplicas(LocalCluster cluster, Application app) throws Exception {
        List<String> failures = new ArrayList<>();
        for (String table : app.replicatedTables()) {
            Set<String> d = new HashSet<>();
            for (int i = 0; i < cluster.size(); i++)
                try (Connection c = cluster.connect(i)) {
                    ReplicaCheck.TableDigest t = ReplicaCheck.digest(c, table, i);
                    d.add(t.rows() + "/" + t.sha256());
                }
            if (d.size() != 1) failures.add("table " + table + " differs between instances");
        }
        return failures;
    }
}
