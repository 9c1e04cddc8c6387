package dev.gyro.sim.perf;

import java.util.Locale;

/**
 * What one simulated point measured, over its measured window only.
 *
 * @param model              the costs it ran with
 * @param setting            the ring, load and seed
 * @param throughput         requests answered per simulated second, local and global
 * @param localThroughput    local requests answered per second
 * @param globalThroughput   global requests answered per second
 * @param local              latency of local requests
 * @param global             latency of global requests, from the client's call to its reply (queued for the token,
 *                           executed, committed)
 * @param rotationMs         mean token rotation: from passing a token until the same instance receives it again,
 *                           less the time it lay parked meanwhile (an idle ring's token waits where it is), over every
 *                           instance and belt; NaN when no token went round (a ring of one)
 * @param slotUtilisation    share of all instances' slot time in use
 * @param tokenPasses        token passes in the window, all belts
 * @param messages           messages between instances in the window (tokens, acknowledgements, wants)
 * @param measuredSeconds    the window's length: the setting's, stretched while it held fewer than three rotations
 * @param events             simulation events of the whole run
 */
public record PerfResult(PerfModel model, PerfSetting setting, double throughput, double localThroughput,
                         double globalThroughput, Latency local, Latency global, double rotationMs,
                         double slotUtilisation, long tokenPasses, long messages, double measuredSeconds,
                         long events) {

    /** Latency in ms; all NaN when nothing was measured. */
    public record Latency(long count, double meanMs, double p50Ms, double p99Ms) {
        public static final Latency NONE = new Latency(0, Double.NaN, Double.NaN, Double.NaN);
    }

    /** Mean latency over both classes, weighted by their counts. */
    public double meanMs() {
        long n = local.count() + global.count();
        if (n == 0) return Double.NaN;
        return ((local.count() == 0 ? 0 : local.count() * local.meanMs())
                + (global.count() == 0 ? 0 : global.count() * global.meanMs())) / n;
    }

    /**
     * Whether the closed loop had settled, so that the window measured a rate the ring sustains rather than a
     * transient:
     * <ul>
     *   <li>answered requests are local in the setting's ratio, as every client's are in a steady state (a ring whose
     *       global requests wait long answers mostly local ones at first, until its clients have all come to wait for
     *       the token); allowed: a fifth of the global share plus three standard deviations of the count;</li>
     *   <li>global requests waited less than the warm-up on average, so the warm-up had time to fill the queues;</li>
     *   <li>the window, stretched up to {@link PerfSimulator#MAX_WINDOW_STRETCH} times for it, saw at least three token
     *       rotations, so a rotation's burst of replies is not the rate.</li>
     * </ul>
     */
    public boolean steady() {
        long n = local.count() + global.count();
        if (n == 0) return false;
        double expected = 1 - setting.localRatio();
        double share = (double) global.count() / n;
        if (Math.abs(share - expected) > 0.2 * expected + 3 * Math.sqrt(expected * (1 - expected) / n)) return false;
        if (global.count() > 0 && global.meanMs() > setting.warmupMs()) return false;
        return setting.instances() == 1 || expected == 0 || rotationMs * 3 <= measuredSeconds * 1000;
    }

    /** The expected peak throughput of this point's ring and mix ({@link PerfModel#expectedThroughput}). */
    public double expectedThroughput() {
        return model.expectedThroughput(setting.instances(), setting.belts(), setting.parallelGlobals(),
                setting.localRatio(), setting.updatesAhead());
    }

    /**
     * The expected rotation at the measured global rate and slot utilisation ({@link PerfModel#expectedRotationMs});
     * infinite where the belts run at 90% of their ceiling or more, where the closed form says that the queue of
     * waiting requests sets the rotation, not the ring.
     */
    public double expectedRotationMs() {
        if (setting.instances() == 1) return Double.NaN;
        double perBelt = globalThroughput / setting.belts(), wait = model.slotWaitMs(slotUtilisation);
        if (perBelt * model.tokenMsPerGlobal(setting.instances(), setting.parallelGlobals(), wait,
                setting.updatesAhead()) / 1000 >= 0.9)
            return Double.POSITIVE_INFINITY;
        return model.expectedRotationMs(setting.instances(), setting.parallelGlobals(), perBelt, wait,
                setting.updatesAhead());
    }

    public String summary() {
        return String.format(Locale.ROOT, "%.0f req/s (local %.0f, global %.1f), local mean %.1f ms, global mean %.1f "
                        + "ms p99 %.1f ms, rotation %.1f ms, slots %.0f%% busy%s", throughput, localThroughput,
                globalThroughput, local.meanMs(), global.meanMs(), global.p99Ms(), rotationMs, slotUtilisation * 100,
                steady() ? "" : ", NOT STEADY");
    }
}
