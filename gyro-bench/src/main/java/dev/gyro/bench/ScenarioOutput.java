package dev.gyro.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Writes a scenario's run to its output directory:
 * <ul>
 *   <li>{@code results.json}: the run (machine, command, settings, mode, load, bound), every point (system,
 *       parameters, throughput, latency overall / per class / per transaction, throughput over time, open-loop
 *       figures, validity or why it did not run, ratios against every other system at the same setting and load),
 *       the peaks per system and setting with their ratios, and the paper's numbers beside ours;</li>
 *   <li>PNG plots: per group, peak throughput and latency at light (and heavy) load against the figure's x (the
 *       shape of the paper's figure); per setting, mean latency against throughput over the load sweep, and
 *       throughput over time at each system's peak point;</li>
 *   <li>{@code summary.md}: machine, mode, command, the table of ratios next to the paper's figures, every point.</li>
 * </ul>
 * Ratios are as {@link ScenarioAnalysis} computes them.
 */
public final class ScenarioOutput {

    private ScenarioOutput() {}

    /** Everything about the run that is not a point. */
    public record Run(Scenario scenario, String command, double wallSeconds) {}

    public static void write(Path out, Run run, List<Measured> points) throws IOException {
        Files.createDirectories(out);
        ScenarioAnalysis a = new ScenarioAnalysis(run.scenario(), points);
        writeJson(out.resolve("results.json"), run, a);
        List<String> plots = plots(out, run.scenario(), a);
        Files.writeString(out.resolve("summary.md"), summary(run, a, plots));
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

    private static List<Double> round(List<Double> xs) {
        return xs.stream().map(ScenarioOutput::round).toList();
    }

    /** The distinct modes of the settings, in order, joined: one line when every setting has the same. */
    public static String modes(Scenario s) {
        Set<String> modes = new LinkedHashSet<>();
        for (Scenario.Setting setting : s.settings()) modes.add(setting.mode());
        return String.join("; ", modes);
    }

    private static void writeJson(Path file, Run run, ScenarioAnalysis a) throws IOException {
        Scenario s = run.scenario();
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("scenario", s.name());
        root.put("title", s.title());
        root.put("paperReference", s.paperRef());
        root.put("command", run.command());
        root.put("quick", s.quick());
        root.put("machine", machine());
        root.put("mode", modes(s));
        root.put("systems", s.allSystems());
        List<Map<String, Object>> settings = new ArrayList<>();
        for (Scenario.Setting st : s.settings()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", st.id());
            m.put("group", st.group());
            m.put("parameters", st.parameters());
            m.put("app", st.app().name());
            m.put("scale", st.scale());
            m.put("scaleInRows", st.app().describeScale(st.scale()));
            m.put("workloadOptions", st.options().asMap());
            m.put("instances", st.instances());
            m.put("backend", st.backend().label());
            Map<String, Object> capacity = new LinkedHashMap<>();
            capacity.put("emulated", st.capacity().emulated());
            capacity.put("concurrencyPerInstance", st.capacity().emulated() ? st.capacity().concurrency() : null);
            capacity.put("serviceMsPerTransaction", st.capacity().emulated() ? st.capacity().serviceMillis() : null);
            m.put("capacity", capacity);
            m.put("mode", st.mode());
            m.put("network", st.network());
            m.put("systems", s.systemsAt(st));
            settings.add(m);
        }
        root.put("settings", settings);
        Map<String, Object> load = new LinkedHashMap<>();
        load.put("closedLoop", s.load().closedLoop());
        load.put("describe", s.load().describe());
        if (s.load().closedLoop()) load.put("clients", s.load().clients());
        else {
            load.put("rates", s.load().rates());
            load.put("sessions", s.load().openSessions());
            load.put("arrivals", s.load().arrivals().label());
            load.put("maxQueued", s.load().maxQueued());
        }
        root.put("load", load);
        root.put("warmupSeconds", s.warmup().toMillis() / 1000.0);
        root.put("measureSeconds", s.duration().toMillis() / 1000.0);
        root.put("latencyBoundMs", s.bound().meanMs());
        root.put("latencyBound", s.bound().describe());
        root.put("wallSeconds", round(run.wallSeconds()));
        List<Measured> ran = a.ran();
        root.put("valid", !ran.isEmpty() && ran.stream().allMatch(Measured::valid));
        root.put("pointsRun", ran.size());
        root.put("pointsNotRun", a.points().size() - ran.size());
        List<Map<String, Object>> ps = new ArrayList<>();
        for (Measured m : a.points()) ps.add(point(m, a));
        root.put("points", ps);
        List<Map<String, Object>> pk = new ArrayList<>();
        for (Scenario.Setting st : s.settings()) {
            for (String system : s.systemsAt(st)) {
                Measured m = a.peak(st.id(), system);
                if (m == null) continue;
                Map<String, Object> p = new LinkedHashMap<>();
                p.put("system", system);
                p.put("setting", st.id());
                p.put("parameters", m.parameters());
                p.put(s.load().parameter(), a.load(m));
                p.put("throughput", round(m.throughput()));
                p.put("meanLatencyMs", round(m.all().meanMs()));
                Map<String, Object> r = new LinkedHashMap<>();
                for (String other : s.allSystems()) {
                    if (other.equals(system)) continue;
                    Measured o = a.peakOrReference(st.id(), other);
                    if (o == null || o.throughput() <= 0) continue;
                    Map<String, Object> ratio = new LinkedHashMap<>();
                    ratio.put("throughput", m.throughput() / o.throughput());
                    if (!o.setting().equals(st.id())) ratio.put("setting", o.setting());
                    r.put(other, ratio);
                }
                p.put("ratios", r);
                pk.add(p);
            }
        }
        root.put("peaks", pk);
        List<Map<String, Object>> paper = new ArrayList<>();
        for (ScenarioAnalysis.PaperValue v : a.paperValues()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("what", v.ratio().label());
            m.put("metric", v.ratio().metric().name());
            m.put("system", v.ratio().system());
            m.put("baseline", v.ratio().baseline());
            m.put("paper", v.ratio().paper());
            m.put("thisRun", v.ours());
            m.put("at", v.at());
            paper.add(m);
        }
        root.put("paper", paper);
        root.put("notes", s.notes());
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), root);
    }

    private static Map<String, Object> point(Measured m, ScenarioAnalysis a) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("system", m.system());
        p.put("scenario", m.scenario());
        p.put("setting", m.setting());
        p.put("parameters", m.parameters());
        p.put("mode", m.mode());
        p.put("ran", m.ran());
        if (!m.ran()) {
            p.put("notRun", m.notRun());
            return p;
        }
        p.put("valid", m.valid());
        p.put("problems", m.problems());
        p.put("partial", m.partial());
        if (m.partial()) {
            Map<String, Object> un = new LinkedHashMap<>();
            m.byTransaction().forEach((k, v) -> {
                if (v.unsupported() > 0) un.put(k, Map.of("calls", v.unsupported(), "why", String.valueOf(v.unsupportedWhy())));
            });
            p.put("unsupported", un);
        }
        p.put("seconds", round(m.seconds()));
        p.put("requests", m.requests());
        p.put("throughput", round(m.throughput()));
        p.put("latencyMs", latency(m.all()));
        Map<String, Object> byClass = new LinkedHashMap<>();
        m.byClass().forEach((k, v) -> byClass.put(k, latency(v)));
        p.put("latencyMsByClass", byClass);
        Map<String, Object> byTx = new LinkedHashMap<>();
        m.byTransaction().forEach((k, v) -> {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("ok", v.ok());
            t.put("aborted", v.aborted());
            t.put("failed", v.failed());
            if (v.unsupported() > 0) t.put("unsupported", v.unsupported());
            t.putAll(latency(v.latency()));
            byTx.put(k, t);
        });
        p.put("latencyMsByTransaction", byTx);
        Map<String, Object> series = new LinkedHashMap<>();
        series.put("intervalSeconds", round(m.timeline().intervalSeconds()));
        series.put("throughput", round(m.timeline().throughput()));
        series.put("meanLatencyMs", round(m.timeline().meanLatencyMs()));
        p.put("throughputOverTime", series);
        if (m.openLoop() != null) {
            Measured.OpenLoop o = m.openLoop();
            Map<String, Object> ol = new LinkedHashMap<>();
            ol.put("targetRate", o.targetRate());
            ol.put("arrivals", o.arrivals());
            ol.put("maxQueued", o.maxQueued());
            ol.put("offered", o.offered());
            ol.put("offeredRate", round(o.offeredRate()));
            ol.put("achievedRate", round(o.achievedRate()));
            ol.put("dropped", o.dropped());
            ol.put("unfinished", o.unfinished());
            ol.put("mostQueued", o.mostQueued());
            ol.put("queueWaitMs", latency(o.queueWait()));
            p.put("openLoop", ol);
        }
        p.put("ratios", a.ratios(m));
        if (m.phases() != null) p.put("globalPhases", phases(m.phases()));
        if (m.serversBusy() != null) p.put("serversBusy", round(m.serversBusy()));
        if (m.slots() != null) p.put("slots", m.slots());
        if (m.slotMsPerRequest() != null) p.put("slotMsPerRequest", round(m.slotMsPerRequest()));
        if (m.machineBusy() != null) p.put("machineCpuBusy", round(m.machineBusy()));
        return p;
    }

    /** The share of the emulated servers' capacity a point used, as a percentage; "-" where none was emulated. */
    public static String busy(Measured m) {
        return m.serversBusy() == null ? "-" : percent(m.serversBusy());
    }

    /** The share of this machine's CPU time busy while a point was measured, as a percentage; "-" where unknown. */
    public static String machine(Measured m) {
        return m.machineBusy() == null ? "-" : percent(m.machineBusy());
    }

    /** Slot time per completed request in ms; "-" where no server was emulated. */
    public static String slotMs(Measured m) {
        return m.slotMsPerRequest() == null ? "-" : String.format(Locale.ROOT, "%.1f", m.slotMsPerRequest());
    }

    private static Map<String, Object> phases(PhaseBreakdown b) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("globals", b.globals());
        Map<String, Object> byPhase = new LinkedHashMap<>();
        for (PhaseBreakdown.Row r : b.phases()) byPhase.put(r.phase(), phaseRow(r));
        out.put("phasesMs", byPhase);
        out.put("totalMs", phaseRow(b.total()));
        out.put("attemptsPerGlobal", round(b.attempts()));
        out.put("globalsRanAgain", b.ranAgain());
        Map<String, Object> token = new LinkedHashMap<>();
        token.put("visits", b.visits());
        token.put("globalsPerVisit", round(b.perVisit()));
        token.put("mostGlobalsPerVisit", b.mostPerVisit());
        token.put("updatesAppliedPerHop", round(b.applied()));
        token.put("applyMsPerHop", round(b.applyMs()));
        token.put("applyMsPerUpdate", round(b.applyUpdateMs()));
        token.put("holdMs", round(b.holdMs()));
        token.put("updatesCarriedPerPass", round(b.carried()));
        token.put("rotationMs", phaseRow(b.rotation()));
        out.put("token", token);
        return out;
    }

    private static Map<String, Object> phaseRow(PhaseBreakdown.Row r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("describe", r.describe());
        m.put("mean", round(r.meanMs()));
        m.put("p50", round(r.p50Ms()));
        m.put("p99", round(r.p99Ms()));
        m.put("share", round(r.share()));
        return m;
    }

    // ------------------------------------------------------------------------------------------- plots

    /** One colour per system in every plot, so that plots read together. */
    private static final Map<String, Color> COLORS = Map.ofEntries(
            Map.entry("gyro", new Color(0x1f77b4)), Map.entry("gyro local", new Color(0x17becf)),
            Map.entry("gyro global", new Color(0x9467bd)), Map.entry("read-only", new Color(0xff7f0e)),
            Map.entry("centralized", new Color(0x2ca02c)), Map.entry("2pc", new Color(0xd62728)),
            Map.entry("peer", new Color(0x8c564b)), Map.entry("centralized-jdbc", new Color(0x7f7f7f)),
            // scale-sim's rings (ScaleSimScenario)
            Map.entry("ring", new Color(0x1f77b4)), Map.entry("ring-parallel", new Color(0x9467bd)),
            Map.entry("belts", new Color(0x2ca02c)));

    private static String suffix(String group, List<String> groups) {
        return groups.size() <= 1 || group == null ? "" : "-" + group.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    private static List<String> plots(Path out, Scenario s, ScenarioAnalysis a) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<String> files = new ArrayList<>();
        List<String> groups = a.groups();
        String unit = s.figure().yUnit();
        for (String group : groups) {
            List<Scenario.Setting> settings = s.settings().stream().filter(st -> Objects.equals(st.group(), group)).toList();
            String in = group == null ? "" : group + ", ";
            String mode = settings.get(0).capacity().emulated() ? "capacity emulation" : "plain";
            // the scenario's figure: peak throughput against x
            XYChart tp = integerX(chart(String.format(Locale.ROOT, "Peak throughput (mean latency under %.0f ms), %s%s",
                    s.bound().meanMs(), in, mode), s.figure().xLabel(), unit + " / s"));
            List<Number> xs = new ArrayList<>();
            for (Scenario.Setting st : settings) xs.add(x(st, s));
            for (String system : s.allSystems()) {
                List<Number> x = new ArrayList<>();
                List<Double> y = new ArrayList<>();
                for (Scenario.Setting st : settings) {
                    Measured m = a.peak(st.id(), system);
                    if (m == null) continue;
                    x.add(x(st, s));
                    y.add(m.throughput());
                }
                if (x.size() == 1 && xs.size() > 1) { // a reference: one setting, drawn across the figure
                    series(tp, system + " (reference)", List.of(min(xs), max(xs)), List.of(y.get(0), y.get(0)), true);
                } else series(tp, system, x, y, false);
            }
            files.add(save(tp, out, "throughput" + suffix(group, groups) + ".png"));
            files.add(latencyPlot(out, s, a, settings, 0, "latency-light" + suffix(group, groups) + ".png",
                    "Mean latency at light load (" + s.load().describe(0) + "), " + in + mode));
            int last = s.load().levels() - 1;
            if (last > 0)
                files.add(latencyPlot(out, s, a, settings, last, "latency-heavy" + suffix(group, groups) + ".png",
                        "Mean latency at heavy load (" + s.load().describe(last) + "), " + in + mode));
        }
        for (Scenario.Setting st : s.settings()) {
            // throughput against latency over the load sweep (the shape of Figure 6)
            XYChart curve = chart("Latency vs throughput, " + st.id() + " (" + s.load().describe() + ")",
                    unit + " / s", "mean latency (ms)");
            for (String system : s.systemsAt(st)) {
                List<Measured> mine = a.ran().stream().filter(m -> m.setting().equals(st.id())
                        && m.system().equals(system) && m.valid()).toList();
                series(curve, system, mine.stream().map(m -> (Number) m.throughput()).toList(),
                        mine.stream().map(m -> m.all().meanMs()).toList(), false);
            }
            files.add(save(curve, out, "curve-" + st.id() + ".png"));
            // throughput over time at each system's peak point
            XYChart time = chart("Throughput over time at each system's peak, " + st.id(), "seconds into the "
                    + "measured period", unit + " / s");
            for (String system : s.systemsAt(st)) {
                Measured m = a.peak(st.id(), system);
                if (m == null || m.timeline().throughput().isEmpty()) continue;
                double w = m.timeline().intervalSeconds();
                List<Number> x = new ArrayList<>();
                for (int i = 0; i < m.timeline().throughput().size(); i++) x.add((i + 1) * w);
                series(time, system + " (" + a.load(m) + " " + s.load().parameter() + ")", x,
                        m.timeline().throughput(), false);
            }
            files.add(save(time, out, "timeline-" + st.id() + ".png"));
        }
        return files;
    }

    private static String latencyPlot(Path out, Scenario s, ScenarioAnalysis a, List<Scenario.Setting> settings,
                                      int level, String file, String title) throws IOException {
        XYChart chart = integerX(chart(title, s.figure().xLabel(), "mean latency (ms)"));
        Object load = s.load().parameters(level).get(s.load().parameter());
        String first = s.systems().get(0);
        for (String system : s.allSystems()) {
            List<Number> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            Map<String, List<Number>> cx = new LinkedHashMap<>();
            Map<String, List<Double>> cy = new LinkedHashMap<>();
            for (Scenario.Setting st : settings) {
                Measured m = a.at(st.id(), system, load);
                if (m == null || !m.valid()) continue;
                x.add(x(st, s));
                y.add(m.all().meanMs());
                // per class where the system decides the class (Gyro's local and global requests: Figure 3)
                if (system.equals(first))
                    for (String cls : List.of("local", "global")) {
                        Measured.Latency l = m.byClass().get(cls);
                        if (l == null) continue;
                        cx.computeIfAbsent(cls, k -> new ArrayList<>()).add(x(st, s));
                        cy.computeIfAbsent(cls, k -> new ArrayList<>()).add(l.meanMs());
                    }
            }
            series(chart, system, x, y, false);
            for (String cls : cx.keySet()) series(chart, system + " " + cls, cx.get(cls), cy.get(cls), false);
        }
        return save(chart, out, file);
    }

    /** The setting's value on the figure's x axis (its position in the scenario when it has none). */
    private static Number x(Scenario.Setting st, Scenario s) {
        Object v = st.parameters().get(s.figure().x());
        return v instanceof Number n ? n : s.settings().indexOf(st);
    }

    private static Number min(List<Number> xs) {
        return xs.stream().mapToDouble(Number::doubleValue).min().orElse(0);
    }

    private static Number max(List<Number> xs) {
        return xs.stream().mapToDouble(Number::doubleValue).max().orElse(0);
    }

    static XYChart chart(String title, String x, String y) {
        XYChart chart = new XYChartBuilder().width(900).height(560).title(title).xAxisTitle(x).yAxisTitle(y).build();
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setYAxisMin(0.0);
        return chart;
    }

    /** Labels only the whole numbers of the x axis: instances, sites and shares come whole, 2.2 sites do not. */
    static XYChart integerX(XYChart chart) {
        chart.setCustomXAxisTickLabelsFormatter(v -> Math.abs(v - Math.rint(v)) < 1e-9
                ? Long.toString(Math.round(v)) : "");
        return chart;
    }

    static void series(XYChart chart, String name, List<Number> x, List<Double> y, boolean dashed) {
        if (x.isEmpty()) return; // xchart refuses an empty series
        var series = chart.addSeries(name, x, y);
        series.setMarker(dashed ? SeriesMarkers.NONE : SeriesMarkers.CIRCLE);
        if (dashed) series.setLineStyle(new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
                new float[]{6f, 4f}, 0f));
        Color color = COLORS.get(name.replaceAll(" \\(.*\\)$", "").replaceAll("^\\d+-belts$", "belts"));
        if (color != null) {
            series.setLineColor(color);
            series.setMarkerColor(color);
        }
    }

    static String save(XYChart chart, Path out, String file) throws IOException {
        BitmapEncoder.saveBitmap(chart, out.resolve(file).toString(), BitmapEncoder.BitmapFormat.PNG);
        return file;
    }

    // ------------------------------------------------------------------------------------------- summary.md

    /**
     * The summary's line on this machine's own CPU over the measured windows: where it was saturated, the emulated
     * servers were not what limited those points, and their figures (the ratios between systems too) are this
     * machine's as much as the protocols'. Empty where the machine's CPU could not be read.
     */
    static String machineLine(ScenarioAnalysis a) {
        List<Measured> read = a.ran().stream().filter(m -> m.machineBusy() != null).toList();
        if (read.isEmpty()) return "";
        double lo = read.stream().mapToDouble(Measured::machineBusy).min().orElseThrow();
        double hi = read.stream().mapToDouble(Measured::machineBusy).max().orElseThrow();
        List<Measured> saturated = read.stream().filter(Measured::machineSaturated).toList();
        StringBuilder line = new StringBuilder("- machine CPU while measuring: ").append(percent(lo)).append(" to ")
                .append(percent(hi)).append(" busy");
        if (saturated.isEmpty()) return line.append('\n').toString();
        line.append("; **").append(saturated.size()).append(" of ").append(read.size()).append(" points ran with this "
                + "machine's cores ").append(percent(Measured.MACHINE_SATURATED)).append(" busy or more** (");
        line.append(String.join(", ", saturated.stream().limit(6).map(m -> m.system() + " " + m.setting() + " "
                + a.load(m) + " " + a.loadParameter()).toList()));
        if (saturated.size() > 6) line.append(", ...");
        return line.append("): there the machine, not the emulated servers, limited them, and their figures say as much "
                + "about this machine as about the systems; compare them only side by side, from one run\n").toString();
    }

    private static String percent(double share) {
        return String.format(Locale.ROOT, "%.0f%%", 100 * share);
    }

    private static String summary(Run run, ScenarioAnalysis a, List<String> plots) {
        Scenario s = run.scenario();
        StringBuilder out = new StringBuilder();
        out.append("# ").append(s.name()).append(": ").append(s.title()).append("\n\n");
        out.append("Paper: ").append(s.paperRef()).append(".").append(s.quick() ? " Quick run (`--quick`): fewer and "
                + "shorter points than the full one; compare shapes and ratios." : "").append("\n\n");
        out.append("- command: `").append(run.command()).append("`\n");
        Map<String, Object> mach = machine();
        out.append("- machine: ").append(mach.get("cores")).append(" cores, ").append(mach.get("os")).append(", ")
                .append(mach.get("java")).append('\n');
        out.append("- mode: **").append(modes(s)).append("**\n");
        Set<String> backends = new LinkedHashSet<>(), networks = new LinkedHashSet<>();
        for (Scenario.Setting st : s.settings()) {
            backends.add(st.backend().label());
            networks.add(st.network());
        }
        out.append("- databases: ").append(String.join(", ", backends)).append("; network: ")
                .append(String.join(" / ", networks)).append('\n');
        out.append("- load: ").append(s.load().describe()).append("; warm-up ").append(s.warmup().toMillis() / 1000.0)
                .append(" s excluded, measured ").append(s.duration().toMillis() / 1000.0)
                .append(" s per point; each point on a freshly deployed system; run took ")
                .append(String.format(Locale.ROOT, "%.0f s", run.wallSeconds())).append('\n');
        out.append("- peak throughput: the highest throughput of the sweep with ").append(s.bound().describe()).append('\n');
        List<Measured> ran = a.ran();
        long invalid = ran.stream().filter(m -> !m.valid()).count();
        out.append("- checks: ").append(invalid == 0 ? "every point that ran passed replica convergence and the "
                + "application's audit" : invalid + " point(s) INVALID (see below and results.json)").append('\n');
        long notRun = a.points().size() - ran.size();
        if (notRun > 0) out.append("- ").append(notRun).append(" point(s) not run (see \"Not run\")\n");
        out.append(machineLine(a));
        for (String n : s.notes()) out.append("- ").append(n).append('\n');

        if (!s.paper().isEmpty()) {
            out.append("\n## The paper's figures beside this run\n\n| figure | paper | this run | where (this run) |\n"
                    + "|---|---|---|---|\n");
            for (ScenarioAnalysis.PaperValue v : a.paperValues())
                out.append("| ").append(v.ratio().label()).append(" | ")
                        .append(String.format(Locale.ROOT, "%.1fx", v.ratio().paper())).append(" | ")
                        .append(v.oursText()).append(" | ").append(v.at() == null ? "-" : v.at()).append(" |\n");
        }

        String first = s.systems().get(0);
        List<String> systems = s.allSystems();
        for (String group : a.groups()) {
            List<Scenario.Setting> settings = s.settings().stream().filter(st -> Objects.equals(st.group(), group)).toList();
            out.append("\n## Peak throughput (").append(s.figure().yUnit()).append("/s)")
                    .append(group == null ? "" : ", " + group).append(", and ratios\n\n| setting |");
            for (String sys : systems) out.append(' ').append(sys).append(" |");
            for (String sys : systems) if (!sys.equals(first)) out.append(' ').append(first).append(" / ").append(sys).append(" |");
            out.append("\n|---|").append("---|".repeat(systems.size() * 2 - 1)).append('\n');
            for (Scenario.Setting st : settings) {
                out.append("| ").append(label(st, settings)).append(" |");
                for (String sys : systems) {
                    Measured m = a.peak(st.id(), sys);
                    out.append(m == null ? " - |" : String.format(Locale.ROOT, " %.0f (%s) |", m.throughput(), a.load(m)));
                }
                Measured g = a.peak(st.id(), first);
                for (String sys : systems) {
                    if (sys.equals(first)) continue;
                    Measured b = a.peakOrReference(st.id(), sys);
                    out.append(g == null || b == null || b.throughput() == 0 ? " - |"
                            : String.format(Locale.ROOT, " %.2fx%s |", g.throughput() / b.throughput(),
                            b.setting().equals(st.id()) ? "" : " (vs " + b.setting() + ")"));
                }
                out.append('\n');
            }
            out.append("\n(in brackets: the ").append(s.load().parameter()).append(" of the peak; \"vs SETTING\": the "
                    + "system ran only there, the group's reference)\n");

            out.append("\n## Mean latency (ms) at light load, ").append(s.load().describe(0))
                    .append(group == null ? "" : ", " + group).append("\n\n| setting |");
            for (String sys : systems) out.append(' ').append(sys).append(" |");
            for (String sys : systems) if (!sys.equals(first)) out.append(' ').append(sys).append(" / ").append(first).append(" |");
            out.append("\n|---|").append("---|".repeat(systems.size() * 2 - 1)).append('\n');
            Object light = s.load().parameters(0).get(s.load().parameter());
            for (Scenario.Setting st : settings) {
                out.append("| ").append(label(st, settings)).append(" |");
                for (String sys : systems) {
                    Measured m = a.at(st.id(), sys, light);
                    out.append(m == null || !m.valid() ? " - |" : String.format(Locale.ROOT, " %.2f |", m.all().meanMs()));
                }
                Measured g = a.at(st.id(), first, light);
                for (String sys : systems) {
                    if (sys.equals(first)) continue;
                    Measured b = g == null ? null : a.counterpart(g, sys);
                    out.append(g == null || b == null || !g.valid() || !b.valid() || g.all().meanMs() == 0 ? " - |"
                            : String.format(Locale.ROOT, " %.2fx |", b.all().meanMs() / g.all().meanMs()));
                }
                out.append('\n');
            }
        }

        out.append("\n## Every point (latency in ms)\n\n");
        out.append("| system | setting | ").append(s.load().parameter())
                .append(" | ").append(s.figure().yUnit()).append("/s | mean | p50 | p95 | p99 | local mean | global mean | servers busy | slot ms / request | machine CPU | valid |\n");
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Measured m : ran) {
            Measured.Latency l = m.all();
            out.append(String.format(Locale.ROOT, "| %s | %s | %s | %.0f | %.2f | %.2f | %.2f | %.2f | %s | %s | %s | %s | %s | %s |%n",
                    m.system(), m.setting(), a.load(m), m.throughput(), l.meanMs(), l.p50Ms(), l.p95Ms(), l.p99Ms(),
                    classMean(m, "local"), classMean(m, "global"), busy(m), slotMs(m), machine(m),
                    (m.valid() ? "yes" : "NO: " + String.join("; ", m.problems()))
                            + (m.partial() ? String.format(Locale.ROOT, " (partial: %d calls unsupported)", m.unsupported()) : "")));
        }
        out.append("\nClasses: how the system ran the call (gyro, read-only), or the class the application's "
                + "classification gives the transaction (systems that run everything alike). Servers busy: the share of "
                + "the emulated servers' slot time in use over the measured period, all instances together (near 100%, "
                + "no system could serve much more on them). Slot ms / request: the emulated servers' slot time a completed "
                + "request took on average (service time, its transaction, retries, waits held in the slot; its floor is "
                + "the service time): the servers' slots over it are the most requests a second the system could serve "
                + "there at that cost. Machine CPU: the share of this machine's own CPU time that was busy while the "
                + "point was measured (the host's steal time included); from " + percent(Measured.MACHINE_SATURATED)
                + " on, the machine and not the emulated servers limited the point. Per-transaction latencies and "
                + "throughput over time are in results.json.\n");
        if (s.load().closedLoop() == false) {
            out.append("\n## Open loop: offered vs achieved\n\n| system | setting | target /s | offered /s | achieved /s "
                    + "| dropped | unfinished | most queued | queue wait p99 ms |\n|---|---|---|---|---|---|---|---|---|\n");
            for (Measured m : ran) {
                Measured.OpenLoop o = m.openLoop();
                if (o == null) continue;
                out.append(String.format(Locale.ROOT, "| %s | %s | %.0f | %.1f | %.1f | %d | %d | %d | %.2f |%n",
                        m.system(), m.setting(), o.targetRate(), o.offeredRate(), o.achievedRate(), o.dropped(),
                        o.unfinished(), o.mostQueued(), o.queueWait().p99Ms()));
            }
            out.append("\nLatency is measured from each arrival's intended time, so time spent waiting for a free "
                    + "session counts (no coordinated omission).\n");
        }
        if (ran.stream().anyMatch(Measured::partial)) {
            out.append("\n## Transactions a system cannot run\n\nIts calls fail at once and are counted apart: not "
                    + "in its throughput or latency, so its figures cover the rest of the workload only.\n\n");
            Set<String> said = new LinkedHashSet<>();
            for (Measured m : ran)
                m.byTransaction().forEach((tx, t) -> {
                    if (t.unsupported() > 0 && said.add(m.system() + "/" + m.setting() + "/" + tx))
                        out.append("- ").append(m.system()).append(" at ").append(m.setting()).append(", ").append(tx)
                                .append(": ").append(t.unsupportedWhy()).append('\n');
                });
        }
        if (ran.size() < a.points().size()) {
            out.append("\n## Not run\n\n");
            Set<String> said = new LinkedHashSet<>();
            for (Measured m : a.points())
                if (!m.ran() && said.add(m.system() + " at " + m.setting() + ": " + m.notRun()))
                    out.append("- ").append(m.system()).append(" at ").append(m.setting()).append(": ")
                            .append(m.notRun()).append('\n');
        }
        if (ran.stream().anyMatch(m -> m.phases() != null)) {
            out.append("\n## Where a global request's time goes\n\nPer Gyro point, the global requests that arrived in "
                    + "the measured window, timed at their owners from arrival to reply (the client's latency adds the "
                    + "hop to the instance and back), by phase; then the token's visits in the window.\n");
            for (Measured m : ran)
                if (m.phases() != null)
                    out.append("\n### ").append(pointLabel(m, a)).append("\n\n").append(m.phases().table());
        }
        out.append("\n## Plots\n\n");
        for (String p : plots) out.append("- ").append(p).append('\n');
        return out.toString();
    }

    /** A setting in a table: its parameters other than those shared by every setting of its table. */
    private static String label(Scenario.Setting st, List<Scenario.Setting> table) {
        List<String> parts = new ArrayList<>();
        st.parameters().forEach((k, v) -> {
            boolean shared = table.size() > 1 && table.stream().allMatch(o -> Objects.equals(o.parameters().get(k), v));
            if (!shared) parts.add(k + " " + v);
        });
        return parts.isEmpty() ? st.id() : String.join(", ", parts);
    }

    /** A point in words: system, setting, load. */
    public static String pointLabel(Measured m, ScenarioAnalysis a) {
        return m.system() + ", " + m.setting() + ", " + a.load(m) + " " + a.loadParameter();
    }

    private static String classMean(Measured m, String cls) {
        Measured.Latency l = m.byClass().get(cls);
        return l == null ? "-" : String.format(Locale.ROOT, "%.2f", l.meanMs());
    }
}
