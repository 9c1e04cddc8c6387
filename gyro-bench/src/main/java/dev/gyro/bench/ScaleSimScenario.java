package dev.gyro.bench;

import dev.gyro.sim.perf.PerfModel;
import dev.gyro.sim.perf.PerfResult;
import dev.gyro.sim.perf.PerfSetting;
import dev.gyro.sim.perf.PerfSimulator;
import org.knowm.xchart.XYChart;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code scale-sim}: the ring at scale, in the performance simulator ({@link PerfSimulator}: the real Conveyor Belt
 * under a cost model, no databases). For 1 to 128 instances at 90%, 95% and 99% local requests, each ring's peak
 * throughput, its global requests' latency and its token rotation, with the closed-form expectation beside each
 * ({@link PerfModel#expectedThroughput}, {@link PerfModel#expectedRotationMs}). The instances are the application
 * scenarios' emulated servers ({@link Scenarios#APP_CONCURRENCY} slots of {@link Scenarios#APP_SERVICE_MS} ms).
 *
 * <p>Rings: today's Gyro with its global requests one at a time (PostgreSQL, SQLite) and side by side (paper Appendix
 * B, MariaDB), and several belts over the same instances (docs/decisions/21-several-belts.md). Peak throughput is the
 * highest of the client sweep whose mean latency stays under the LAN bound and whose closed loop had settled
 * ({@link PerfResult#steady()}). A seed decides every point.
 */
public final class ScaleSimScenario {

    public static final String NAME = "scale-sim";

    /** Doubling the instances must add at least this share of throughput for a ring to be said to scale. */
    static final double SCALING_GAIN = 0.10;
    /** The goal at 64 instances and 95% local: this many times one instance's throughput. */
    static final double GOAL_SPEEDUP = 40;
    static final int GOAL_INSTANCES = 64;
    static final double GOAL_RATIO = 0.95;

    /** Belts of the several-belts ring: the closed form's count for the goal, doubled for headroom (decision 21). */
    public static final int BELTS = 16;

    private ScaleSimScenario() {}

    /**
     * One kind of ring.
     *
     * @param name            in tables and plots
     * @param belts           independent Conveyor Belts over the same instances
     * @param parallelGlobals the holder runs a round's global requests side by side
     * @param describe        for people
     * @param updatesAhead    each committed update is sent to every instance at once and applied ahead of the token
     *                        (decision 25)
     */
    public record Ring(String name, int belts, boolean parallelGlobals, String describe, boolean updatesAhead) {
        public Ring(String name, int belts, boolean parallelGlobals, String describe) {
            this(name, belts, parallelGlobals, describe, false);
        }
    }

    public static final Ring ONE_AT_A_TIME = new Ring("ring", 1, false,
            "one ring, global requests one at a time (today's Gyro on PostgreSQL and SQLite)");
    public static final Ring PARALLEL = new Ring("ring-parallel", 1, true,
            "one ring, a round's global requests side by side (paper Appendix B; today's Gyro on MariaDB)");
    public static final Ring BELTED = new Ring(BELTS + "-belts", BELTS, true,
            BELTS + " belts over the same instances, each its own token for a group of global transactions that "
                    + "never conflict with another group's, side by side (the fix, simulated only: decision 21)");
    public static final Ring PARALLEL_AHEAD = new Ring("ring-ahead", 1, true,
            "one ring, side by side, each committed update sent to every instance at once and applied there ahead of "
                    + "the token (decision 25; today's Gyro on PostgreSQL and MariaDB)", true);
    public static final Ring BELTED_AHEAD = new Ring(BELTS + "-belts-ahead", BELTS, true,
            BELTS + " belts, side by side, updates sent ahead of their tokens (decisions 21 and 25)", true);

    /**
     * What to simulate.
     *
     * @param quick              the reduced configuration
     * @param seed               every point's seed
     * @param model              the costs
     * @param instances          ring sizes, ascending, the first 1 (the reference)
     * @param localRatios        shares of local requests
     * @param clientsPerInstance the closed loop's sweep
     * @param rings              the kinds of ring
     * @param warmupMs           simulated warm-up per point
     * @param measureMs          simulated time measured per point
     */
    public record Config(boolean quick, long seed, PerfModel model, List<Integer> instances, List<Double> localRatios,
                         List<Integer> clientsPerInstance, List<Ring> rings, long warmupMs, long measureMs) {
        public Config {
            instances = List.copyOf(instances);
            localRatios = List.copyOf(localRatios);
            clientsPerInstance = List.copyOf(clientsPerInstance);
            rings = List.copyOf(rings);
            if (instances.isEmpty() || instances.get(0) != 1)
                throw new IllegalArgumentException("the instance counts must start at 1, the reference: " + instances);
        }

        public int points() {
            return instances.size() * localRatios.size() * clientsPerInstance.size() * rings.size();
        }
    }

    /**
     * The full sweep: 1 to 128 instances, doubling; 1 to 16 clients per instance, doubling; 20 s warm-up and 10 s
     * measured, simulated.
     */
    public static Config full(long seed, PerfModel model) {
        return new Config(false, seed, model, List.of(1, 2, 4, 8, 16, 32, 64, 128), List.of(0.90, 0.95, 0.99),
                List.of(1, 2, 4, 8, 16), List.of(ONE_AT_A_TIME, PARALLEL, PARALLEL_AHEAD, BELTED, BELTED_AHEAD), 20_000,
                10_000);
    }

    /** The quick sweep: 1 to 64 instances by fours; 1, 4, 16 clients per instance; 10 s + 5 s, simulated. */
    public static Config quick(long seed, PerfModel model) {
        return new Config(true, seed, model, List.of(1, 4, 16, 64), List.of(0.90, 0.95, 0.99), List.of(1, 4, 16),
                List.of(ONE_AT_A_TIME, PARALLEL, PARALLEL_AHEAD, BELTED, BELTED_AHEAD), 10_000, 5_000);
    }

    /**
     * The application scenarios' emulated server ({@link Scenarios#APP_CONCURRENCY} slots of
     * {@link Scenarios#APP_SERVICE_MS} ms for a local or a global request) with the given apply cost and hop latency.
     */
    public static PerfModel model(double applyMsPerUpdate, double hopLatencyMs) {
        return new PerfModel(Scenarios.APP_CONCURRENCY, Scenarios.APP_SERVICE_MS, Scenarios.APP_SERVICE_MS,
                applyMsPerUpdate, hopLatencyMs);
    }

    /** {@link #model(double, double)} with the model's default apply cost and a LAN. */
    public static PerfModel model() {
        return model(PerfModel.DEFAULT_APPLY_MS, PerfModel.DEFAULT_HOP_MS);
    }

    /** One simulated point. */
    public record Point(Ring ring, PerfResult result) {
        public boolean underBound() {
            return result.meanMs() <= Scenario.Bound.LAN.meanMs();
        }
    }

    /**
     * A ring's peak at one size and ratio: its best point of the client sweep that settled and stayed under the
     * bound, or null when none did.
     */
    public record Peak(Ring ring, double localRatio, int instances, Point best, double expected) {
        public double throughput() {
            return best == null ? Double.NaN : best.result().throughput();
        }
    }

    /** Told about each point once it is done, in the order of the sweep. */
    public interface Listener {
        void point(int index, int of, Point point, double elapsedSeconds);
    }

    /** Every point, and each ring's peaks. */
    public record Result(Config config, List<Point> points, List<Peak> peaks) {

        public Peak peak(Ring ring, double ratio, int n) {
            for (Peak p : peaks)
                if (p.ring().equals(ring) && p.localRatio() == ratio && p.instances() == n) return p;
            throw new IllegalArgumentException("no peak for " + ring.name() + " at " + ratio + ", " + n);
        }

        /** The ring's point at the lightest load of the sweep (its first client count), settled or not. */
        public Point light(Ring ring, double ratio, int n) {
            int clients = config.clientsPerInstance().get(0);
            for (Point p : points) {
                PerfSetting s = p.result().setting();
                if (p.ring().equals(ring) && s.localRatio() == ratio && s.instances() == n
                        && s.clientsPerInstance() == clients) return p;
            }
            throw new IllegalArgumentException("no light point for " + ring.name() + " at " + ratio + ", " + n);
        }

        /** Peak throughput at {@code n} over the same ring's at 1 instance. */
        public double speedup(Ring ring, double ratio, int n) {
            return peak(ring, ratio, n).throughput() / peak(ring, ratio, 1).throughput();
        }

        /**
         * The instance count from which the ring stops scaling: the first of the sweep whose next count adds less
         * than {@link #SCALING_GAIN} per doubling of the instances (or has no peak); null if it scales to the largest.
         */
        public Integer stopsScalingAt(Ring ring, double ratio) {
            List<Integer> ns = config.instances();
            for (int i = 0; i + 1 < ns.size(); i++) {
                double here = peak(ring, ratio, ns.get(i)).throughput();
                double next = peak(ring, ratio, ns.get(i + 1)).throughput();
                double doublings = Math.log((double) ns.get(i + 1) / ns.get(i)) / Math.log(2);
                if (!(next >= here * Math.pow(1 + SCALING_GAIN, doublings))) return ns.get(i);
            }
            return null;
        }
    }

    /**
     * Runs every point, on as many threads as {@code threads} (each point is its own seeded simulation, so the
     * figures do not depend on the threads), and reports them in the sweep's order.
     */
    public static Result run(Config c, int threads, Listener listener) throws InterruptedException {
        List<Ring> rings = new ArrayList<>();
        List<PerfSetting> settings = new ArrayList<>();
        for (double ratio : c.localRatios())
            for (int n : c.instances())
                for (Ring ring : c.rings())
                    for (int clients : c.clientsPerInstance()) {
                        rings.add(ring);
                        settings.add(new PerfSetting(n, ring.belts(), ring.parallelGlobals(), ratio, clients,
                                c.warmupMs(), c.measureMs(), c.seed(), ring.updatesAhead()));
                    }
        long started = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
        List<Point> points = new ArrayList<>();
        try {
            List<Future<PerfResult>> futures = new ArrayList<>();
            for (PerfSetting s : settings) futures.add(pool.submit(() -> PerfSimulator.run(c.model(), s)));
            for (int i = 0; i < futures.size(); i++) {
                PerfResult r;
                try {
                    r = futures.get(i).get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException("simulating " + settings.get(i).describe() + " failed: "
                            + e.getCause(), e.getCause());
                }
                Point p = new Point(rings.get(i), r);
                points.add(p);
                listener.point(i + 1, settings.size(), p, (System.nanoTime() - started) / 1e9);
            }
        } finally {
            pool.shutdownNow();
        }
        List<Peak> peaks = new ArrayList<>();
        for (double ratio : c.localRatios())
            for (int n : c.instances())
                for (Ring ring : c.rings()) {
                    Point best = null;
                    for (Point p : points) {
                        PerfSetting s = p.result().setting();
                        if (!p.ring().equals(ring) || s.localRatio() != ratio || s.instances() != n) continue;
                        if (!p.result().steady() || !p.underBound()) continue;
                        if (best == null || p.result().throughput() > best.result().throughput()) best = p;
                    }
                    peaks.add(new Peak(ring, ratio, n, best, c.model().expectedThroughput(n, ring.belts(),
                            ring.parallelGlobals(), ratio, ring.updatesAhead())));
                }
        return new Result(c, points, peaks);
    }

    /** A point as one progress line. */
    public static String describe(Point p) {
        PerfResult r = p.result();
        PerfSetting s = r.setting();
        return String.format(Locale.ROOT, "%-13s %3.0f%% local %4d instances %3d clients/instance: %7.0f /s, global "
                        + "mean %8.1f ms, rotation %8.1f ms%s", p.ring().name(), s.localRatio() * 100, s.instances(),
                s.clientsPerInstance(), r.throughput(), r.global().meanMs(), r.rotationMs(),
                r.steady() ? "" : "  (not settled)");
    }

    // ------------------------------------------------------------------------------------------- for people

    /** The peaks as a table: per ratio and ring, throughput by instances, with the expectation and the speedup. */
    public static String table(Result r) {
        Config c = r.config();
        StringBuilder out = new StringBuilder();
        for (double ratio : c.localRatios()) {
            out.append(String.format(Locale.ROOT, "%n%.0f%% local: peak requests/s (expected) [global mean ms, "
                    + "rotation ms]%n  %-13s", ratio * 100, "instances"));
            for (int n : c.instances()) out.append(String.format(Locale.ROOT, " %22d", n));
            out.append('\n');
            for (Ring ring : c.rings()) {
                out.append(String.format(Locale.ROOT, "  %-13s", ring.name()));
                for (int n : c.instances()) {
                    Peak p = r.peak(ring, ratio, n);
                    out.append(p.best() == null ? String.format(Locale.ROOT, " %22s", "- (" + Math.round(p.expected())
                            + ")") : String.format(Locale.ROOT, " %22s", String.format(Locale.ROOT, "%.0f (%.0f) [%s, %s]",
                            p.throughput(), p.expected(), ms(p.best().result().global().meanMs()),
                            ms(p.best().result().rotationMs()))));
                }
                out.append('\n');
            }
            for (Ring ring : c.rings()) {
                Integer stop = r.stopsScalingAt(ring, ratio);
                out.append(String.format(Locale.ROOT, "  %s: %s%n", ring.name(), stop == null
                        ? "scales to " + c.instances().get(c.instances().size() - 1) + " instances"
                        : "stops scaling at " + stop + " instances (the next count adds less than "
                        + Math.round(SCALING_GAIN * 100) + "% per doubling)"));
            }
        }
        out.append(goal(r));
        return out.toString();
    }

    private static String ms(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.0f", v);
    }

    /** The goal at 64 instances and 95% local, per ring, when the sweep has both. */
    static String goal(Result r) {
        Config c = r.config();
        if (!c.instances().contains(GOAL_INSTANCES) || !c.localRatios().contains(GOAL_RATIO)) return "";
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%ngoal: at %d instances and %.0f%% local, "
                + "throughput >= %.0fx one instance's%n", GOAL_INSTANCES, GOAL_RATIO * 100, GOAL_SPEEDUP));
        for (Ring ring : c.rings()) {
            double speedup = r.speedup(ring, GOAL_RATIO, GOAL_INSTANCES);
            Peak p = r.peak(ring, GOAL_RATIO, GOAL_INSTANCES);
            PerfResult light = r.light(ring, GOAL_RATIO, GOAL_INSTANCES).result();
            out.append(String.format(Locale.ROOT, "  %-13s %7s  %s%s; light load: global mean %s ms (t_g + n (d + w) = "
                            + "%.1f ms)%n",
                    ring.name(), Double.isNaN(speedup) ? "-" : String.format(Locale.ROOT, "%.1fx", speedup),
                    speedup >= GOAL_SPEEDUP ? "met" : "NOT met", p.best() == null
                            ? " (no settled point under the bound)" : String.format(Locale.ROOT,
                            " (at the peak: global mean %s ms, rotation %s ms)", ms(p.best().result().global().meanMs()),
                            ms(p.best().result().rotationMs())), ms(light.global().meanMs()),
                    roundTripAndExecution(c.model(), light)));
        }
        return out.toString();
    }

    /** Writes {@code results.csv} (every point), {@code summary.md} and the plots; returns the plots' names. */
    public static List<String> write(Path out, Result r, String command, double wallSeconds) throws IOException {
        Files.createDirectories(out);
        Files.writeString(out.resolve("results.csv"), csv(r));
        List<String> plots = plots(out, r);
        Files.writeString(out.resolve("summary.md"), summary(r, command, wallSeconds, plots));
        return plots;
    }

    static String csv(Result r) {
        StringBuilder out = new StringBuilder("ring,belts,parallel_globals,local_ratio,instances,clients_per_instance,"
                + "throughput,local_throughput,global_throughput,local_mean_ms,global_mean_ms,global_p50_ms,"
                + "global_p99_ms,rotation_ms,slot_utilisation,token_passes,messages,steady,under_bound,"
                + "expected_throughput,expected_rotation_ms,seed\n");
        for (Point p : r.points()) {
            PerfResult x = p.result();
            PerfSetting s = x.setting();
            out.append(String.join(",", p.ring().name(), Integer.toString(s.belts()),
                    Boolean.toString(s.parallelGlobals()), num(s.localRatio()), Integer.toString(s.instances()),
                    Integer.toString(s.clientsPerInstance()), num(x.throughput()), num(x.localThroughput()),
                    num(x.globalThroughput()), num(x.local().meanMs()), num(x.global().meanMs()),
                    num(x.global().p50Ms()), num(x.global().p99Ms()), num(x.rotationMs()), num(x.slotUtilisation()),
                    Long.toString(x.tokenPasses()), Long.toString(x.messages()), Boolean.toString(x.steady()),
                    Boolean.toString(p.underBound()), num(x.expectedThroughput()), num(x.expectedRotationMs()),
                    Long.toString(s.seed()))).append('\n');
        }
        return out.toString();
    }

    private static String num(double v) {
        return Double.isNaN(v) ? "" : Double.isInfinite(v) ? "inf" : String.format(Locale.ROOT, "%.3f", v);
    }

    private static String percent(double ratio) {
        return String.format(Locale.ROOT, "%.0f", ratio * 100);
    }

    private static List<String> plots(Path out, Result r) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Config c = r.config();
        List<String> files = new ArrayList<>();
        for (double ratio : c.localRatios()) {
            String at = percent(ratio) + "% local";
            XYChart tp = logLog(ScenarioOutput.chart("Peak throughput by instances, " + at + " (simulated; dashed: "
                    + "closed form)", "instances", "requests / s"));
            // the reference: every instance as fast as one alone
            List<Number> lx = new ArrayList<>();
            List<Double> ly = new ArrayList<>();
            double one = r.peak(c.rings().get(0), ratio, 1).throughput();
            for (int n : c.instances()) {
                lx.add(n);
                ly.add(n * one);
            }
            if (!Double.isNaN(one)) ScenarioOutput.series(tp, "n x one instance", lx, ly, true);
            XYChart lat = logLog(ScenarioOutput.chart("Global latency at light load (" + c.clientsPerInstance().get(0)
                    + " client/instance), " + at + "; dashed: round trip + execution", "instances", "mean ms"));
            XYChart rot = logLog(ScenarioOutput.chart("Token rotation at light load (" + c.clientsPerInstance().get(0)
                    + " client/instance), " + at + "; dashed: closed form", "instances", "mean ms"));
            for (Ring ring : c.rings()) {
                List<Number> x = new ArrayList<>(), xe = new ArrayList<>(), xl = new ArrayList<>(), xr = new ArrayList<>();
                List<Double> y = new ArrayList<>(), ye = new ArrayList<>(), yl = new ArrayList<>(), yr = new ArrayList<>(),
                        yre = new ArrayList<>();
                List<Number> xre = new ArrayList<>();
                for (int n : c.instances()) {
                    Peak p = r.peak(ring, ratio, n);
                    xe.add(n);
                    ye.add(p.expected());
                    PerfResult light = r.light(ring, ratio, n).result();
                    if (light.global().count() > 0) {
                        xl.add(n);
                        yl.add(light.global().meanMs());
                    }
                    if (!Double.isNaN(light.rotationMs())) {
                        xr.add(n);
                        yr.add(light.rotationMs());
                        double expected = light.expectedRotationMs();
                        if (Double.isFinite(expected)) {
                            xre.add(n);
                            yre.add(expected);
                        }
                    }
                    if (p.best() == null) continue;
                    x.add(n);
                    y.add(p.best().result().throughput());
                }
                ScenarioOutput.series(tp, ring.name(), x, y, false);
                ScenarioOutput.series(tp, ring.name() + " (closed form)", xe, ye, true);
                ScenarioOutput.series(lat, ring.name(), xl, yl, false);
                ScenarioOutput.series(rot, ring.name(), xr, yr, false);
                ScenarioOutput.series(rot, ring.name() + " (closed form)", xre, yre, true);
            }
            List<Number> xs = new ArrayList<>();
            List<Double> trip = new ArrayList<>();
            for (int n : c.instances()) {
                xs.add(n);
                trip.add(roundTripAndExecution(r, ratio, n));
            }
            ScenarioOutput.series(lat, "t_g + n (d + w) (closed form)", xs, trip, true);
            String suffix = "-" + percent(ratio) + ".png";
            files.add(ScenarioOutput.save(tp, out, "throughput" + suffix));
            files.add(ScenarioOutput.save(lat, out, "latency-global" + suffix));
            files.add(ScenarioOutput.save(rot, out, "rotation" + suffix));
        }
        return files;
    }

    /**
     * The most one ring can run, as a multiple of one instance, at local share {@code p} if applying updates cost
     * nothing: its holder's execution alone, {@code 1 / t_g} (or {@code S / t_g}) global requests a second, over
     * {@code 1 - p}, against one instance's {@code S / t_l}.
     */
    static double oneRingBound(PerfModel m, double p, boolean parallelGlobals) {
        double globals = (parallelGlobals ? m.slots() : 1) / m.globalMs();
        return globals / (1 - p) / (m.slots() / m.localMs());
    }

    /**
     * What a global request costs at light load when its latency grows no faster than the ring's round trip: at most
     * one trip of the token round the ring plus its own execution, {@code t_g + n (d + w)}, where each of the
     * {@code n} hops costs the message's latency {@code d} and the wait {@code w} for a slot to apply what the token
     * brings, at the slot utilisation the light point measured.
     */
    static double roundTripAndExecution(PerfModel m, PerfResult light) {
        int n = light.setting().instances();
        return m.globalMs() + n * (m.hopLatencyMs() + m.slotWaitMs(light.slotUtilisation()));
    }

    /** {@link #roundTripAndExecution} at the light point of the sweep's last ring (the fix) at {@code n}. */
    static double roundTripAndExecution(Result r, double ratio, int n) {
        Config c = r.config();
        return roundTripAndExecution(c.model(), r.light(c.rings().get(c.rings().size() - 1), ratio, n).result());
    }

    /** Instances double from point to point and throughput spans two orders of magnitude: both axes logarithmic. */
    private static XYChart logLog(XYChart chart) {
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setYAxisMin(null);
        return chart;
    }

    static String summary(Result r, String command, double wallSeconds, List<String> plots) {
        Config c = r.config();
        PerfModel m = c.model();
        StringBuilder out = new StringBuilder("# scale-sim: the ring at scale, simulated\n\n");
        out.append("The real Conveyor Belt (`dev.gyro.protocol.ConveyorBelt`) on every instance, driven in simulated "
                + "time by a cost model (`dev.gyro.sim.perf.PerfSimulator`); no databases, no faults.")
                .append(c.quick() ? " Quick run (`--quick`): fewer instance counts and shorter points." : "")
                .append("\n\n");
        out.append("- command: `").append(command).append("`\n");
        Map<String, Object> mach = ScenarioOutput.machine();
        out.append("- machine: ").append(mach.get("cores")).append(" cores, ").append(mach.get("os")).append(", ")
                .append(mach.get("java")).append(String.format(Locale.ROOT, "; run took %.0f s (simulated time does "
                        + "not depend on the machine: the figures below are the same on any)%n", wallSeconds));
        out.append("- model: ").append(m.describe()).append("; belt work (apply, global requests) goes ahead of "
                + "queued local requests\n");
        out.append("- load: closed loop, ").append(c.clientsPerInstance()).append(" clients per instance, no think "
                + "time; ").append(c.warmupMs() / 1000).append(" s warm-up + ").append(c.measureMs() / 1000)
                .append(" s measured per point, simulated (stretched up to ").append(PerfSimulator.MAX_WINDOW_STRETCH)
                .append(" times while it holds fewer than three token rotations); seed ").append(c.seed()).append(" for every point\n");
        out.append("- peak: the highest throughput of the client sweep with ")
                .append(Scenario.Bound.LAN.describe()).append(" and a closed loop that settled (answered requests in "
                        + "the mix's ratio, globals waited less than the warm-up, three rotations in the window)\n");
        out.append("- rings:\n");
        for (Ring ring : c.rings()) out.append("  - `").append(ring.name()).append("`: ").append(ring.describe()).append('\n');
        out.append("\n## The closed form\n\n")
                .append("With n instances of S slots, local service t_l, global service t_g, apply t_a per update, hop "
                        + "latency d, local share p and B belts:\n\n")
                .append("- capacity C = n S / (p t_l + (1 - p)(t_g + (n - 1) t_a)): every slot busy, each global "
                        + "request also applied at the n - 1 other instances;\n")
                .append("- a belt holds its token t = t_g + w (one at a time; w, the wait for a slot, since the one "
                        + "the last global freed went to a local request) or t_g / S (side by side), plus (n - 1) t_a, "
                        + "for each global request it carries, unless its updates are sent ahead of the token (the "
                        + "applies still take the slots, but no longer hold the token): its ceiling is G = B / t;\n")
                .append("- expected peak X = min(C, G / (1 - p)), with w = (X / C)^S t_l / (S + 1) (a fixed point);\n")
                .append("- rotation R = n (d + w) / (1 - x t) at x globals/s per belt: the bare round trip n (d + w), "
                        + "stretched as the belt nears its ceiling.\n\n")
                .append("So one ring's global ceiling falls as the ring grows, by (n - 1) t_a per global request, and "
                        + "the mix's throughput with it, while the capacity grows with n. Even with no apply cost at "
                        + "all, one ring carries at most 1 / t_g global requests a second one at a time, S / t_g side by "
                        + "side, so the mix runs at most ")
                .append(String.format(Locale.ROOT, "%.0fx and %.0fx one instance at %.0f%% local, whatever n.%n",
                        oneRingBound(m, GOAL_RATIO, false), oneRingBound(m, GOAL_RATIO, true), GOAL_RATIO * 100));
        for (double ratio : c.localRatios()) {
            out.append(String.format(Locale.ROOT, "%n## %.0f%% local%n%n| instances |", ratio * 100));
            for (Ring ring : c.rings())
                out.append(' ').append(ring.name()).append(" req/s (closed form) | global mean ms | rotation ms (closed "
                        + "form) | global mean ms, light load |");
            out.append("\n|---|").append("---|---|---|---|".repeat(c.rings().size())).append('\n');
            for (int n : c.instances()) {
                out.append("| ").append(n).append(" |");
                for (Ring ring : c.rings()) {
                    Peak p = r.peak(ring, ratio, n);
                    PerfResult light = r.light(ring, ratio, n).result();
                    String lightCell = String.format(Locale.ROOT, " %s%s |", ms(light.global().meanMs()),
                            light.steady() ? "" : " (not settled)");
                    if (p.best() == null) {
                        out.append(String.format(Locale.ROOT, " - (%.0f): no settled point under the bound | - | - |%s",
                                p.expected(), lightCell));
                        continue;
                    }
                    PerfResult x = p.best().result();
                    double expectedRotation = x.expectedRotationMs();
                    out.append(String.format(Locale.ROOT, " %.0f (%.0f), %d clients/instance | %s | %s (%s) |%s",
                            x.throughput(), p.expected(), x.setting().clientsPerInstance(), ms(x.global().meanMs()),
                            ms(x.rotationMs()), Double.isInfinite(expectedRotation) ? "near the ceiling"
                                    : ms(expectedRotation), lightCell));
                }
                out.append('\n');
            }
            out.append('\n');
            for (Ring ring : c.rings()) {
                Integer stop = r.stopsScalingAt(ring, ratio);
                out.append("- `").append(ring.name()).append("`: ").append(stop == null ? "scales to "
                        + c.instances().get(c.instances().size() - 1) + " instances" : "**stops scaling at " + stop
                        + " instances** (the next count adds less than " + Math.round(SCALING_GAIN * 100)
                        + "% per doubling)").append(String.format(Locale.ROOT, "; %.1fx one instance at %d",
                        r.speedup(ring, ratio, c.instances().get(c.instances().size() - 1)),
                        c.instances().get(c.instances().size() - 1)).replace("NaNx", "no settled peak")).append('\n');
            }
        }
        String goal = goal(r);
        if (!goal.isEmpty()) out.append("\n## Goal\n\n```").append(goal).append("```\n");
        int largest = c.instances().get(c.instances().size() - 1);
        out.append("\nLight load: " + c.clientsPerInstance().get(0) + " client(s) per instance. One round trip plus "
                + "the execution, t_g + n (d + w) with the slot wait w at the light point's utilisation, is "
                + String.format(Locale.ROOT, "%.1f ms at %d instances and %.0f%% local (`%s`).%n",
                roundTripAndExecution(r, c.localRatios().get(0), largest), largest, c.localRatios().get(0) * 100,
                c.rings().get(c.rings().size() - 1).name()));
        out.append("\n## Plots\n\n");
        for (String p : plots) out.append("- ").append(p).append('\n');
        out.append("\nEvery point, settled or not, is in results.csv.\n");
        return out.toString();
    }
}
