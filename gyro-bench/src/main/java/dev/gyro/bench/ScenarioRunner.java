package dev.gyro.bench;

import dev.gyro.app.Workload;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Runs a {@link Scenario}: for each setting, each load level, each system, deploys the system fresh
 * ({@link SystemUnderTest#deploy}: new databases, loaded; on PostgreSQL and MariaDB they live on servers kept for the
 * whole run, see {@link ServerPool}), drives the load, then lets it settle and checks it (replica convergence and the
 * application's audit); a point that fails a check is kept, marked invalid. Systems of one setting and load run one
 * after the other, so that they meet the machine in the same state as nearly as possible.
 *
 * <p>A point that cannot run does not end the scenario: a system that is not on the class path, refuses the
 * backend or the WAN, or cannot be deployed, gives a point that says why
 * ({@link Measured#notRun}). After a system's mean latency exceeded the bound at one load, its heavier loads of the
 * same setting are skipped (peak throughput is below the bound by definition), and said so.
 */
public final class ScenarioRunner {

    private static final Logger log = LoggerFactory.getLogger(ScenarioRunner.class);

    /** Told about each point as it starts, while it runs, and when it is done. */
    public interface Listener {
        default void point(int index, int of, String label) {}
        default void running(double elapsed, double total, long completed) {}
        default void measured(Measured m) {}
        /** A warm-up run of {@code label} starts ({@link #running} follows); it is not a point. */
        default void warmingUp(String label) {}
        /** The warm-up run is over; {@code m} is what it did, kept nowhere. */
        default void warmedUp(Measured m) {}
    }

    private ScenarioRunner() {}

    /**
     * Runs every point, each under its own directory of {@code work} (removed after the point).
     *
     * @return every point, in the order run, those not run included
     * @throws IllegalArgumentException when a setting's workload options are wrong (before anything runs)
     */
    public static List<Measured> run(Scenario scenario, Path work, Listener listener) throws Exception {
        return run(scenario, work, listener, Systems::byName, true);
    }

    /**
     * As {@link #run(Scenario, Path, Listener)}, finding systems with {@code systems} (which throws
     * IllegalArgumentException, with the known names, for a system it does not have); with {@code warmUp}, each
     * system of the first setting first runs once at its heaviest load, unmeasured ({@link #warmUp}).
     */
    public static List<Measured> run(Scenario scenario, Path work, Listener listener,
                                     Function<String, SystemUnderTest> systems, boolean warmUp) throws Exception {
        // Every setting's workload first: a misspelt option fails now, not after an hour of other points.
        Map<String, Workload> workloads = new HashMap<>();
        for (Scenario.Setting s : scenario.settings()) {
            Workload w = s.app().workload(s.scale(), s.options());
            // On the WAN, clients work on their nearest instance's partitions, as the paper's do (HomedWorkload);
            // every system of the setting gets the same calls.
            workloads.put(s.id(), s.wan().emulated() ? HomedWorkload.of(w, s.instances()) : w);
        }
        // The database servers live through the run; each point gets fresh databases on them (ServerPool says why)
        // Their data goes where the servers' system user can reach (ThrowawayServers.base()), not under the caller's
        // --out, which may be a private folder (mktemp -d) that user cannot enter.
        try (ServerPool servers = new ServerPool(dev.gyro.servers.ThrowawayServers.base()
                .resolve("bench-" + ProcessHandle.current().pid() + "-" + System.nanoTime()))) {
            if (warmUp) warmUp(scenario, work, listener, systems, workloads, servers);
            return run(scenario, work, listener, systems, workloads, servers);
        }
    }

    /**
     * Before any point is measured, each system of the first setting runs once at the heaviest load, deployed, driven
     * and checked as a point is, and its figures are dropped: the JIT compiler's warm-up. Without it the compiler
     * threads took 3 to 5 s of CPU in each 10 s of the first points' windows on 2 cores (decisions, "Benchmark
     * method"), and the system measured first at a setting, Gyro, paid for compiling the code every system shares
     * (the JDBC driver, the workload, the application).
     */
    private static void warmUp(Scenario scenario, Path work, Listener listener, Function<String, SystemUnderTest> systems,
                               Map<String, Workload> workloads, ServerPool servers) throws Exception {
        Scenario.Setting first = scenario.settings().get(0);
        int level = scenario.load().levels() - 1;
        for (String system : scenario.systemsAt(first)) {
            listener.warmingUp(String.format(Locale.ROOT, "%-11s %-14s %s", system, first.id(),
                    scenario.load().describe(level)));
            Path dir = work.resolve("warm-up").resolve(system);
            deleteTree(dir);
            Measured m = measure(scenario, first, system, systems, workloads.get(first.id()), level, dir, servers,
                    parameters(first, system, scenario.load(), level), listener);
            servers.dropDatabases();
            deleteTree(dir);
            listener.warmedUp(m);
        }
    }

    private static List<Measured> run(Scenario scenario, Path work, Listener listener,
                                      Function<String, SystemUnderTest> systems, Map<String, Workload> workloads,
                                      ServerPool servers) throws Exception {
        Map<String, String> cannotRun = new HashMap<>(); // setting/system -> why
        List<Measured> points = new ArrayList<>();
        Scenario.Load load = scenario.load();
        int index = 0;
        for (Scenario.Setting setting : scenario.settings()) {
            for (int level = 0; level < load.levels(); level++) {
                for (String system : scenario.systemsAt(setting)) {
                    String key = setting.id() + "/" + system;
                    Map<String, Object> params = parameters(setting, system, load, level);
                    String label = String.format(Locale.ROOT, "%-11s %-14s %s", system, setting.id(), load.describe(level));
                    listener.point(++index, scenario.points(), label);
                    Measured m;
                    String why = cannotRun.get(key);
                    if (why != null) {
                        m = Measured.notRun(system, scenario.name(), setting.id(), params, setting.mode(), why);
                    } else {
                        Path dir = work.resolve(setting.id()).resolve(system + "-" + level);
                        deleteTree(dir);
                        m = measure(scenario, setting, system, systems, workloads.get(setting.id()), level, dir,
                                servers, params, listener);
                        servers.dropDatabases();
                        deleteTree(dir);
                        if (!m.ran()) cannotRun.put(key, m.notRun()); // the same refusal at every load: ask once
                        else if (m.all().meanMs() > scenario.bound().meanMs())
                            cannotRun.put(key, String.format(Locale.ROOT, "skipped: mean latency %.0f ms at %s was "
                                    + "already above the %.0f ms bound", m.all().meanMs(), load.describe(level),
                                    scenario.bound().meanMs()));
                    }
                    points.add(m);
                    listener.measured(m);
                }
            }
        }
        return points;
    }

    /** The point's parameters: the setting's, the instances this system uses, and the load level's. */
    static Map<String, Object> parameters(Scenario.Setting setting, String system, Scenario.Load load, int level) {
        Map<String, Object> p = new LinkedHashMap<>(setting.parameters());
        // a centralized system runs on one database whatever the setting gives the scaled-out ones
        p.put("instances", system.equals("centralized") ? 1 : setting.instances());
        p.putAll(load.parameters(level));
        return p;
    }

    private static Measured measure(Scenario scenario, Scenario.Setting setting, String name,
                                    Function<String, SystemUnderTest> systems, Workload workload, int level, Path dir,
                                    ServerPool servers, Map<String, Object> params, Listener listener) {
        String mode = setting.mode();
        SystemUnderTest system;
        try {
            system = systems.apply(name);
        } catch (IllegalArgumentException e) {
            return Measured.notRun(name, scenario.name(), setting.id(), params, mode, oneLine(e));
        }
        SystemUnderTest.Deployment d;
        long t0 = System.nanoTime();
        try {
            d = system.deploy(new SystemUnderTest.Setup(setting.app(), dir, setting.instances(), setting.scale(),
                    scenario.seed(), setting.capacity(), setting.backend(), setting.wan(), servers));
        } catch (Exception | LinkageError e) {
            log.debug("{} not deployed at {}", name, setting.id(), e);
            return Measured.notRun(name, scenario.name(), setting.id(), params, mode, oneLine(e));
        }
        log.debug("{} deployed at {} in {} ms", name, setting.id(), (System.nanoTime() - t0) / 1_000_000);
        try (d) {
            WorkloadRunner.Result r;
            // The window's bounds on this JVM's clock, where the instances stamp their requests' arrivals: the
            // runner's own clock starts a few microseconds later, and a call arrives a hop after it is sent.
            long window = System.nanoTime() + scenario.warmup().toNanos();
            ServersBusy busy = ServersBusy.over(d.servers(), window, scenario.duration().toNanos());
            try {
                r = WorkloadRunner.run(workload, d.target(), new WorkloadRunner.Settings(
                        scenario.load().sessions(level), scenario.duration(), scenario.seed(), scenario.warmup(),
                        scenario.load().openLoop(level), null), listener::running);
            } catch (RuntimeException e) {
                log.warn("{} at {} ({}) failed while running", name, setting.id(), scenario.load().describe(level), e);
                return Measured.failed(name, scenario.name(), setting.id(), params, mode, "the run failed: " + oneLine(e));
            }
            List<String> problems = new ArrayList<>();
            if (r.failed() > 0) problems.add(r.failed() + " requests failed (first: " + r.failures().get(0) + ")");
            if (r.completed() == 0) problems.add("no request completed");
            if (r.stuckSessions() > 0) {
                // A system stuck, or with calls that outlast the window by 30 s (a baseline retrying lost races), cannot
                // be settled and checked now: checking it would wait for what may never come.
                problems.add(r.stuckSessions() + " client session(s) still waiting for a reply 30 s after the end: "
                        + "the system is stuck or its calls outlast the window by over 30 s (not checked)");
                return gauged(Measured.of(name, scenario.name(), setting.id(), params, mode, r, problems), d, window,
                        scenario, busy);
            }
            // Correctness goes with speed: a point whose replicas or audit fail is not a result.
            long t1 = System.nanoTime();
            try {
                problems.addAll(d.settleAndCheck());
                log.debug("{} settled and checked in {} ms", name, (System.nanoTime() - t1) / 1_000_000);
            } catch (Exception e) {
                problems.add("the checks could not run: " + oneLine(e));
            }
            return gauged(Measured.of(name, scenario.name(), setting.id(), params, mode, r, problems), d, window,
                    scenario, busy);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while measuring " + name + " at " + setting.id(), e);
        } catch (Exception e) {
            // closing failed: the machine may not be clean for the next point, so this one is not trusted either
            log.warn("closing {} at {} failed", name, setting.id(), e);
            return Measured.failed(name, scenario.name(), setting.id(), params, mode,
                    "closing the deployment failed: " + oneLine(e));
        }
    }

    /** A measured point with what was read beside it over its window: global phases, servers' and machine's use. */
    private static Measured gauged(Measured m, SystemUnderTest.Deployment d, long window, Scenario scenario,
                                   ServersBusy busy) {
        return m.withPhases(phases(d, window, scenario)).withServersBusy(busy.share(), busy.slots())
                .withMachineBusy(busy.machineShare());
    }

    /** The deployment's global phases over the measured window, or null when it has no token. */
    private static PhaseBreakdown phases(SystemUnderTest.Deployment d, long from, Scenario scenario) {
        PhaseBreakdown.Log log = d.phases();
        return log == null ? null : log.window(from, from + scenario.duration().toNanos());
    }

    /** An exception as one line: its message, or its type when it has none. */
    static String oneLine(Throwable e) {
        String m = e.getMessage();
        if (m == null || m.isBlank()) m = e.getClass().getSimpleName();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    static void deleteTree(Path dir) throws java.io.IOException {
        if (!Files.exists(dir)) return;
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }
}
