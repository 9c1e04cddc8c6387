package dev.gyro.cli;

import dev.gyro.bench.LocalRatioScenario;
import dev.gyro.bench.Measured;
import dev.gyro.bench.ScenarioOutput;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Reproduce one of the paper's experiments side by side: Gyro against its baselines (centralized: "
                + "one database, no Gyro; read-only: only read-only transactions local) in one run, each point "
                + "followed by replica convergence and the application's audit. Writes DIR/results.json, PNG plots "
                + "and DIR/summary.md. Scenarios: local-ratio (micro-benchmark, paper Figures 3 and 4). The last "
                + "line starts with 'bench: OK' or 'bench: FAILED'.")
final class BenchCommand implements Callable<Integer> {

    static final List<String> SCENARIOS = List.of(LocalRatioScenario.NAME);

    @Parameters(index = "0", paramLabel = "SCENARIO", description = "local-ratio")
    String scenario;

    @Option(names = "--quick", description = "a reduced run that finishes in under 3 minutes on 2 cores "
            + "(3 shares, 3 client counts, short points)")
    boolean quick;

    @Option(names = "--out", paramLabel = "DIR", description = "where results go (default: bench-results/SCENARIO)")
    Path out;

    @Option(names = "--plain", description = "no capacity emulation: all instances share this machine's cores "
            + "(default: each database instance emulates a small server, 2 transactions at a time, 5 ms each)")
    boolean plain;

    @Override
    public Integer call() throws Exception {
        if (!SCENARIOS.contains(scenario)) {
            System.out.println("bench: FAILED: unknown scenario '" + scenario + "' (known: " + String.join(", ", SCENARIOS)
                    + "; scale-lan, wan-latency, wan-scale and tpcc are not built yet)");
            return 2;
        }
        Path dir = out != null ? out : Path.of("bench-results", scenario);
        LocalRatioScenario.Config config = quick ? LocalRatioScenario.Config.quick(!plain)
                : LocalRatioScenario.Config.full(!plain);
        String command = "./gyro bench " + scenario + (quick ? " --quick" : "") + (plain ? " --plain" : "")
                + (out != null ? " --out " + out : "");
        System.out.printf("Gyro bench %s: %d points (%s x local %s%% x clients %s), %s s + %s s warm-up each%n",
                scenario, config.points(), config.systems(), config.localPercents(), config.clients(),
                config.duration().toSeconds(), config.warmup().toSeconds());
        System.out.println("mode: " + config.mode());
        long started = System.nanoTime();
        Path work = dir.resolve(".work");
        ProgressBar[] bar = new ProgressBar[1];
        List<Measured> points = LocalRatioScenario.run(config, work, new LocalRatioScenario.Listener() {
            int index, of;
            String label;

            public void point(int i, int n, String system, int localPercent, int clients) {
                index = i;
                of = n;
                label = String.format(Locale.ROOT, "%-11s local %2d%% clients %3d", system, localPercent, clients);
                bar[0] = new ProgressBar(System.out, String.format(Locale.ROOT, "[%2d/%d]", i, n));
            }

            public void running(double elapsed, double total, long completed) {
                bar[0].update(Math.min(0.99, elapsed / total), label); // 100% is for measured()
            }

            public void measured(Measured m) {
                bar[0].done(String.format(Locale.ROOT, "%s  %7.0f ops/s  mean %7.2f ms  p99 %7.2f ms%s", label,
                        m.throughput(), m.all().meanMs(), m.all().p99Ms(),
                        m.valid() ? "" : "  INVALID: " + String.join("; ", m.problems())));
            }
        });
        double wall = (System.nanoTime() - started) / 1e9;
        deleteTree(work);
        ScenarioOutput.write(dir, new ScenarioOutput.Run(scenario, command, config, wall), points);
        System.out.println();
        System.out.print(peakLines(config, points));
        System.out.printf(Locale.ROOT, "%nwrote %s, %s, %s (%.0f s)%n", dir.resolve("results.json"),
                dir.resolve("summary.md"), dir.resolve("*.png"), wall);
        List<String> invalid = new ArrayList<>();
        for (Measured m : points)
            if (!m.valid()) invalid.add(m.system() + " " + m.parameters() + ": " + String.join("; ", m.problems()));
        if (invalid.isEmpty()) {
            System.out.printf("bench: OK (%s, %d points, every point's replicas equal and audit holds)%n", scenario,
                    points.size());
            return 0;
        }
        System.out.println("bench: FAILED: " + invalid.size() + " invalid point(s): " + String.join(" | ", invalid));
        return 1;
    }

    private static String peakLines(LocalRatioScenario.Config config, List<Measured> points) {
        var peaks = LocalRatioScenario.peaks(points, config.latencyBoundMs());
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT,
                "peak throughput (ops/s, mean latency < %.0f ms)%n  %-8s", config.latencyBoundMs(), "local %"));
        for (String sys : peaks.keySet()) s.append(String.format(Locale.ROOT, " %12s", sys));
        s.append(String.format(Locale.ROOT, " %20s%n", "gyro / centralized"));
        for (int share : config.localPercents()) {
            s.append(String.format(Locale.ROOT, "  %-8d", share));
            for (String sys : peaks.keySet()) {
                Measured m = peaks.get(sys).get(share);
                s.append(m == null ? String.format("%12s", "-") : String.format(Locale.ROOT, " %12.0f", m.throughput()));
            }
            Measured g = peaks.getOrDefault("gyro", java.util.Map.of()).get(share);
            Measured c = peaks.getOrDefault("centralized", java.util.Map.of()).get(share);
            s.append(g == null || c == null ? "" : String.format(Locale.ROOT, " %19.2fx", g.throughput() / c.throughput()));
            s.append('\n');
        }
        return s.toString();
    }

    private static void deleteTree(Path dir) throws java.io.IOException {
        if (!Files.exists(dir)) return;
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }
}
