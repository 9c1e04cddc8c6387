package dev.gyro.bench;

import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.micro.Micro;
import dev.gyro.cluster.Backend;
import dev.gyro.emulation.Capacity;
import dev.gyro.emulation.wan.Wan;

import java.time.Duration;
import java.util.ArrayList;
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

    /** The paper's operation time (Section VII-B). */
    public static final int SERVICE_MS = 5;

    /** The paper's three (Figures 3, 4); centralized-jdbc differs from centralized only across a WAN. */
    static final List<String> SYSTEMS = List.of("gyro", "read-only", "centralized");

    private LocalRatioScenario() {}

    /** Under 3 minutes on a 2-core machine: 3 shares, 3 client counts, 3 systems, short runs. */
    public static Scenario quick(boolean emulateCapacity, Backend backend) {
        return define(List.of(0, 50, 90), List.of(4, 16, 48), SYSTEMS, 3,
                emulateCapacity ? Capacity.of(2, SERVICE_MS) : Capacity.PLAIN, Duration.ofSeconds(1),
                Duration.ofSeconds(3), 42, backend, true);
    }

    /**
     * The figure: 0% to 90% local, with the shares the paper's text names (30%, 70%, 90%), and a client sweep up to
     * saturation (the emulated servers saturate at 16 to 32 clients). About 20 minutes on 2 cores.
     */
    public static Scenario full(boolean emulateCapacity, Backend backend) {
        return define(List.of(0, 10, 30, 50, 70, 90), List.of(2, 8, 32, 64), SYSTEMS, 3,
                emulateCapacity ? Capacity.of(2, SERVICE_MS) : Capacity.PLAIN, Duration.ofSeconds(3),
                Duration.ofSeconds(10), 42, backend, false);
    }

    /**
     * @param localPercents shares of local operations, one setting each
     * @param clients       the client sweep at every share
     * @param systems       systems under test; the first is compared against the others
     * @param instances     database instances of the scaled-out systems (the paper: servers at three sites)
     * @param capacity      per database instance; {@link Capacity#PLAIN} for the plain mode
     */
    public static Scenario define(List<Integer> localPercents, List<Integer> clients, List<String> systems,
                                  int instances, Capacity capacity, Duration warmup, Duration duration, long seed,
                                  Backend backend, boolean quick) {
        Micro app = new Micro();
        // with emulation the emulated server takes the operation's 5 ms; without, the transaction sleeps them
        int inApp = capacity.emulated() ? 0 : SERVICE_MS;
        String mode = capacity.emulated() ? capacity.describe() + " (the operations' " + SERVICE_MS + " ms)"
                : capacity.describe() + "; each operation sleeps " + SERVICE_MS + " ms in its transaction";
        List<Scenario.Setting> settings = new ArrayList<>();
        for (int share : localPercents)
            settings.add(new Scenario.Setting("local-" + share, null, Map.of("localPercent", share,
                    "serviceMs", SERVICE_MS), app, 1, WorkloadOptions.of(Map.of("local", Integer.toString(share),
                    "service-ms", Integer.toString(inApp))), instances, backend, capacity, mode, Wan.OFF, List.of()));
        int lowest = localPercents.contains(30) ? 30 : localPercents.get(0);
        int highest = localPercents.get(localPercents.size() - 1);
        List<Scenario.PaperRatio> paper = List.of(new Scenario.PaperRatio(
                "Figure 4: Gyro's peak at " + highest + "% local / at " + lowest + "% (paper: 5477 ops/s at 90% / 600 at 30%)",
                Map.of("localPercent", highest), systems.get(0), systems.get(0), Map.of("localPercent", lowest),
                Scenario.Metric.PEAK_THROUGHPUT, 9.1));
        List<String> notes = List.of(
                instances + " database instances for gyro and read-only, 1 for centralized; closed-loop clients, no think time",
                "paper setup: WAN, Gyro servers at 3 sites, clients at 5; operations void, 5 ms execution time each; "
                        + "this run: loopback LAN on one machine, operations that send their SQL (not void)",
                "paper, Figure 3a: unsaturated, global requests' latency is more than 3x local ones'; Gyro minimizes "
                        + "latency when 70% or more of the requests are local",
                "paper, Figure 3b: saturated, global requests saturate the system above 30% of the workload; local "
                        + "requests' latency grows too",
                "paper, Figure 4: saturation at about 600 ops/s with 30% local operations, about 5477 ops/s with 90%");
        return new Scenario(NAME, "Gyro vs baselines by share of local operations (micro-benchmark)",
                "Section VII-B, Figures 3 and 4", settings, systems, Scenario.Load.closed(clients), warmup, duration,
                Scenario.Bound.LAN, seed, quick, new Scenario.Figure("localPercent", "local operations (%)", "operations"),
                paper, notes);
    }
}
