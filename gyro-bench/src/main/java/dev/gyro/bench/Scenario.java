package dev.gyro.bench;

import dev.gyro.app.Application;
import dev.gyro.app.WorkloadOptions;
import dev.gyro.cluster.Backend;
import dev.gyro.emulation.Capacity;
import dev.gyro.emulation.wan.Wan;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One experiment of the paper's Section VII as data: the settings to measure, the systems, the
 * load sweep, how long each point runs, the latency bound of "peak throughput", the figure it reproduces and the
 * paper's numbers to set beside ours. {@link ScenarioRunner} runs it, {@link ScenarioOutput} writes it;
 * {@link Scenarios} holds the definitions.
 *
 * <p>A point is one system at one setting and one load level; each point deploys its system fresh. Points of one
 * setting and one load level compare side by side.
 *
 * @param name      the command's argument, e.g. {@code scale-lan}
 * @param title     one line for the summary
 * @param paperRef  which figure or table of the paper, e.g. "Section VII-C, Figure 5"
 * @param settings  parameter sets (application, workload options, instances, backend, capacity, WAN)
 * @param systems   the systems measured at every setting that does not name its own; the first is the one whose
 *                  ratios against the others the summary leads with
 * @param load      the client-count sweep, or the open-loop rates
 * @param quick     whether this is the reduced configuration ({@code --quick})
 * @param figure    the shape of the scenario's own figure
 * @param paper     the paper's figures, each computed from this run's points for the summary
 * @param notes     anything the summary must say about how this run differs from the paper's
 */
public record Scenario(String name, String title, String paperRef, List<Setting> settings, List<String> systems,
                       Load load, Duration warmup, Duration duration, Bound bound, long seed, boolean quick,
                       Figure figure, List<PaperRatio> paper, List<String> notes) {

    public Scenario {
        settings = List.copyOf(settings);
        systems = List.copyOf(systems);
        paper = List.copyOf(paper);
        notes = List.copyOf(notes);
        if (settings.isEmpty()) throw new IllegalArgumentException("scenario " + name + " has no settings");
        if (systems.isEmpty()) throw new IllegalArgumentException("scenario " + name + " has no systems");
        List<String> ids = new ArrayList<>();
        for (Setting s : settings) {
            if (ids.contains(s.id())) throw new IllegalArgumentException("scenario " + name + " has setting " + s.id() + " twice");
            ids.add(s.id());
        }
        if (warmup.isNegative()) throw new IllegalArgumentException("warm-up must not be negative");
        if (duration.isNegative() || duration.isZero()) throw new IllegalArgumentException("duration must be positive");
    }

    /** The systems measured at one setting. */
    public List<String> systemsAt(Setting s) {
        return s.systems().isEmpty() ? systems : s.systems();
    }

    /** Every system measured at some setting, in order of first appearance (the scenario's own first). */
    public List<String> allSystems() {
        List<String> out = new ArrayList<>(systems);
        for (Setting s : settings) for (String sys : s.systems()) if (!out.contains(sys)) out.add(sys);
        return out;
    }

    public int points() {
        int n = 0;
        for (Setting s : settings) n += systemsAt(s).size();
        return n * load.levels();
    }

    public Setting setting(String id) {
        for (Setting s : settings) if (s.id().equals(id)) return s;
        throw new IllegalArgumentException("no setting " + id + " in scenario " + name);
    }

    /** The same scenario with every setting changed by {@code f} (a backend, a capacity, workload options). */
    public Scenario mapSettings(java.util.function.UnaryOperator<Setting> f) {
        return new Scenario(name, title, paperRef, settings.stream().map(f).toList(), systems, load, warmup, duration,
                bound, seed, quick, figure, paper, notes);
    }

    /**
     * Part of this scenario: its settings at {@code instances} (all when null), measuring only {@code only} of its
     * systems (all when null), to rerun one point or one comparison without the whole sweep.
     *
     * @throws IllegalArgumentException naming what the scenario has, when a system is not one of its own or nothing
     *                                  would be left to run
     */
    public Scenario part(java.util.Collection<Integer> instances, java.util.Collection<String> only) {
        if (only != null)
            for (String sys : only)
                if (!allSystems().contains(sys))
                    throw new IllegalArgumentException("scenario " + name + " measures no system " + sys + "; it has "
                            + String.join(", ", allSystems()));
        List<String> kept = only == null ? systems : systems.stream().filter(only::contains).toList();
        List<Setting> left = new ArrayList<>();
        for (Setting s : settings) {
            if (instances != null && !instances.contains(s.instances())) continue;
            if (s.systems().isEmpty()) {
                if (!kept.isEmpty()) left.add(s);
            } else {
                List<String> own = only == null ? s.systems() : s.systems().stream().filter(only::contains).toList();
                if (!own.isEmpty()) left.add(s.withSystems(own));
            }
        }
        if (left.isEmpty())
            throw new IllegalArgumentException("scenario " + name + " has no point with " + (instances == null ? ""
                    : "instances " + instances + " ") + (only == null ? "" : "systems " + only + " ") + "(it runs "
                    + String.join(", ", allSystems()) + " at instances " + String.join(", ", settings.stream()
                    .map(s -> Integer.toString(s.instances())).distinct().toList()) + ")");
        // A scenario names at least one system: where only settings' own remain, the first of them stands for it.
        if (kept.isEmpty()) kept = left.get(0).systems();
        return new Scenario(name, title, paperRef, left, kept, load, warmup, duration, bound, seed, quick, figure,
                paper, notes);
    }

    public Scenario withLoad(Load other) {
        return new Scenario(name, title, paperRef, settings, systems, other, warmup, duration, bound, seed, quick,
                figure, paper, notes);
    }

    public Scenario withTimes(Duration otherWarmup, Duration otherDuration) {
        return new Scenario(name, title, paperRef, settings, systems, load, otherWarmup, otherDuration, bound, seed,
                quick, figure, paper, notes);
    }

    /**
     * One parameter set.
     *
     * @param id         unique within the scenario, used in file names: e.g. {@code tpcw-n4}
     * @param group      settings that share a figure panel and a reference (e.g. the application); the
     *                   reference of a system that runs at only one setting of a group (centralized at 1 instance)
     *                   serves the whole group
     * @param parameters what distinguishes this setting, for results (e.g. {@code app}, {@code instances})
     * @param scale      the application's scale (databases are loaded at it)
     * @param instances  database instances of the scaled-out systems
     * @param mode       the capacity mode in words, for every result
     * @param wan        {@link Wan#OFF} for a LAN (this machine's loopback), or the paper's WAN ({@link Wan#paper()}):
     *                   instances at the first sites of G, J, US, B, A, clients at all five (the systems place them)
     * @param systems    the systems measured here; empty for the scenario's
     */
    public record Setting(String id, String group, Map<String, Object> parameters, Application app, int scale,
                          WorkloadOptions options, int instances, Backend backend, Capacity capacity, String mode,
                          Wan wan, List<String> systems) {
        public Setting {
            Objects.requireNonNull(app, "app");
            parameters = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
            systems = List.copyOf(systems);
            if (!id.matches("[A-Za-z0-9._-]+")) throw new IllegalArgumentException("setting id '" + id + "' must be a file name");
            if (instances < 1) throw new IllegalArgumentException("instances must be at least 1, not " + instances);
            if (capacity == null) capacity = Capacity.PLAIN;
            if (wan == null) wan = Wan.OFF;
            if (mode == null) mode = capacity.describe();
        }

        /** Where instances and clients are, in words. */
        public String network() {
            if (!wan.emulated()) return "LAN (loopback, one machine)";
            List<String> sites = wan.place(instances).sites().stream().map(x -> x.abbreviation()).toList();
            return "WAN (the paper's Table II): instances at " + String.join(", ", sites)
                    + "; clients at G, J, US, B, A, each to its nearest instance";
        }

        public Setting withBackend(Backend b) {
            return new Setting(id, group, parameters, app, scale, options, instances, b, capacity, mode, wan, systems);
        }

        public Setting withCapacity(Capacity c, String otherMode) {
            return new Setting(id, group, parameters, app, scale, options, instances, backend, c, otherMode, wan, systems);
        }

        public Setting withOptions(WorkloadOptions o) {
            return new Setting(id, group, parameters, app, scale, o, instances, backend, capacity, mode, wan, systems);
        }

        public Setting withSystems(List<String> only) {
            return new Setting(id, group, parameters, app, scale, options, instances, backend, capacity, mode, wan, only);
        }
    }

    /**
     * The load sweep: closed-loop client counts, or open-loop arrival rates served by a fixed number of sessions.
     *
     * @param clients      closed loop: client sessions per level; empty for an open loop
     * @param rates        open loop: arrivals per second per level; empty for a closed loop
     * @param openSessions open loop: the sessions that serve arrivals
     * @param maxQueued    open loop: arrivals that may wait for a free session (0: unbounded)
     */
    public record Load(List<Integer> clients, List<Double> rates, int openSessions, WorkloadRunner.Arrivals arrivals,
                       int maxQueued) {
        public Load {
            clients = List.copyOf(clients);
            rates = List.copyOf(rates);
            if (clients.isEmpty() == rates.isEmpty())
                throw new IllegalArgumentException("a load is client counts or open-loop rates, one of the two");
            for (int c : clients) if (c < 1) throw new IllegalArgumentException("client counts must be positive, not " + c);
            for (double r : rates) if (!(r > 0)) throw new IllegalArgumentException("rates must be positive, not " + r);
            if (!rates.isEmpty() && openSessions < 1) throw new IllegalArgumentException("an open loop needs sessions");
        }

        public static Load closed(List<Integer> clients) {
            return new Load(clients, List.of(), 0, null, 0);
        }

        public static Load open(List<Double> rates, int sessions, WorkloadRunner.Arrivals arrivals) {
            return new Load(List.of(), rates, sessions, arrivals, 0);
        }

        public boolean closedLoop() {
            return rates.isEmpty();
        }

        public int levels() {
            return closedLoop() ? clients.size() : rates.size();
        }

        /** Sessions at level i. */
        public int sessions(int i) {
            return closedLoop() ? clients.get(i) : openSessions;
        }

        /** The open-loop schedule at level i; null for a closed loop. */
        public WorkloadRunner.OpenLoop openLoop(int i) {
            return closedLoop() ? null : new WorkloadRunner.OpenLoop(rates.get(i), arrivals, maxQueued);
        }

        /** The level's parameters in results: {@code clients}, or {@code rate} and {@code sessions}. */
        public Map<String, Object> parameters(int i) {
            Map<String, Object> m = new LinkedHashMap<>();
            if (closedLoop()) m.put("clients", clients.get(i));
            else {
                m.put("rate", rates.get(i));
                m.put("sessions", openSessions);
            }
            return m;
        }

        /** The level in words: "16 clients", "200/s". */
        public String describe(int i) {
            return closedLoop() ? clients.get(i) + " clients"
                    : String.format(java.util.Locale.ROOT, "%.0f/s (%s, %d sessions)", rates.get(i), arrivals.label(), openSessions);
        }

        /** The name of the load parameter: "clients" or "rate". */
        public String parameter() {
            return closedLoop() ? "clients" : "rate";
        }

        public String describe() {
            return closedLoop() ? "closed loop, clients " + clients
                    : "open loop, " + arrivals.label() + " arrivals at " + rates + "/s over " + openSessions + " sessions"
                      + (maxQueued > 0 ? ", at most " + maxQueued + " queued" : "");
        }
    }

    /**
     * Peak throughput is the highest throughput whose mean latency stays under {@code meanMs}
     * (docs/benchmark-method.md).
     *
     * @param why e.g. "the paper's LAN bound"
     */
    public record Bound(double meanMs, String why) {
        public static final Bound LAN = new Bound(2000, "the paper's LAN bound, Section VII-C");
        public static final Bound WAN = new Bound(5000, "the paper's WAN bound, Section VII-D");

        public String describe() {
            return String.format(java.util.Locale.ROOT, "mean latency under %.0f ms (%s)", meanMs, why);
        }
    }

    /**
     * The scenario's own figure: per group, peak throughput and light-load latency against {@code x}, one line per
     * system (Figure 4: x = local share; Figure 5: x = instances; Table III: x = sites).
     *
     * @param x      the setting parameter on the x axis
     * @param xLabel its axis title
     * @param yUnit  what one request is called ("operations", "requests", "transactions")
     */
    public record Figure(String x, String xLabel, String yUnit) {}

    /** How a paper ratio is computed from the points. */
    public enum Metric {
        /** system's peak / baseline's peak. */
        PEAK_THROUGHPUT,
        /** baseline's mean latency / system's, at the lightest load of the sweep. */
        LIGHT_LOAD_LATENCY,
        /** baseline's mean latency / system's at the same load, the best over the sweep ("up to"). */
        LATENCY_AT_SAME_LOAD
    }

    /**
     * One number of the paper and how to compute ours: over the settings whose parameters include {@code where},
     * {@code system} against {@code baseline} (at the same setting, or at {@code baselineWhere} when given, or at the
     * group's reference setting when the baseline did not run at the same one); the best over those settings.
     */
    public record PaperRatio(String label, Map<String, Object> where, String system, String baseline,
                             Map<String, Object> baselineWhere, Metric metric, double paper) {
        public PaperRatio {
            where = Map.copyOf(where);
            baselineWhere = baselineWhere == null ? null : Map.copyOf(baselineWhere);
        }

        public static PaperRatio of(String label, Map<String, Object> where, String system, String baseline,
                                    Metric metric, double paper) {
            return new PaperRatio(label, where, system, baseline, null, metric, paper);
        }
    }
}
