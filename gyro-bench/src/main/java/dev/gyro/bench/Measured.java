package dev.gyro.bench;

import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One point of a scenario: a system at one setting of the parameters and one load, with its throughput, latency
 * (overall, per class, per transaction), throughput over time, and the verdict of the checks that followed the run
 * (docs/benchmark-method.md). A point that could not run (its system is not on the class
 * path, or refused the backend) says why in {@link #notRun} and has no figures.
 *
 * @param system        the {@link SystemUnderTest}'s name
 * @param scenario      e.g. {@code local-ratio}
 * @param setting       which setting of the scenario (points of one setting and one load compare side by side)
 * @param parameters    the setting's parameters and the load (e.g. {@code localPercent}, {@code clients}), in order
 * @param mode          the capacity mode, in words ({@link dev.gyro.emulation.Capacity#describe()})
 * @param seconds       how long load was measured (warm-up excluded)
 * @param requests      calls completed in the measured period
 * @param throughput    requests per second
 * @param all           latency of all calls
 * @param byClass       latency per class (local, global: how the system ran the call)
 * @param byTransaction counts and latency per transaction
 * @param timeline      throughput and mean latency per interval of the measured period
 * @param openLoop      what an open loop offered and achieved; null for a closed loop
 * @param valid         whether the run passed replica convergence and the application's audit and failed no call
 * @param problems      why it is not valid
 * @param notRun        why the point was not run, or null when it was
 * @param phases        where its global requests' time went at their owners, and the token's figures; null for a
 *                      system without a token
 * @param serversBusy   the share of the emulated servers' slot time in use over the measured period (0 to 1), summed
 *                      over every database instance: how near the system ran to what the servers can serve at all;
 *                      null without capacity emulation
 * @param slots         the emulated servers' slots, all instances together; null without capacity emulation
 * @param machineBusy   the share of this machine's CPU time that was busy over the measured period (0 to 1; see
 *                      {@link MachineCpu}): near 1, the machine's own cores and not the emulated servers limited the
 *                      point; null where it could not be read
 */
public record Measured(String system, String scenario, String setting, Map<String, Object> parameters, String mode,
                       double seconds, long requests, double throughput, Latency all, Map<String, Latency> byClass,
                       Map<String, Transaction> byTransaction, Series timeline, OpenLoop openLoop, boolean valid,
                       List<String> problems, String notRun, PhaseBreakdown phases, Double serversBusy,
                       Long slots, Double machineBusy) {

    /** Mean and percentiles in milliseconds. */
    public record Latency(long count, double meanMs, double p50Ms, double p95Ms, double p99Ms, double maxMs) {
        public static final Latency NONE = new Latency(0, 0, 0, 0, 0, 0);

        public static Latency of(Histogram h) {
            if (h.getTotalCount() == 0) return NONE;
            return new Latency(h.getTotalCount(), h.getMean() / 1000.0, h.getValueAtPercentile(50) / 1000.0,
                    h.getValueAtPercentile(95) / 1000.0, h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0);
        }
    }

    /**
     * One transaction's calls: how they ended, and their latency; {@code unsupported} calls the system could not run
     * at all ({@code unsupportedWhy} says why), which are in no other figure.
     */
    public record Transaction(long ok, long aborted, long failed, Latency latency, long unsupported,
                              String unsupportedWhy) {}

    /** Throughput (calls/s) and mean latency (ms) per interval of the measured period, in order. */
    public record Series(double intervalSeconds, List<Double> throughput, List<Double> meanLatencyMs) {
        static final Series NONE = new Series(0, List.of(), List.of());
    }

    /**
     * An open loop's schedule and what came of it over the measured period.
     *
     * @param targetRate   arrivals per second asked for
     * @param offeredRate  arrivals per second that were due in the measured period
     * @param achievedRate calls per second completed
     * @param dropped      arrivals dropped because the queue for a free session was full
     * @param unfinished   arrivals still waiting or running at the end (not in the latencies)
     * @param queueWait    from the intended arrival to the call being sent
     */
    public record OpenLoop(double targetRate, String arrivals, int maxQueued, long offered, double offeredRate,
                           double achievedRate, long dropped, long unfinished, int mostQueued, Latency queueWait) {}

    public Object parameter(String name) {
        return parameters.get(name);
    }

    public boolean ran() {
        return notRun == null;
    }

    /** Calls of transactions the system could not run (counted apart from every other figure). */
    public long unsupported() {
        return byTransaction.values().stream().mapToLong(Transaction::unsupported).sum();
    }

    /** Whether the system ran only part of the workload: some transactions it cannot run. */
    public boolean partial() {
        return unsupported() > 0;
    }

    /** From a runner's result: totals over all classes, per class, per transaction, over time. */
    public static Measured of(String system, String scenario, String setting, Map<String, Object> parameters,
                              String mode, WorkloadRunner.Result r, List<String> problems) {
        Histogram total = new Histogram(3);
        Map<String, Latency> byClass = new LinkedHashMap<>();
        for (Map.Entry<String, Histogram> e : r.latencyMicros().entrySet()) {
            total.add(e.getValue());
            byClass.put(e.getKey().isEmpty() ? "-" : e.getKey(), Latency.of(e.getValue()));
        }
        Map<String, Transaction> byTransaction = new LinkedHashMap<>();
        r.byTransaction().forEach((name, c) -> {
            Histogram h = r.latencyByTransaction().get(name);
            byTransaction.put(name, new Transaction(c.ok(), c.aborted(), c.failed(),
                    h == null ? Latency.NONE : Latency.of(h), c.unsupported(), c.unsupportedWhy()));
        });
        WorkloadRunner.Timeline t = r.timeline();
        Series series = t == null ? Series.NONE : new Series(t.intervalSeconds(), boxed(t.throughput()), boxed(t.meanLatencyMs()));
        long requests = r.completed();
        double throughput = r.seconds() > 0 ? requests / r.seconds() : 0;
        OpenLoop open = null;
        if (r.openLoop() != null) {
            WorkloadRunner.OpenLoopResult o = r.openLoop();
            open = new OpenLoop(o.schedule().ratePerSecond(), o.schedule().arrivals().label(), o.schedule().maxQueued(),
                    o.offered(), r.seconds() > 0 ? o.offered() / r.seconds() : 0, throughput, o.dropped(),
                    o.unfinished(), o.mostQueued(), Latency.of(o.queueWait()));
        }
        return new Measured(system, scenario, setting, Collections.unmodifiableMap(new LinkedHashMap<>(parameters)),
                mode, r.seconds(), requests, throughput, Latency.of(total), byClass, byTransaction, series, open,
                problems.isEmpty(), List.copyOf(problems), null, null, null, null, null);
    }

    /** This point with its global phases. */
    public Measured withPhases(PhaseBreakdown p) {
        return new Measured(system, scenario, setting, parameters, mode, seconds, requests, throughput, all, byClass,
                byTransaction, timeline, openLoop, valid, problems, notRun, p, serversBusy, slots, machineBusy);
    }

    /** This point with the share of its emulated servers' capacity it used, and their slots (null: not emulated). */
    public Measured withServersBusy(Double share, Long slots) {
        return new Measured(system, scenario, setting, parameters, mode, seconds, requests, throughput, all, byClass,
                byTransaction, timeline, openLoop, valid, problems, notRun, phases, share, slots, machineBusy);
    }

    /** This point with the share of this machine's CPU time that was busy while it was measured (null: unknown). */
    public Measured withMachineBusy(Double share) {
        return new Measured(system, scenario, setting, parameters, mode, seconds, requests, throughput, all, byClass,
                byTransaction, timeline, openLoop, valid, problems, notRun, phases, serversBusy, slots, share);
    }

    /** Machine CPU share from which a point is reported as limited by this machine rather than its emulated servers. */
    public static final double MACHINE_SATURATED = 0.9;

    /** True when this machine's cores were {@link #MACHINE_SATURATED} or busier while the point was measured. */
    public boolean machineSaturated() {
        return machineBusy != null && machineBusy >= MACHINE_SATURATED;
    }

    /**
     * The emulated servers' slot time a completed request took, on average (service time, transaction, retries and
     * whatever else a system does in a slot): its floor is the service time. {@code slots * 1000 / slotMsPerRequest}
     * is the most requests a second the system could serve on these servers at that cost, so it says how far a
     * ratio between systems can go at all. Null without capacity emulation or without completed requests.
     */
    public Double slotMsPerRequest() {
        if (serversBusy == null || slots == null || throughput <= 0) return null;
        return serversBusy * slots * 1000 / throughput;
    }

    /** A point that was not run, and why (one line). */
    public static Measured notRun(String system, String scenario, String setting, Map<String, Object> parameters,
                                  String mode, String reason) {
        return new Measured(system, scenario, setting, Collections.unmodifiableMap(new LinkedHashMap<>(parameters)),
                mode, 0, 0, 0, Latency.NONE, Map.of(), Map.of(), Series.NONE, null, false, List.of(), reason, null,
                null, null, null);
    }

    /** A point that was deployed but produced nothing to believe (the run or the clean-up failed). */
    public static Measured failed(String system, String scenario, String setting, Map<String, Object> parameters,
                                  String mode, String problem) {
        return new Measured(system, scenario, setting, Collections.unmodifiableMap(new LinkedHashMap<>(parameters)),
                mode, 0, 0, 0, Latency.NONE, Map.of(), Map.of(), Series.NONE, null, false, List.of(problem), null,
                null, null, null, null);
    }

    private static List<Double> boxed(double[] xs) {
        List<Double> out = new ArrayList<>(xs.length);
        for (double x : xs) out.add(x);
        return out;
    }
}
