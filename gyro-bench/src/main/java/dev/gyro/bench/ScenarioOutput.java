package dev.gyro.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * Writes a local-ratio run to its output directory (issue 6, item 4): {@code results.json} (every measured point,
 * with its ratios against each other system at the same parameters, and the peaks), PNG plots in the shape of the
 * paper's Figures 3 and 4, and {@code summary.md} (ratios, machine, mode, command, and the paper's numbers).
 *
 * <p>Ratios are side by side in one run, never bare absolutes (DESIGN.md "Benchmark method"):
 * {@code throughput} = this system's throughput / the other's; {@code meanLatency} = the other's mean latency /
 * this system's (above 1: this system is faster).
 */
public final class ScenarioOutput {

    /** The paper's numbers for Figures 3 and 4 (Section VII-B), for the summary. */
    public static final Map<String, String> PAPER = paper();

    private static Map<String, String> paper() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("setup", "WAN, Gyro servers at 3 sites, clients at 5; operations void, 5 ms execution time each");
        m.put("fig4-saturation-30pct-local-ops-per-s", "600");
        m.put("fig4-saturation-90pct-local-ops-per-s", "5477");
        m.put("fig4-ratio-90pct-vs-30pct", "9.1");
        m.put("fig3a", "unsaturated: global requests' latency more than 3x local ones'; Gyro minimizes latency when "
                + "70% or more of the requests are local");
        m.put("fig3b", "saturated: global requests saturate the system above 30% of the workload; local requests' "
                + "latency grows too");
        return m;
    }

    private ScenarioOutput() {}

    /** Everything about the run that is not a point. */
    public record Run(String scenario, String command, LocalRatioScenario.Config config, double wallSeconds) {}

    public static void write(Path out, Run run, List<Measured> points) throws IOException {
        Files.createDirectories(out);
        Map<String, Map<Integer, Measured>> peaks = LocalRatioScenario.peaks(points, run.config().latencyBoundMs());
        writeJson(out.resolve("results.json"), run, points, peaks);
        List<String> plots = plots(out, run, points, peaks);
        Files.writeString(out.resolve("summary.md"), summary(run, points, peaks, plots));
    }

    // ------------------------------------------------------------------------------------------- results.json

    static Map<String, Object> machine() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cores", Runtime.getRuntime().availableProcessors());
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        return m;
    }

    /** This point's ratios against every other system measured at the same parameters. */
    static Map<String, Map<String, Double>> ratios(Measured m, List<Measured> points) {
        Map<String, Map<String, Double>> out = new LinkedHashMap<>();
        for (Measured other : points) {
            if (other.system().equals(m.system()) || !sameSetting(m, other)) continue;
            out.put(other.system(), ratio(m, other));
        }
        return out;
    }

    private static boolean sameSetting(Measured a, Measured b) {
        return a.parameter("localPercent").equals(b.parameter("localPercent"))
                && a.parameter("clients").equals(b.parameter("clients"));
    }

    static Map<String, Double> ratio(Measured m, Measured other) {
        Map<String, Double> r = new LinkedHashMap<>();
        r.put("throughput", other.throughput() > 0 ? m.throughput() / other.throughput() : null);
        r.put("meanLatency", m.all().meanMs() > 0 ? other.all().meanMs() / m.all().meanMs() : null);
        r.put("p99Latency", m.all().p99Ms() > 0 ? other.all().p99Ms() / m.all().p99Ms() : null);
        return r;
    }

    private static Map<String, Object> latency(Measured.Latency l) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("count", l.count());
        m.put("mean", round(l.meanMs()));
        m.put("p50", round(l.p50Ms()));
        m.put("p95", round(l.p95Ms()));
        m.put("p99", round(l.p99Ms()));
        m.put("max", round(l.maxMs()));
        return m;
    }

    private static double round(double x) {
        return Math.round(x * 1000) / 1000.0;
    }

    private static void writeJson(Path file, Run run, List<Measured> points, Map<String, Map<Integer, Measured>> peaks)
            throws IOException {
        LocalRatioScenario.Config c = run.config();
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("scenario", run.scenario());
        root.put("command", run.command());
        root.put("machine", machine());
        root.put("mode", c.mode());
        Map<String, Object> capacity = new LinkedHashMap<>();
        capacity.put("emulated", c.capacity().emulated());
        capacity.put("concurrencyPerInstance", c.capacity().emulated() ? c.capacity().concurrency() : null);
        capacity.put("serviceMsPerTransaction", c.capacity().emulated() ? c.capacity().serviceMillis() : null);
        root.put("capacity", capacity);
        root.put("backend", c.backend().label());
        root.put("instances", c.instances());
        root.put("warmupSeconds", c.warmup().toMillis() / 1000.0);
        root.put("measureSeconds", c.duration().toMillis() / 1000.0);
        root.put("latencyBoundMs", c.latencyBoundMs());
        root.put("wallSeconds", round(run.wallSeconds()));
        root.put("valid", points.stream().allMatch(Measured::valid));
        List<Map<String, Object>> ps = new ArrayList<>();
        for (Measured m : points) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("system", m.system());
            p.put("scenario", m.scenario());
            p.put("parameters", m.parameters());
            p.put("mode", m.mode());
            p.put("valid", m.valid());
            p.put("problems", m.problems());
            p.put("seconds", round(m.seconds()));
            p.put("requests", m.requests());
            p.put("throughput", round(m.throughput()));
            p.put("latencyMs", latency(m.all()));
            Map<String, Object> byClass = new LinkedHashMap<>();
            m.byClass().forEach((k, v) -> byClass.put(k, latency(v)));
            p.put("latencyMsByClass", byClass);
            p.put("ratios", ratios(m, points));
            ps.add(p);
        }
        root.put("points", ps);
        List<Map<String, Object>> pk = new ArrayList<>();
        peaks.forEach((system, byShare) -> byShare.forEach((share, m) -> {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("system", system);
            p.put("localPercent", share);
            p.put("clients", m.parameter("clients"));
            p.put("throughput", round(m.throughput()));
            p.put("meanLatencyMs", round(m.all().meanMs()));
            Map<String, Object> r = new LinkedHashMap<>();
            peaks.forEach((other, otherByShare) -> {
                Measured o = otherByShare.get(share);
                if (!other.equals(system) && o != null && o.throughput() > 0)
                    r.put(other, Map.of("throughput", m.throughput() / o.throughput()));
            });
            p.put("ratios", r);
            pk.add(p);
        }));
        root.put("peaks", pk);
        root.put("paper", PAPER);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), root);
    }

    // ------------------------------------------------------------------------------------------- plots

    private static List<String> plots(Path out, Run run, List<Measured> points, Map<String, Map<Integer, Measured>> peaks)
            throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<String> files = new ArrayList<>();
        String mode = run.config().capacity().emulated() ? "capacity emulation" : "plain";
        // Figure 4: peak throughput against the share of local operations
        XYChart tp = chart("Peak throughput (mean latency < " + (long) run.config().latencyBoundMs() + " ms), " + mode,
                "local operations (%)", "operations / s");
        peaks.forEach((system, byShare) -> series(tp, system, new ArrayList<>(byShare.keySet()),
                byShare.values().stream().map(Measured::throughput).toList()));
        files.add(save(tp, out, "throughput.png"));
        // Figure 3a and 3b: latency at the lightest and heaviest load of the sweep, per system and per class
        List<Integer> clients = run.config().clients();
        files.add(latencyPlot(out, points, clients.get(0), "latency-light.png",
                "Latency, " + clients.get(0) + " clients (light load), " + mode));
        if (clients.size() > 1)
            files.add(latencyPlot(out, points, clients.get(clients.size() - 1), "latency-heavy.png",
                    "Latency, " + clients.get(clients.size() - 1) + " clients (heavy load), " + mode));
        return files;
    }

    private static String latencyPlot(Path out, List<Measured> points, int clients, String file, String title)
            throws IOException {
        XYChart chart = chart(title, "local operations (%)", "mean latency (ms)");
        for (String system : new TreeSet<>(points.stream().map(Measured::system).toList())) {
            List<Measured> mine = points.stream().filter(m -> m.system().equals(system) && m.valid()
                    && m.parameter("clients").equals(clients)).toList();
            series(chart, system + " (all)", shares(mine), mine.stream().map(m -> m.all().meanMs()).toList());
            if (!system.equals("gyro")) continue; // per class where the system decides the class: Gyro
            for (String cls : List.of("local", "global")) {
                List<Measured> with = mine.stream().filter(m -> m.byClass().containsKey(cls)).toList();
                series(chart, system + " " + cls, shares(with), with.stream().map(m -> m.byClass().get(cls).meanMs()).toList());
            }
        }
        return save(chart, out, file);
    }

    private static List<Integer> shares(List<Measured> ms) {
        return ms.stream().map(m -> (Integer) m.parameter("localPercent")).toList();
    }

    private static XYChart chart(String title, String x, String y) {
        XYChart chart = new XYChartBuilder().width(900).height(560).title(title).xAxisTitle(x).yAxisTitle(y).build();
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        chart.getStyler().setXAxisMin(0.0);
        chart.getStyler().setXAxisMax(100.0);
        chart.getStyler().setYAxisMin(0.0);
        return chart;
    }

    /** One colour per system in every plot, so that plots read together. */
    private static final Map<String, java.awt.Color> COLORS = Map.of(
            "gyro", new java.awt.Color(0x1f77b4), "gyro local", new java.awt.Color(0x17becf),
            "gyro global", new java.awt.Color(0x9467bd), "read-only", new java.awt.Color(0xff7f0e),
            "centralized", new java.awt.Color(0x2ca02c));

    private static void series(XYChart chart, String name, List<Integer> x, List<Double> y) {
        if (x.isEmpty()) return; // xchart refuses an empty series
        var series = chart.addSeries(name, x, y);
        series.setMarker(SeriesMarkers.CIRCLE);
        java.awt.Color color = COLORS.get(name.replace(" (all)", ""));
        if (color != null) {
            series.setLineColor(color);
            series.setMarkerColor(color);
        }
    }

    private static String save(XYChart chart, Path out, String file) throws IOException {
        BitmapEncoder.saveBitmap(chart, out.resolve(file).toString(), BitmapEncoder.BitmapFormat.PNG);
        return file;
    }

    // ------------------------------------------------------------------------------------------- summary.md

    private static String summary(Run run, List<Measured> points, Map<String, Map<Integer, Measured>> peaks,
                                  List<String> plots) {
        LocalRatioScenario.Config c = run.config();
        StringBuilder s = new StringBuilder();
        s.append("# ").append(run.scenario()).append(": Gyro vs baselines by share of local operations\n\n");
        s.append("Paper Section VII-B, Figures 3 and 4 (micro-benchmark).\n\n");
        s.append("- command: `").append(run.command()).append("`\n");
        Map<String, Object> mach = machine();
        s.append("- machine: ").append(mach.get("cores")).append(" cores, ").append(mach.get("os")).append(", ")
                .append(mach.get("java")).append('\n');
        s.append("- mode: **").append(c.mode()).append("**\n");
        s.append("- ").append(c.instances()).append(" ").append(c.backend()).append(" instances for gyro and read-only, "
                + "1 for centralized; closed-loop clients, no think time; warm-up ")
                .append(c.warmup().toMillis() / 1000.0).append(" s excluded, measured ")
                .append(c.duration().toMillis() / 1000.0).append(" s per point; run took ")
                .append(String.format(Locale.ROOT, "%.0f s", run.wallSeconds())).append('\n');
        s.append("- peak throughput: the highest throughput of the client sweep ").append(c.clients())
                .append(" whose mean latency stays under ").append((long) c.latencyBoundMs()).append(" ms (the paper's LAN bound)\n");
        long invalid = points.stream().filter(m -> !m.valid()).count();
        s.append("- checks: ").append(invalid == 0 ? "every point passed replica convergence and the micro-benchmark's audit"
                : invalid + " point(s) INVALID (see results.json)").append("\n\n");

        List<String> systems = new ArrayList<>(peaks.keySet());
        String first = c.systems().get(0);
        s.append("## Peak throughput (operations/s) and ratios\n\n| local % |");
        for (String sys : systems) s.append(' ').append(sys).append(" |");
        for (String sys : systems) if (!sys.equals(first)) s.append(' ').append(first).append(" / ").append(sys).append(" |");
        s.append("\n|---|");
        s.append("---|".repeat(systems.size() * 2 - (systems.contains(first) ? 1 : 0)));
        s.append('\n');
        for (int share : c.localPercents()) {
            s.append("| ").append(share).append(" |");
            for (String sys : systems) {
                Measured m = peaks.get(sys).get(share);
                s.append(m == null ? " - |" : String.format(Locale.ROOT, " %.0f (%s clients) |", m.throughput(),
                        m.parameter("clients")));
            }
            Measured g = peaks.getOrDefault(first, Map.of()).get(share);
            for (String sys : systems) {
                if (sys.equals(first)) continue;
                Measured b = peaks.get(sys).get(share);
                s.append(g == null || b == null || b.throughput() == 0 ? " - |"
                        : String.format(Locale.ROOT, " %.2fx |", g.throughput() / b.throughput()));
            }
            s.append('\n');
        }
        Map<Integer, Measured> mine = peaks.getOrDefault(first, Map.of());
        if (mine.size() >= 2) {
            int lo = c.localPercents().get(0), hi = c.localPercents().get(c.localPercents().size() - 1);
            if (mine.containsKey(lo) && mine.containsKey(hi) && mine.get(lo).throughput() > 0)
                s.append(String.format(Locale.ROOT, "%n%s peak at %d%% local / at %d%% local: **%.2fx** "
                        + "(paper, Figure 4: 5477 ops/s at 90%% / 600 ops/s at 30%% = 9.1x)%n", first, hi, lo,
                        mine.get(hi).throughput() / mine.get(lo).throughput()));
        }

        s.append("\n## Every point (latency in ms)\n\n");
        s.append("| system | local % | clients | ops/s | mean | p50 | p95 | p99 | local mean | global mean | valid |\n");
        s.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Measured m : points) {
            Measured.Latency l = m.all();
            s.append(String.format(Locale.ROOT, "| %s | %s | %s | %.0f | %.2f | %.2f | %.2f | %.2f | %s | %s | %s |%n",
                    m.system(), m.parameter("localPercent"), m.parameter("clients"), m.throughput(), l.meanMs(),
                    l.p50Ms(), l.p95Ms(), l.p99Ms(), classMean(m, "local"), classMean(m, "global"),
                    m.valid() ? "yes" : "NO: " + String.join("; ", m.problems())));
        }
        s.append("\nClasses: how the system ran the call (gyro, read-only), or the class the application's "
                + "classification gives the transaction (centralized, which runs everything alike).\n");

        s.append("\n## The paper's numbers (Section VII-B)\n\n");
        s.append("- setup: ").append(PAPER.get("setup")).append('\n');
        s.append("- Figure 4: saturation at about 600 ops/s with 30% local operations, about 5477 ops/s with 90% (9.1x)\n");
        s.append("- Figure 3a: ").append(PAPER.get("fig3a")).append('\n');
        s.append("- Figure 3b: ").append(PAPER.get("fig3b")).append('\n');
        s.append("\nDifferences of this run: loopback LAN on one machine (no WAN emulation yet), ")
                .append(c.backend()).append(" databases, operations that send their SQL (not void). Compare shapes and "
                + "ratios, not absolute figures.\n");
        s.append("\n## Plots\n\n");
        for (String p : plots) s.append("- ").append(p).append('\n');
        return s.toString();
    }

    private static String classMean(Measured m, String cls) {
        Measured.Latency l = m.byClass().get(cls);
        return l == null ? "-" : String.format(Locale.ROOT, "%.2f", l.meanMs());
    }
}
