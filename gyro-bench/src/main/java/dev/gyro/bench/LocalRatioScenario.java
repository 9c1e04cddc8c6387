package dev.gyro.bench;

import dev.gyro.app.Workload;
import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.micro.Micro;
import dev.gyro.runtime.Backend;
import dev.gyro.runtime.Capacity;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code local-ratio} scenario (paper Section VII-B, Figures 3 and 4): the micro-benchmark with a share of
 * local operations from 0% to 90%, each system under test driven by closed-loop clients at several client counts;
 * per point throughput and latency (per class), and per share the peak throughput whose mean latency stays under
 * the bound (the paper's 2000 ms on a LAN).
 *
 * <p>The paper's operations take 5 ms. With capacity emulation the emulated server supplies those 5 ms (and the
 * micro-benchmark's own service time is 0), so that every system pays them in the same place; in plain mode the
 * micro-benchmark sleeps its 5 ms inside each transaction itself. The operations send their SQL (not void, unlike
 * the paper's): the audit then has something to check, and the read-only baseline has writes to order.
 */
public final class LocalRatioScenario {

    public static final String NAME = "local-ratio";

    /**
     * @param localPercents shares of local operations to measure
     * @param clients       client counts of the sweep, per share and system
     * @param systems       systems under test; the first one is compared against all the others
     * @param instances     database instances of the scaled-out systems (the paper: servers at three sites)
     * @param capacity      per database instance; {@link Capacity#PLAIN} for the plain mode
     * @param serviceMillis the operations' execution time (the paper: 5 ms)
     * @param latencyBoundMs peak throughput counts only points whose mean latency is under this
     */
    public record Config(List<Integer> localPercents, List<Integer> clients, List<String> systems, int instances,
                         Capacity capacity, int serviceMillis, Duration warmup, Duration duration, double latencyBoundMs,
                         long seed, Backend backend) {

        public Config {
            localPercents = List.copyOf(localPercents);
            clients = List.copyOf(clients);
            systems = List.copyOf(systems);
            for (String s : systems) Systems.byName(s); // fail early with the known names
            if (localPercents.isEmpty() || clients.isEmpty() || systems.isEmpty())
                throw new IllegalArgumentException("a scenario needs shares, client counts and systems");
        }

        /** Under 3 minutes on a 2-core machine: 3 shares, 3 client counts, 3 systems, short runs. */
        public static Config quick(boolean emulateCapacity) {
            return new Config(List.of(0, 50, 90), List.of(4, 16, 48), Systems.NAMES, 3,
                    emulateCapacity ? Capacity.of(2, 5) : Capacity.PLAIN, 5, Duration.ofSeconds(1),
                    Duration.ofSeconds(3), 2000, 42, Backend.SQLITE);
        }

        /** The figure: 0% to 90% in steps of 10, a client sweep up to saturation. */
        public static Config full(boolean emulateCapacity) {
            return new Config(List.of(0, 10, 20, 30, 40, 50, 60, 70, 80, 90), List.of(2, 4, 8, 16, 32, 64),
                    Systems.NAMES, 3, emulateCapacity ? Capacity.of(2, 5) : Capacity.PLAIN, 5,
                    Duration.ofSeconds(5), Duration.ofSeconds(15), 2000, 42, Backend.SQLITE);
        }

        public int points() {
            return localPercents.size() * clients.size() * systems.size();
        }

        /** The workload options the micro-benchmark gets at one share. */
        WorkloadOptions options(int localPercent) {
            int inApp = capacity.emulated() ? 0 : serviceMillis; // with emulation the emulated server takes them
            return WorkloadOptions.of(Map.of("local", Integer.toString(localPercent), "service-ms",
                    Integer.toString(inApp)));
        }

        /** The mode in words, for every result. */
        public String mode() {
            return capacity.emulated() ? capacity.describe() + " (the operations' " + serviceMillis + " ms)"
                    : capacity.describe() + "; each operation sleeps " + serviceMillis + " ms in its transaction";
        }
    }

    /** Told about each point as it starts and while it runs. */
    public interface Listener {
        default void point(int index, int of, String system, int localPercent, int clients) {}
        default void running(double elapsed, double total, long completed) {}
        default void measured(Measured m) {}
    }

    private LocalRatioScenario() {}

    /**
     * Runs every point, each on a freshly deployed system under {@code work} (wiped point by point).
     *
     * @return every point, in the order run
     */
    public static List<Measured> run(Config config, Path work, Listener listener) throws Exception {
        Micro app = new Micro();
        List<Measured> points = new ArrayList<>();
        int index = 0;
        for (int share : config.localPercents()) {
            Workload workload = app.workload(1, config.options(share));
            for (int clients : config.clients()) {
                for (String name : config.systems()) {
                    SystemUnderTest system = Systems.byName(name);
                    listener.point(++index, config.points(), name, share, clients);
                    Path dir = work.resolve(name + "-" + share + "-" + clients);
                    deleteTree(dir);
                    Map<String, Object> params = new LinkedHashMap<>();
                    params.put("localPercent", share);
                    params.put("clients", clients);
                    params.put("instances", name.equals("centralized") ? 1 : config.instances());
                    params.put("serviceMs", config.serviceMillis());
                    Measured m = measure(system, app, workload, dir, config, clients, params, listener);
                    points.add(m);
                    listener.measured(m);
                    deleteTree(dir);
                }
            }
        }
        return points;
    }

    private static Measured measure(SystemUnderTest system, Micro app, Workload workload, Path dir, Config config,
                                    int clients, Map<String, Object> params, Listener listener) throws Exception {
        try (SystemUnderTest.Deployment d = system.deploy(new SystemUnderTest.Setup(app, dir,
                config.instances(), 1, config.seed(), config.capacity(), config.backend()))) {
            WorkloadRunner.Result r = WorkloadRunner.run(workload, d.target(),
                    new WorkloadRunner.Settings(clients, config.duration(), config.seed(), config.warmup()),
                    listener::running);
            List<String> problems = new ArrayList<>();
            if (r.failed() > 0) problems.add(r.failed() + " requests failed (first: " + r.failures().get(0) + ")");
            if (r.completed() == 0) problems.add("no request completed");
            // Correctness goes with speed (issue 6): a point whose replicas or audit fail is not a result.
            problems.addAll(d.settleAndCheck());
            return Measured.of(system.name(), NAME, params, config.mode(), r, problems);
        }
    }

    /**
     * Per system and share, the peak: the valid point of highest throughput whose mean latency is under the bound.
     *
     * @return system to share to the peak point (absent when no point qualifies)
     */
    public static Map<String, Map<Integer, Measured>> peaks(List<Measured> points, double boundMs) {
        Map<String, Map<Integer, Measured>> out = new LinkedHashMap<>();
        for (Measured m : points) {
            if (!m.valid() || m.all().meanMs() > boundMs) continue;
            int share = (Integer) m.parameter("localPercent");
            out.computeIfAbsent(m.system(), k -> new java.util.TreeMap<>()).merge(share, m,
                    (a, b) -> Comparator.comparingDouble(Measured::throughput).compare(a, b) >= 0 ? a : b);
        }
        return out;
    }

    static void deleteTree(Path dir) throws java.io.IOException {
        if (!Files.exists(dir)) return;
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }
}
