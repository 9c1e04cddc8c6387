package dev.gyro.bench;

import dev.gyro.app.Application;
import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.rubis.Rubis;
import dev.gyro.apps.tpcc.Tpcc;
import dev.gyro.apps.tpcw.Tpcw;
import dev.gyro.cluster.Backend;
import dev.gyro.emulation.Capacity;
import dev.gyro.emulation.wan.Wan;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The benchmark scenarios, each a small definition of the paper's Section VII experiments: which
 * settings, which systems, which load, which of the paper's numbers to set beside ours.
 *
 * <h2>Capacity in the TPC-W, RUBiS and TPC-C scenarios</h2>
 * Each database instance emulates a small server of 2 transactions at a time, 20 ms each ({@link #APP_CAPACITY}):
 * 100 transactions/s per instance, 800/s at 8 instances. The micro-benchmark's 5 ms would give 400/s per instance,
 * 3,200/s at 8, more than this 2-core machine runs for real (the demo peaks around 1,800 requests/s of far smaller
 * transactions): the machine's cores, not the emulated servers, would then set the peak at 4 and 8 instances, and
 * the curve would show the machine instead of the systems. {@code --plain} turns emulation off.
 */
public final class Scenarios {

    public static final String SCALE_LAN = "scale-lan", TPCC = "tpcc", WAN_LATENCY = "wan-latency",
            WAN_SCALE = "wan-scale";

    public static final List<String> NAMES = List.of(LocalRatioScenario.NAME, SCALE_LAN, WAN_LATENCY, WAN_SCALE, TPCC,
            ScaleSimScenario.NAME);

    /** Per database instance in the application scenarios; see the class comment. */
    public static final int APP_CONCURRENCY = 2, APP_SERVICE_MS = 20;

    private Scenarios() {}

    /**
     * What the command line may change in a definition.
     *
     * @param quick   the reduced configuration (under 3 minutes on 2 cores)
     * @param backend the database of every instance; null for the scenario's default
     * @param plain   no capacity emulation
     * @param thinkMs the workloads' mean think time (closed loop), null for the definition's (0)
     * @param load    replaces the scenario's load sweep (e.g. an open loop at given rates), or null
     */
    /** @param replicas with 2 or more, scale-lan also measures Gyro on groups of that many replicas ({@code gyro-rR}) */
    public record Options(boolean quick, Backend backend, boolean plain, Long thinkMs, Scenario.Load load, int replicas) {
        public Options(boolean quick, Backend backend, boolean plain, Long thinkMs, Scenario.Load load) {
            this(quick, backend, plain, thinkMs, load, 1);
        }

        public static Options of(boolean quick) {
            return new Options(quick, null, false, null, null);
        }
    }

    /**
     * The scenario called {@code name}.
     *
     * @throws IllegalArgumentException naming the known scenarios, or the option a scenario cannot take
     */
    public static Scenario define(String name, Options o) {
        Scenario s = switch (name) {
            case LocalRatioScenario.NAME -> o.quick() ? LocalRatioScenario.quick(!o.plain(), backend(o, Backend.SQLITE))
                    : LocalRatioScenario.full(!o.plain(), backend(o, Backend.SQLITE));
            case SCALE_LAN -> scaleLan(o);
            case TPCC -> tpcc(o);
            case WAN_LATENCY -> wanLatency(o);
            case WAN_SCALE -> wanScale(o);
            case ScaleSimScenario.NAME -> throw new IllegalArgumentException("scale-sim deploys no databases: it runs "
                    + "in the performance simulator (ScaleSimScenario.run)");
            case APP -> throw new IllegalArgumentException("the app scenario needs an application: "
                    + "Scenarios.application(app, options)");
            default -> throw new IllegalArgumentException("unknown scenario '" + name + "' (known: "
                    + String.join(", ", NAMES) + ", " + APP + ")");
        };
        return define(s, o);
    }

    /** {@code s} with the command line's think time and load, where given. */
    public static Scenario define(Scenario s, Options o) {
        if (o.thinkMs() != null) {
            s = s.mapSettings(st -> {
                Map<String, String> opts = new LinkedHashMap<>(st.options().asMap());
                opts.put("think-ms", Long.toString(o.thinkMs()));
                return st.withOptions(WorkloadOptions.of(opts));
            });
        }
        if (o.load() != null) s = s.withLoad(o.load());
        return s;
    }

    private static Backend backend(Options o, Backend dflt) {
        return o.backend() != null ? o.backend() : dflt;
    }

    /** The capacity of the application scenarios, and its words for results. */
    private static Capacity appCapacity(Options o) {
        return o.plain() ? Capacity.PLAIN : Capacity.of(APP_CONCURRENCY, APP_SERVICE_MS);
    }

    private static Application tpcw(boolean quick) {
        return quick ? new Tpcw(new Tpcw.Size(300, 400)) : new Tpcw();
    }

    private static Application rubis(boolean quick) {
        return quick ? new Rubis(new Rubis.Size(300, 200, 100)) : new Rubis();
    }

    private static Map<String, Object> params(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }

    // ------------------------------------------------------------------------------------------- scale-lan

    /**
     * {@code scale-lan} (Section VII-C, Figure 5): TPC-W (shopping mix) and RUBiS (bidding mix) on 1 to 8 instances
     * on a LAN, Gyro against two-phase commit over the same partitioning and the ShardingSphere-JDBC peer; the
     * centralized database at one instance is each application's reference. Peak throughput under 2000 ms mean
     * latency, and latency at light load.
     */
    /** gyro, then Gyro on replicated groups when asked for ({@code --replicas}), then 2pc and the peer. */
    static List<String> scaleLanSystems(Options o) {
        List<String> systems = new ArrayList<>(List.of("gyro"));
        if (o.replicas() > 1) systems.add(ReplicatedGyroSystem.PREFIX + o.replicas());
        systems.addAll(List.of("2pc", "peer"));
        return systems;
    }

    static Scenario scaleLan(Options o) {
        boolean q = o.quick();
        Backend backend = backend(o, Backend.POSTGRES);
        Capacity capacity = appCapacity(o);
        // quick: 2 instances, not 3: every point starts its own database servers, and a third server per point
        // for gyro, 2pc and the peer costs the quick run about a minute on 2 cores
        List<Integer> instances = q ? List.of(1, 2) : List.of(1, 2, 4, 8);
        List<Scenario.Setting> settings = new ArrayList<>();
        for (String appName : List.of("tpcw", "rubis")) {
            Application app = appName.equals("tpcw") ? tpcw(q) : rubis(q);
            String mix = appName.equals("tpcw") ? "shopping" : "bidding";
            for (int n : instances) {
                // centralized is the 1-instance reference, the only system measured there: Gyro, 2pc and the peer
                // over one database are that same database with a longer path
                List<String> systems = n == 1 ? List.of("centralized") : List.of();
                settings.add(new Scenario.Setting(appName + "-n" + n, appName, params("app", appName, "mix", mix,
                        "instances", n), app, 1, WorkloadOptions.of(Map.of("mix", mix)), n, backend, capacity, null,
                        Wan.OFF, systems));
            }
        }
        List<Scenario.PaperRatio> paper = new ArrayList<>();
        for (String peer : List.of("2pc", "peer")) {
            String vs = peer.equals("2pc") ? "2PC" : "the peer (ShardingSphere XA)";
            paper.add(Scenario.PaperRatio.of("Figure 5a, TPC-W: Gyro's peak throughput / " + vs + "'s, up to",
                    Map.of("app", "tpcw"), "gyro", peer, Scenario.Metric.PEAK_THROUGHPUT, 4.2));
            paper.add(Scenario.PaperRatio.of("Figure 5a, TPC-W: " + vs + "'s mean latency / Gyro's, up to",
                    Map.of("app", "tpcw"), "gyro", peer, Scenario.Metric.LATENCY_AT_SAME_LOAD, 58.6));
            paper.add(Scenario.PaperRatio.of("Figure 5b, RUBiS: Gyro's peak throughput / " + vs + "'s, up to",
                    Map.of("app", "rubis"), "gyro", peer, Scenario.Metric.PEAK_THROUGHPUT, 1.4));
            paper.add(Scenario.PaperRatio.of("Figure 5b, RUBiS: " + vs + "'s mean latency / Gyro's, up to",
                    Map.of("app", "rubis"), "gyro", peer, Scenario.Metric.LATENCY_AT_SAME_LOAD, 35.7));
        }
        List<String> notes = List.of(
                "paper: MySQL Cluster (read committed) as the 2PC baseline (the peer rows set the same figures beside "
                        + "ShardingSphere), EC2 t2.medium servers; Gyro keeps scaling "
                        + "TPC-W up to 13 instances while MySQL Cluster degrades beyond 4; on RUBiS both saturate at "
                        + "12 instances, Gyro higher throughout",
                "this run: every instance on one machine, " + (capacity.emulated() ? "each emulating a small server "
                        + "(see mode)" : "sharing its cores (plain mode)") + "; 2pc and peer run serializable",
                "the centralized database runs only at 1 instance: it is each application's reference, and ratios "
                        + "against it at other instance counts say so (\"vs SETTING\")");
        // full: the emulated servers (100 transactions/s each) saturate between 8 clients (1 instance) and 128 (8)
        Scenario.Load load = Scenario.Load.closed(q ? List.of(2, 16) : List.of(2, 8, 32, 128));
        return new Scenario(SCALE_LAN, "Gyro vs two-phase commit vs ShardingSphere-JDBC, TPC-W and RUBiS, 1 to "
                + instances.get(instances.size() - 1) + " instances on a LAN", "Section VII-C, Figure 5", settings,
                scaleLanSystems(o), load, Duration.ofSeconds(q ? 1 : 3), Duration.ofSeconds(q ? 2 : 15),
                Scenario.Bound.LAN, 42, q, new Scenario.Figure("instances", "database instances", "requests"), paper, notes);
    }

    // ------------------------------------------------------------------------------------------- tpcc

    /** Warehouses per instance in {@code tpcc}: the warehouses grow with the instances, as TPC-C scales. */
    public static final int WAREHOUSES_PER_INSTANCE = 2;

    /**
     * {@code tpcc}: TPC-C's standard mix (1% remote order lines, 15% remote payments), {@value #WAREHOUSES_PER_INSTANCE}
     * warehouses per instance partitioned over N instances; Gyro against two-phase commit over the same
     * partitioning and against one centralized database holding the same warehouses. Not in the paper.
     */
    static Scenario tpcc(Options o) {
        boolean q = o.quick();
        Backend backend = backend(o, Backend.POSTGRES);
        Capacity capacity = appCapacity(o);
        // a reduced catalogue and customer base: the standard 100,000 items per warehouse take minutes to load
        // on every instance for every point; the conflicts that matter (districts, stock of popular items,
        // remote warehouses) do not depend on them
        Tpcc app = new Tpcc(q ? new Tpcc.Size(500, 20) : new Tpcc.Size(5000, 300));
        List<Integer> instances = q ? List.of(3) : List.of(1, 2, 4, 8);
        List<Scenario.Setting> settings = new ArrayList<>();
        for (int n : instances) {
            int warehouses = WAREHOUSES_PER_INSTANCE * n;
            settings.add(new Scenario.Setting("tpcc-n" + n, "tpcc", params("app", "tpcc", "instances", n,
                    "warehouses", warehouses), app, warehouses, WorkloadOptions.NONE, n, backend, capacity, null,
                    Wan.OFF, List.of()));
        }
        Scenario.Load load = Scenario.Load.closed(q ? List.of(2, 16) : List.of(2, 8, 32, 128));
        List<String> notes = List.of(
                "not an experiment of the paper, added as the standard OLTP benchmark: TPC-C, partitioned by warehouse, "
                        + app.size().items() + " items and " + app.size().customersPerDistrict()
                        + " customers per district per warehouse (reduced from 100,000 and 3,000 to load in seconds)",
                "centralized holds the same warehouses as the scaled-out systems at each instance count, on one database");
        return new Scenario(TPCC, "Gyro vs two-phase commit vs one database, TPC-C with warehouses partitioned over "
                + "the instances", "not in the paper", settings, List.of("gyro", "2pc", "centralized"),
                load, Duration.ofSeconds(q ? 1 : 3), Duration.ofSeconds(q ? 2 : 15), Scenario.Bound.LAN, 42, q,
                new Scenario.Figure("instances", "database instances (" + WAREHOUSES_PER_INSTANCE
                        + " warehouses each)", "transactions"), List.of(), notes);
    }

    // ------------------------------------------------------------------------------------------- app

    /** The scenario that runs any application, {@link #application}. */
    public static final String APP = "app";

    /**
     * {@code app}: an application of the user's own (or a built-in one) under its own workload
     * ({@link Application#workload}), Gyro against one database holding everything and, when the application declares
     * its sharding ({@link Application#sharding}), two-phase commit over the same partitioning; on 1, 2 and 4 instances
     * (quick: 2), capacity emulated as in the other application scenarios. Peak throughput under the LAN bound.
     *
     * @throws IllegalArgumentException when the application defines no workload, naming what to implement
     */
    public static Scenario application(Application app, Options o) {
        boolean q = o.quick();
        try {
            app.workload(1, WorkloadOptions.NONE);
        } catch (UnsupportedOperationException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
        boolean sharded;
        try {
            app.sharding();
            sharded = true;
        } catch (UnsupportedOperationException e) {
            sharded = false;
        }
        Backend backend = backend(o, Backend.POSTGRES);
        if (backend == Backend.SQLITE) sharded = false; // two-phase commit needs XA, which SQLite lacks
        Capacity capacity = appCapacity(o);
        List<Integer> instances = q ? List.of(2) : List.of(1, 2, 4);
        List<Scenario.Setting> settings = new ArrayList<>();
        for (int n : instances)
            settings.add(new Scenario.Setting(app.name() + "-n" + n, app.name(), params("app", app.name(), "instances",
                    n), app, 1, WorkloadOptions.NONE, n, backend, capacity, null, Wan.OFF, List.of()));
        List<String> systems = sharded ? List.of("gyro", "2pc", "centralized") : List.of("gyro", "centralized");
        Scenario.Load load = Scenario.Load.closed(q ? List.of(2, 16) : List.of(2, 8, 32, 128));
        List<String> notes = new ArrayList<>(List.of("the application's own workload: "
                + app.workload(1, WorkloadOptions.NONE).describe()));
        if (!sharded) notes.add("no 2pc: " + (backend == Backend.SQLITE ? "SQLite has no two-phase commit"
                : "the application declares no sharding (Application.sharding)"));
        return new Scenario(APP, "Gyro vs one database" + (sharded ? " vs two-phase commit" : "") + ", application "
                + app.name(), "not in the paper", settings, systems, load, Duration.ofSeconds(q ? 1 : 3),
                Duration.ofSeconds(q ? 3 : 15), Scenario.Bound.LAN, 42, q,
                new Scenario.Figure("instances", "database instances", "requests"), List.of(), notes);
    }

    // ------------------------------------------------------------------------------------------- WAN

    /**
     * The WAN scenarios' default backend. PostgreSQL, not SQLite: the paper's centralized baseline
     * ({@code centralized-jdbc}) holds a transaction's locks across the WAN round trips of its statements, and on
     * SQLite, which locks the whole database for a write, one writer in Australia would then stall every other
     * client for seconds; the paper's MySQL, like PostgreSQL, locks rows.
     */
    static final Backend WAN_BACKEND = Backend.POSTGRES;

    /** The two centralized deployments on the WAN: the application next to the database, and at the clients. */
    static final List<String> WAN_CENTRALIZED = List.of("centralized", "centralized-jdbc");

    /**
     * {@code wan-latency} (Section VII-D, Table III): TPC-W and RUBiS at light load (one client per site), Gyro
     * and the read-only baseline with instances at 2, 3 and 5 sites (quick: 5), against one centralized database in
     * Germany; clients at all five sites send to their nearest instance (WAN emulation: {@link Wan}). Table III's
     * ratios are set against {@code centralized-jdbc}, the paper's setting (clients using MySQL directly):
     * {@code centralized} runs beside it as the kinder deployment.
     */
    static Scenario wanLatency(Options o) {
        boolean q = o.quick();
        Backend backend = backend(o, WAN_BACKEND);
        Capacity capacity = appCapacity(o);
        List<Integer> sites = q ? List.of(5) : List.of(2, 3, 5);
        List<Scenario.Setting> settings = new ArrayList<>();
        List<Scenario.PaperRatio> paper = new ArrayList<>();
        Map<String, Map<Integer, Double>> table3 = Map.of( // Table III: centralized / system, by sites
                "tpcw/gyro", Map.of(2, 2.1, 3, 3.2, 5, 47.9), "tpcw/read-only", Map.of(2, 1.5, 3, 2.7, 5, 10.8),
                "rubis/gyro", Map.of(2, 3.3, 3, 2.7, 5, 11.9), "rubis/read-only", Map.of(2, 2.9, 3, 3.2, 5, 4.3));
        for (String appName : List.of("tpcw", "rubis")) {
            Application app = appName.equals("tpcw") ? tpcw(q) : rubis(q);
            String mix = appName.equals("tpcw") ? "shopping" : "bidding";
            WorkloadOptions options = WorkloadOptions.of(Map.of("mix", mix));
            for (int k : sites)
                settings.add(new Scenario.Setting(appName + "-s" + k, appName, params("app", appName, "sites", k), app,
                        1, options, k, backend, capacity, null, Wan.paper(), List.of()));
            for (String sys : List.of("gyro", "read-only"))
                for (int k : sites)
                    paper.add(Scenario.PaperRatio.of("Table III, " + (appName.equals("tpcw") ? "TPC-W" : "RUBiS") + ": "
                            + "centralized's latency / " + sys + "'s, " + k + " sites",
                            Map.of("app", appName, "sites", k), sys, "centralized-jdbc",
                            Scenario.Metric.LIGHT_LOAD_LATENCY, table3.get(appName + "/" + sys).get(k)));
        }
        List<String> notes = List.of("paper: centralized 1390 ms (TPC-W) and 416 ms (RUBiS) mean latency at light "
                + "load; Gyro at 5 sites 29 ms and 35 ms by Table III's ratios (its text says 25 ms and 29 ms)",
                "clients at the five sites, each working on its nearest instance's partitions (homed); the centralized "
                        + "database in Germany gets the same calls at every site count",
                "Table III's centralized is centralized-jdbc here: the application at each client's site, every SQL "
                        + "statement and the commit a WAN round trip to Germany; centralized, the application next to "
                        + "the database (one round trip per request), is measured beside it");
        List<String> systems = new ArrayList<>(List.of("gyro", "read-only"));
        systems.addAll(WAN_CENTRALIZED);
        return new Scenario(WAN_LATENCY, "Latency at light load over WAN sites: centralized vs Gyro vs read-only",
                "Section VII-D, Table III", settings, systems,
                Scenario.Load.closed(List.of(5)),
                Duration.ofSeconds(q ? 2 : 5), Duration.ofSeconds(q ? 5 : 30), Scenario.Bound.WAN, 42, q,
                new Scenario.Figure("sites", "sites with an instance", "requests"), paper, notes);
    }

    /**
     * {@code wan-scale} (Section VII-D, Figure 6): TPC-W and RUBiS, throughput against latency as clients grow until
     * the mean latency reaches 5 s, Gyro and read-only at 2 to 5 sites, centralized in Germany (WAN emulation:
     * {@link Wan}).
     */
    static Scenario wanScale(Options o) {
        boolean q = o.quick();
        Backend backend = backend(o, WAN_BACKEND);
        Capacity capacity = appCapacity(o);
        // quick: the paper's headline, 5 sites; full: Table III's configurations (a fourth site adds 20 minutes)
        List<Integer> sites = q ? List.of(5) : List.of(2, 3, 5);
        List<Scenario.Setting> settings = new ArrayList<>();
        for (String appName : List.of("tpcw", "rubis")) {
            Application app = appName.equals("tpcw") ? tpcw(q) : rubis(q);
            String mix = appName.equals("tpcw") ? "shopping" : "bidding";
            WorkloadOptions options = WorkloadOptions.of(Map.of("mix", mix));
            settings.add(new Scenario.Setting(appName + "-central", appName, params("app", appName, "sites", 1),
                    app, 1, options, 1, backend, capacity, null, Wan.paper(), WAN_CENTRALIZED));
            for (int k : sites)
                settings.add(new Scenario.Setting(appName + "-s" + k, appName, params("app", appName, "sites", k), app,
                        1, options, k, backend, capacity, null, Wan.paper(), List.of()));
        }
        List<Scenario.PaperRatio> paper = new ArrayList<>(List.of(
                Scenario.PaperRatio.of("Figure 6a, TPC-W: Gyro's peak / read-only's at 5 sites (paper: +291%)",
                        Map.of("app", "tpcw", "sites", 5), "gyro", "read-only", Scenario.Metric.PEAK_THROUGHPUT, 3.91),
                Scenario.PaperRatio.of("Figure 6b, RUBiS: Gyro's peak / read-only's at 5 sites (paper: +181%)",
                        Map.of("app", "rubis", "sites", 5), "gyro", "read-only", Scenario.Metric.PEAK_THROUGHPUT, 2.81)));
        for (String central : WAN_CENTRALIZED)
            for (String appName : List.of("tpcw", "rubis"))
                paper.add(Scenario.PaperRatio.of("Figure 6" + (appName.equals("tpcw") ? "a, TPC-W" : "b, RUBiS")
                        + ": Gyro's peak / " + central + "'s (\"up to one order of magnitude\")",
                        Map.of("app", appName), "gyro", central, Scenario.Metric.PEAK_THROUGHPUT, 10));
        List<String> notes = List.of("paper: the read-only baseline maxes out at 3 sites; Gyro scales to 5",
                "centralized-jdbc is the paper's centralized MySQL (the application at each client's site, every "
                        + "statement and the commit a WAN round trip); centralized has the application next to the "
                        + "database");
        return new Scenario(WAN_SCALE, "Throughput vs latency over WAN sites: centralized vs Gyro vs read-only",
                "Section VII-D, Figure 6", settings, List.of("gyro", "read-only"),
                Scenario.Load.closed(q ? List.of(5, 40) : List.of(5, 20, 40, 80, 160, 320)),
                // quick: 1 s of warm-up, so that 16 points on 6 PostgreSQL servers stay well under 3 minutes
                Duration.ofSeconds(q ? 1 : 5), Duration.ofSeconds(q ? 5 : 15), Scenario.Bound.WAN, 42, q,
                new Scenario.Figure("sites", "sites with an instance", "requests"), paper, notes);
    }
}
