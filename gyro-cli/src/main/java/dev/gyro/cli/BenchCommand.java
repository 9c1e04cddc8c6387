package dev.gyro.cli;

import dev.gyro.bench.Measured;
import dev.gyro.bench.ScaleSimScenario;
import dev.gyro.bench.Scenario;
import dev.gyro.bench.ScenarioAnalysis;
import dev.gyro.bench.ScenarioOutput;
import dev.gyro.bench.ScenarioRunner;
import dev.gyro.bench.Scenarios;
import dev.gyro.bench.WorkloadRunner;
import dev.gyro.cluster.Backend;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;

@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Reproduce one of the paper's experiments side by side: Gyro against its baselines in one run, "
                + "each point on a freshly deployed system and followed by replica convergence and the application's "
                + "audit. Writes DIR/results.json, PNG plots and DIR/summary.md. Scenarios: local-ratio "
                + "(micro-benchmark, Figures 3 and 4), scale-lan (TPC-W and RUBiS vs 2PC and ShardingSphere, "
                + "Figure 5), wan-latency (Table III), wan-scale (Figure 6), tpcc (TPC-C vs 2PC), scale-sim (the ring "
                + "at 1 to 128 instances in the performance simulator: results.csv, summary.md, plots), attach (CMU "
                + "BenchBase, unmodified, with Gyro attached at 1-8 instances against one database, and the agent's own "
                + "cost: README.md, results.json, a plot), faults (leader kills, leader freezes and database-server kills "
                + "injected into replicated groups of separate processes under load: client-seen unavailability, then "
                + "every acknowledged request checked on every replica: summary.md, results.csv, a plot), grow (TPC-W on 3 "
                + "instances under load, a fourth joins and takes its share of buckets: throughput before, during and "
                + "after, each bucket's cutover: summary.md, results.csv, a plot). The last line "
                + "starts with 'bench: OK' or 'bench: FAILED'.")
final class BenchCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "SCENARIO", description = "local-ratio, scale-lan, wan-latency, wan-scale, "
            + "tpcc, scale-sim, replicas (one replica per instance against groups of three: latency, throughput, failover), faults (faults injected into groups of processes), grow (an instance added under load), attach (BenchBase with Gyro attached), or app (an application's own workload: --app NAME [--app-jar PATH])")
    String scenario;

    @Option(names = "--app", paramLabel = "NAME", description = "the application of the 'app' scenario")
    String app;

    @picocli.CommandLine.Mixin
    Apps apps = new Apps();

    @Option(names = "--quick", description = "a reduced run that finishes in under 3 minutes on 2 cores "
            + "(fewer settings and loads, short points)")
    boolean quick;

    @Option(names = "--out", paramLabel = "DIR", description = "where results go: a new or empty folder, or one an earlier run made (default: a new folder"
            + " bench-runs/SCENARIO-DATE-TIME, so a run never overwrites the committed bench-results)")
    Path out;

    @Option(names = "--backend", paramLabel = "DB", description = "sqlite, postgres or mariadb for every instance "
            + "(default: sqlite for local-ratio and faults; postgres for the others, since 2pc and the peer refuse SQLite and "
            + "the WAN's centralized-jdbc needs row locks)")
    String backend;

    @Option(names = "--plain", description = "no capacity emulation: all instances share this machine's cores "
            + "(default: each database instance emulates a small server; the mode is in every result)")
    boolean plain;

    @Option(names = "--think-ms", paramLabel = "MS", description = "the emulated users' mean think time "
            + "(TPC-W, RUBiS, TPC-C; closed loop)")
    Long thinkMs;

    @Option(names = "--rates", paramLabel = "R1,R2,..", split = ",", description = "open loop instead of the client "
            + "sweep: arrivals per second across all sessions, one point per rate; latency from each arrival's "
            + "intended time")
    List<Double> rates;

    @Option(names = "--sessions", paramLabel = "N", description = "open loop: the sessions that serve arrivals (default 64)")
    int sessions = 64;

    @Option(names = "--arrivals", paramLabel = "KIND", description = "open loop: fixed or poisson (default)")
    String arrivals = "poisson";

    @Option(names = "--seed", paramLabel = "N", description = "scale-sim: the seed of every simulated point "
            + "(default 42); the same seed gives the same figures")
    Long seed;

    @Option(names = "--apply-ms", paramLabel = "MS", description = "scale-sim: the cost of applying one state update "
            + "at an instance (default 0.5)")
    Double applyMs;

    @Option(names = "--hop-ms", paramLabel = "MS", description = "scale-sim: the network latency of one hop between "
            + "instances (default 0.2, a LAN)")
    Double hopMs;

    @Option(names = "--instances", paramLabel = "N1,N2,..", split = ",", description = "only the points at these "
            + "instance counts (or sites) of the scenario, e.g. --instances 8 for the last point of tpcc")
    List<Integer> instances;

    @Option(names = "--systems", paramLabel = "S1,S2,..", split = ",", description = "only these of the scenario's "
            + "systems, e.g. --systems gyro,2pc")
    List<String> systems;

    @Option(names = "--clients", paramLabel = "C1,C2,..", split = ",", description = "closed loop: these client "
            + "counts instead of the scenario's sweep, e.g. --clients 32")
    List<Integer> clients;

    @Option(names = "--benchbase", paramLabel = "DIR", description = "attach: CMU BenchBase's source (default: the"
            + " build's setting gyro.benchbase; docs/testing.md, \"CMU BenchBase\"), built once, never changed")
    Path benchbase;

    @Option(names = "--benchmarks", paramLabel = "B1,B2,..", split = ",", description = "attach: only these of"
            + " BenchBase's tatp, voter and tpcc (default: all three; --quick: tatp and voter)")
    List<String> benchmarks;

    @Option(names = "--replicas", defaultValue = "1", description = "scale-lan: also measure Gyro with every instance a"
            + " replicated group of this many replicas (system gyro-rR); 1, the default, measures only the single instances")
    int replicas;

    @Option(names = "--kills", paramLabel = "N", description = "faults: leader kills (SIGKILL) to inject (default 20;"
            + " --quick: 1); replicas: leader kills timed (default 20; --quick: 5)")
    Integer kills;

    @Option(names = "--freezes", paramLabel = "N", description = "faults: leader freezes (SIGSTOP, then SIGCONT) to"
            + " inject (default 3; --quick: 1)")
    Integer freezes;

    @Option(names = "--freeze-seconds", paramLabel = "S", description = "faults: how long a frozen leader stays stopped"
            + " (default 60; --quick: 3)")
    Integer freezeSeconds;

    @Option(names = "--db-kills", paramLabel = "N", description = "faults, with --backend postgres: kills of a leader's"
            + " PostgreSQL server, started again after 5 s (default 4 on postgres; --quick: 1)")
    Integer dbKills;

    @Override
    public Integer call() throws Exception {
        if ((freezes != null || freezeSeconds != null || dbKills != null) && !scenario.equals(FaultsBenchmark.NAME)
                || kills != null && !scenario.equals(FaultsBenchmark.NAME) && !scenario.equals(ReplicasBenchmark.NAME)) {
            System.out.println("bench: FAILED: --freezes, --freeze-seconds and --db-kills go with the faults scenario,"
                    + " --kills with faults and replicas");
            return 2;
        }
        if (scenario.equals(FaultsBenchmark.NAME)) return faults();
        if ((instances != null || systems != null || clients != null)
                && (scenario.equals(ScaleSimScenario.NAME) || scenario.equals(ReplicasBenchmark.NAME)
                || scenario.equals(GrowBenchmark.NAME))) {
            System.out.println("bench: FAILED: --instances, --systems and --clients go with the scenarios that run"
                    + " real instances; " + scenario + " has its own settings");
            return 2;
        }
        if ((benchbase != null || benchmarks != null) && !scenario.equals(AttachBenchmark.NAME)) {
            System.out.println("bench: FAILED: --benchbase and --benchmarks go with the attach scenario");
            return 2;
        }
        if (scenario.equals(AttachBenchmark.NAME)) {
            if (systems != null || clients != null || backend != null || plain || thinkMs != null
                    || rates != null || app != null || seed != null || applyMs != null || hopMs != null || replicas != 1) {
                System.out.println("bench: FAILED: attach runs BenchBase's own driver with its own settings: it takes"
                        + " --quick, --benchmarks, --instances, --benchbase and --out");
                return 2;
            }
            AttachBenchmark.Settings form = quick ? AttachBenchmark.Settings.quick() : AttachBenchmark.Settings.full();
            try {
                form.only(benchmarks, instances);
            } catch (IllegalArgumentException e) {
                System.out.println("bench: FAILED: " + e.getMessage());
                return 2;
            }
            Path dir = claimOut();
            if (dir == null) return 2;
            String command = "./gyro bench attach" + (quick ? " --quick" : "")
                    + (benchmarks != null ? " --benchmarks " + String.join(",", benchmarks) : "")
                    + (instances != null ? " --instances " + String.join(",", instances.stream().map(String::valueOf)
                    .toList()) : "")
                    + (benchbase != null ? " --benchbase " + benchbase : "") + (out != null ? " --out " + out : "");
            return new AttachBenchmark(quick, benchmarks, instances, benchbase != null ? benchbase : BuildSettings.benchbase(),
                    OwnedFolder.fresh(dir, "--out"), System.out, command).run();
        }
        if (scenario.equals(ScaleSimScenario.NAME)) return scaleSim();
        if (scenario.equals(ReplicasBenchmark.NAME)) {
            if (kills != null && kills < 1) {
                System.out.println("bench: FAILED: --kills must be 1 or more, not " + kills);
                return 2;
            }
            Backend db;
            try {
                db = backend == null ? null : Backend.parse(backend);
            } catch (IllegalArgumentException e) {
                System.out.println("bench: FAILED: " + e.getMessage());
                return 2;
            }
            Path dir = claimOut();
            return dir == null ? 2 : new ReplicasBenchmark(quick, db, kills, OwnedFolder.fresh(dir, "--out"), System.out)
                    .run();
        }
        if (scenario.equals(GrowBenchmark.NAME)) {
            Path dir = claimOut();
            return dir == null ? 2 : new GrowBenchmark(quick, OwnedFolder.fresh(dir, "--out"), System.out).run();
        }
        if (seed != null || applyMs != null || hopMs != null) {
            System.out.println("bench: FAILED: --seed, --apply-ms and --hop-ms go with scale-sim; the other scenarios "
                    + "run with their own seed on real instances");
            return 2;
        }
        Scenario s;
        try {
            Backend db = backend == null ? null : Backend.parse(backend);
            if (clients != null && rates != null) throw new IllegalArgumentException("--clients (closed loop) and "
                    + "--rates (open loop) do not go together");
            if (clients != null) for (int c : clients)
                if (c < 1) throw new IllegalArgumentException("--clients counts are at least 1, was " + c);
            Scenario.Load load = clients != null ? Scenario.Load.closed(clients)
                    : rates == null || rates.isEmpty() ? null
                    : Scenario.Load.open(rates, sessions, WorkloadRunner.Arrivals.parse(arrivals));
            if (replicas != 1 && !scenario.equals(Scenarios.SCALE_LAN))
                throw new IllegalArgumentException("--replicas goes with scale-lan");
            if (replicas < 1 || replicas > 9) throw new IllegalArgumentException("--replicas is 1 to 9");
            Scenarios.Options options = new Scenarios.Options(quick, db, plain, thinkMs, load, replicas);
            if (scenario.equals(Scenarios.APP)) {
                if (app == null) throw new IllegalArgumentException("the app scenario needs --app NAME (and --app-jar"
                        + " PATH for an application of your own)");
                s = Scenarios.define(Scenarios.application(apps.byName(app), options), options);
            } else {
                if (app != null || !apps.jars.isEmpty())
                    throw new IllegalArgumentException("--app and --app-jar go with the app scenario; " + scenario
                            + " runs its own applications");
                s = Scenarios.define(scenario, options);
            }
            if (instances != null || systems != null) s = s.part(instances, systems);
        } catch (IllegalArgumentException e) {
            System.out.println("bench: FAILED: " + e.getMessage());
            return 2;
        }
        Path dir = claimOut();
        if (dir == null) return 2;
        String command = "./gyro bench " + scenario + (app != null ? " --app " + app : "")
                + String.join("", apps.jars.stream().map(j -> " --app-jar " + j).toList()) + (quick ? " --quick" : "") + (plain ? " --plain" : "")
                + (instances != null ? " --instances " + String.join(",", instances.stream().map(String::valueOf).toList()) : "")
                + (systems != null ? " --systems " + String.join(",", systems) : "")
                + (clients != null ? " --clients " + String.join(",", clients.stream().map(String::valueOf).toList()) : "")
                + (backend != null ? " --backend " + backend : "") + (replicas > 1 ? " --replicas " + replicas : "") + (thinkMs != null ? " --think-ms " + thinkMs : "")
                + (rates != null && !rates.isEmpty() ? " --rates " + String.join(",", rates.stream()
                .map(r -> String.format(Locale.ROOT, "%.0f", r)).toList()) + " --sessions " + sessions + " --arrivals "
                + arrivals : "") + (out != null ? " --out " + out : "");
        Set<String> dbs = new LinkedHashSet<>();
        s.settings().forEach(st -> dbs.add(st.backend().label()));
        System.out.printf(Locale.ROOT, "Gyro bench %s: %d points (%d settings x systems %s x %s), %s s + %s s warm-up "
                        + "each, on %s%n", s.name(), s.points(), s.settings().size(), s.allSystems(), s.load().describe(),
                s.duration().toSeconds(), s.warmup().toSeconds(), String.join(", ", dbs));
        System.out.println("mode: " + ScenarioOutput.modes(s));
        long started = System.nanoTime();
        Path work = OwnedFolder.fresh(dir.resolve(".work"), "--out");
        ProgressBar[] bar = new ProgressBar[1];
        List<Measured> points;
        try {
            points = ScenarioRunner.run(s, work, new ScenarioRunner.Listener() {
                String label;

                public void point(int i, int n, String what) {
                    label = what;
                    double elapsed = (System.nanoTime() - started) / 1e9;
                    bar[0] = new ProgressBar(System.out, String.format(Locale.ROOT, "[%2d/%d %4.0fs]", i, n, elapsed));
                }

                public void warmingUp(String what) {
                    label = what;
                    bar[0] = new ProgressBar(System.out, "[warm-up]");
                }

                public void warmedUp(Measured m) {
                    bar[0].done(label + "  " + (m.ran() ? String.format(Locale.ROOT, "%7.0f /s", m.throughput())
                            : "not run") + "  (the JIT compiler's warm-up: not a point, not kept)");
                }

                public void running(double elapsed, double total, long completed) {
                    bar[0].update(Math.min(0.99, elapsed / total), label); // 100% is for measured()
                }

                public void measured(Measured m) {
                    bar[0].done(!m.ran() ? label + "  not run: " + m.notRun()
                            : String.format(Locale.ROOT, "%s  %7.0f /s  mean %7.2f ms  p99 %7.2f ms%s%s%s", label,
                            m.throughput(), m.all().meanMs(), m.all().p99Ms(),
                            m.serversBusy() == null ? "" : "  servers " + ScenarioOutput.busy(m) + " busy"
                                    + (m.slotMsPerRequest() == null ? "" : ", " + ScenarioOutput.slotMs(m) + " ms a request"),
                            m.machineBusy() == null ? "" : "  machine CPU " + ScenarioOutput.machine(m)
                                    + (m.machineSaturated() ? " (saturated: the machine limited this point)" : ""),
                            (m.valid() ? "" : "  INVALID: " + String.join("; ", m.problems()))
                            + (m.partial() ? "  (partial: " + m.unsupported() + " calls unsupported)" : "")));
                }
            });
        } catch (IllegalArgumentException e) {
            System.out.println("bench: FAILED: " + e.getMessage());
            return 2;
        }
        double wall = (System.nanoTime() - started) / 1e9;
        OwnedFolder.delete(work);
        ScenarioOutput.write(dir, new ScenarioOutput.Run(s, command, wall), points);
        System.out.println();
        ScenarioAnalysis analysis = new ScenarioAnalysis(s, points);
        System.out.print(peakLines(s, analysis));
        for (Measured m : analysis.ran())
            if (m.phases() != null && m.phases().globals() > 0)
                System.out.printf("%nwhere a global request's time goes: %s%n%s", ScenarioOutput.pointLabel(m, analysis),
                        m.phases().table());
        System.out.printf(Locale.ROOT, "%nwrote %s, %s, %s (%.0f s)%n", dir.resolve("results.json"),
                dir.resolve("summary.md"), dir.resolve("*.png"), wall);
        List<String> invalid = new ArrayList<>();
        Set<String> notRun = new LinkedHashSet<>();
        int ran = 0;
        for (Measured m : points) {
            if (!m.ran()) notRun.add(m.system() + ": " + m.notRun());
            else {
                ran++;
                if (!m.valid()) invalid.add(m.system() + " " + m.parameters() + ": " + String.join("; ", m.problems()));
            }
        }
        String skipped = notRun.isEmpty() ? "" : "; " + (points.size() - ran) + " point(s) not run: "
                + String.join(" | ", notRun);
        if (ran == 0) {
            System.out.println("bench: FAILED: no point could run" + skipped);
            return 1;
        }
        if (invalid.isEmpty()) {
            System.out.printf("bench: OK (%s, %d points run, every one's replicas equal and audit holds%s)%n",
                    s.name(), ran, skipped);
            return 0;
        }
        System.out.println("bench: FAILED: " + invalid.size() + " invalid point(s): " + String.join(" | ", invalid)
                + skipped);
        return 1;
    }

    /** {@code faults}: replicated groups of processes with faults injected under load (FaultsBenchmark). */
    private int faults() throws Exception {
        if (instances != null || systems != null || clients != null || plain || thinkMs != null
                || (rates != null && !rates.isEmpty()) || app != null || !apps.jars.isEmpty() || seed != null
                || applyMs != null || hopMs != null || replicas != 1 || benchbase != null || benchmarks != null) {
            System.out.println("bench: FAILED: faults runs the online store on groups of three replicas with its own"
                    + " load: it takes --quick, --backend, --kills, --freezes, --freeze-seconds, --db-kills and --out");
            return 2;
        }
        FaultsBenchmark.Settings settings;
        try {
            settings = FaultsBenchmark.Settings.of(quick, backend == null ? Backend.SQLITE : Backend.parse(backend),
                    kills, freezes, freezeSeconds, dbKills);
        } catch (IllegalArgumentException e) {
            System.out.println("bench: FAILED: " + e.getMessage());
            return 2;
        }
        Path dir = claimOut();
        if (dir == null) return 2;
        String command = "./gyro bench faults" + (quick ? " --quick" : "") + (backend != null ? " --backend " + backend
                : "") + (kills != null ? " --kills " + kills : "") + (freezes != null ? " --freezes " + freezes : "")
                + (freezeSeconds != null ? " --freeze-seconds " + freezeSeconds : "")
                + (dbKills != null ? " --db-kills " + dbKills : "") + (out != null ? " --out " + out : "");
        return new FaultsBenchmark(settings, OwnedFolder.fresh(dir, "--out"), System.out, command).run();
    }

    /**
     * {@code scale-sim}: no databases and no load generator, so its own path (ScaleSimScenario); prints a line per
     * point as it is done, then the peaks, and writes results.csv, summary.md and the plots.
     */
    private int scaleSim() throws Exception {
        List<String> refused = new ArrayList<>();
        if (backend != null) refused.add("--backend");
        if (plain) refused.add("--plain");
        if (thinkMs != null) refused.add("--think-ms");
        if (rates != null && !rates.isEmpty()) refused.add("--rates");
        if (app != null || !apps.jars.isEmpty()) refused.add("--app/--app-jar");
        if (!refused.isEmpty()) {
            System.out.println("bench: FAILED: scale-sim runs in the performance simulator, without databases or a "
                    + "load generator: " + String.join(", ", refused) + " cannot go with it (it takes --quick, --seed, "
                    + "--apply-ms, --hop-ms, --out)");
            return 2;
        }
        long theSeed = seed == null ? 42 : seed;
        dev.gyro.sim.perf.PerfModel model;
        try {
            model = ScaleSimScenario.model(applyMs == null ? dev.gyro.sim.perf.PerfModel.DEFAULT_APPLY_MS : applyMs,
                    hopMs == null ? dev.gyro.sim.perf.PerfModel.DEFAULT_HOP_MS : hopMs);
        } catch (IllegalArgumentException e) {
            System.out.println("bench: FAILED: " + e.getMessage());
            return 2;
        }
        ScaleSimScenario.Config config = quick ? ScaleSimScenario.quick(theSeed, model)
                : ScaleSimScenario.full(theSeed, model);
        Path dir = claimOut();
        if (dir == null) return 2;
        String command = "./gyro bench " + scenario + (quick ? " --quick" : "") + (seed != null ? " --seed " + seed : "")
                + (applyMs != null ? " --apply-ms " + applyMs : "") + (hopMs != null ? " --hop-ms " + hopMs : "")
                + (out != null ? " --out " + out : "");
        System.out.printf(Locale.ROOT, "Gyro bench %s: %d simulated points (rings %s, instances %s, %s local, "
                        + "%s clients per instance), %d s + %d s warm-up each in simulated time, seed %d%n",
                scenario, config.points(), config.rings().stream().map(ScaleSimScenario.Ring::name).toList(),
                config.instances(), config.localRatios(), config.clientsPerInstance(), config.measureMs() / 1000,
                config.warmupMs() / 1000, theSeed);
        System.out.println("model: " + config.model().describe());
        long started = System.nanoTime();
        ScaleSimScenario.Result result = ScaleSimScenario.run(config, Math.min(2, Runtime.getRuntime()
                .availableProcessors()), (i, n, point, elapsed) -> System.out.printf(Locale.ROOT, "[%3d/%d %4.0fs] %s%n",
                i, n, elapsed, ScaleSimScenario.describe(point)));
        double wall = (System.nanoTime() - started) / 1e9;
        List<String> plots = ScaleSimScenario.write(dir, result, command, wall);
        System.out.print(ScaleSimScenario.table(result));
        System.out.printf(Locale.ROOT, "%nwrote %s, %s and %d plots in %s (%.0f s)%n", dir.resolve("results.csv"),
                dir.resolve("summary.md"), plots.size(), dir, wall);
        System.out.printf("bench: OK (%s, %d points simulated)%n", scenario, result.points().size());
        return 0;
    }

    /**
     * The run's folder: {@code --out}, or a new {@code bench-runs/SCENARIO-DATE-TIME}, claimed for Gyro
     * (docs/decisions/19-owned-folders.md); null, having said why, when it cannot be.
     */
    private Path claimOut() throws java.io.IOException {
        Path dir = out != null ? out : Path.of("bench-runs", scenario + "-" + java.time.LocalDateTime.now()
                .format(java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)));
        try {
            OwnedFolder.claim(dir, "--out");
            return dir;
        } catch (IllegalArgumentException e) {
            System.out.println("bench: FAILED: " + e.getMessage());
            return null;
        }
    }

    /** Per setting, each system's peak throughput and the first system's ratio against the others. */
    private static String peakLines(Scenario s, ScenarioAnalysis a) {
        List<String> systems = s.allSystems();
        String first = s.systems().get(0);
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "peak throughput (/s, %s)%n  %-16s",
                s.bound().describe(), "setting"));
        for (String sys : systems) out.append(String.format(Locale.ROOT, " %12s", sys));
        for (String sys : systems) if (!sys.equals(first)) out.append(String.format(Locale.ROOT, " %16s", first + "/" + sys));
        out.append('\n');
        for (Scenario.Setting st : s.settings()) {
            out.append(String.format(Locale.ROOT, "  %-16s", st.id()));
            for (String sys : systems) {
                Measured m = a.peak(st.id(), sys);
                out.append(m == null ? String.format("%13s", "-") : String.format(Locale.ROOT, " %12.0f", m.throughput()));
            }
            Measured g = a.peak(st.id(), first);
            for (String sys : systems) {
                if (sys.equals(first)) continue;
                Measured b = a.peakOrReference(st.id(), sys);
                out.append(g == null || b == null || b.throughput() == 0 ? String.format("%17s", "-")
                        : String.format(Locale.ROOT, " %15.2fx", g.throughput() / b.throughput()));
            }
            out.append('\n');
        }
        return out.toString();
    }

}
