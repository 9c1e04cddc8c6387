package dev.gyro.sim.perf;

import java.util.Locale;

/**
 * What things cost in the performance simulator ({@link PerfSimulator}): the capacity of each instance's database and
 * the network between instances. Validated once, then immutable; printed with every result.
 *
 * <p>Each instance's database is a small server of {@code slots} service slots, as the benchmarks' capacity emulation
 * gives it (docs/benchmark-method.md): a transaction waits for a free slot and holds it for its service
 * time. The belt's own work (applying a token's state updates, executing global requests while holding the token)
 * waits ahead of queued local requests, as the emulation's lane for the token holder does: it is on the token's path,
 * and every instance's global requests wait for it (paper Section VII-C).
 *
 * @param slots            transactions one instance's database serves at once
 * @param localMs          service time of one local request
 * @param globalMs         service time of one global request, run by the token holder (Algorithm 1, line 15)
 * @param applyMsPerUpdate service time of applying one state update (its row images) at every other instance
 *                         (Algorithm 1, lines 11-12); a token's updates are applied in one transaction whose service
 *                         time is this times their number. An update is row images, not the request run again, so it
 *                         costs a fraction of the request
 * @param hopLatencyMs     one-way network latency of every message between two instances (token, acknowledgement,
 *                         want)
 */
public record PerfModel(int slots, double localMs, double globalMs, double applyMsPerUpdate, double hopLatencyMs) {

    public PerfModel {
        if (slots < 1) throw new IllegalArgumentException("an instance needs at least one service slot, was " + slots);
        if (!(localMs > 0) || !(globalMs > 0))
            throw new IllegalArgumentException("service times must be positive: local " + localMs + " ms, global "
                    + globalMs + " ms");
        if (!(applyMsPerUpdate >= 0) || !(hopLatencyMs >= 0))
            throw new IllegalArgumentException("apply cost and hop latency must not be negative: " + applyMsPerUpdate
                    + " ms, " + hopLatencyMs + " ms");
    }

    /** Default per-update apply cost: a fortieth of a 20 ms transaction (see the record's description). */
    public static final double DEFAULT_APPLY_MS = 0.5;
    /** Default hop latency: a LAN. */
    public static final double DEFAULT_HOP_MS = 0.2;

    /** An instance of {@code slots} slots at {@code serviceMs} per request, with the default apply cost and LAN. */
    public static PerfModel lan(int slots, double serviceMs) {
        return new PerfModel(slots, serviceMs, serviceMs, DEFAULT_APPLY_MS, DEFAULT_HOP_MS);
    }

    /** One line, printed with every result. */
    public String describe() {
        return String.format(Locale.ROOT, "%d slots per instance, local %.1f ms, global %.1f ms, apply %.2f ms per "
                + "update, hop latency %.2f ms", slots, localMs, globalMs, applyMsPerUpdate, hopLatencyMs);
    }

    // ------------------------------------------------------------------------------------------- the analytic side

    /**
     * Database time one request costs the whole ring, in ms: a local request its service time; a global request its
     * service time at the holder plus one apply of its update at each of the {@code n - 1} other instances.
     */
    public double slotMsPerRequest(int n, double localRatio) {
        return localRatio * localMs + (1 - localRatio) * (globalMs + (n - 1) * applyMsPerUpdate);
    }

    /** The instances' capacity, requests/s: {@code n * slots} slots busy all the time, {@link #slotMsPerRequest} each. */
    public double capacity(int n, double localRatio) {
        return n * slots * 1000.0 / slotMsPerRequest(n, localRatio);
    }

    /**
     * Time one global request holds its belt's token, in ms, when a slot frees after {@code slotWaitMs} on average: a
     * token is held while its holder applies the updates it brings and executes its queued global requests (Algorithm
     * 1, lines 8-18), and passed only then. Each update is applied at the {@code n - 1} other hops, one after another
     * on the token's way. One at a time, each execution first waits for a slot (the one the last execution freed has
     * gone to a queued local request meanwhile) and then takes {@code globalMs}; side by side (paper Appendix B), a
     * large round keeps all {@code slots} busy, {@code globalMs / slots} each. With {@code updatesAhead}
     * (docs/decisions/25-updates-ahead.md) every update reaches the other instances at its commit and is applied there
     * between the token's visits, so the token no longer waits for the {@code n - 1} applies on its way (they still
     * take the instances' slots).
     */
    public double tokenMsPerGlobal(int n, boolean parallelGlobals, double slotWaitMs, boolean updatesAhead) {
        return (parallelGlobals ? globalMs / slots : globalMs + slotWaitMs)
                + (updatesAhead ? 0 : (n - 1) * applyMsPerUpdate);
    }

    /** Most global requests/s that {@code belts} tokens can carry: each is busy {@link #tokenMsPerGlobal} per global. */
    public double globalCeiling(int n, int belts, boolean parallelGlobals, double slotWaitMs, boolean updatesAhead) {
        return belts * 1000.0 / tokenMsPerGlobal(n, parallelGlobals, slotWaitMs, updatesAhead);
    }

    /**
     * The expected peak throughput, requests/s: the lower of the instances' capacity {@code C} and the global ceiling
     * {@code G} scaled up by the local requests that come with each global one (a share {@code 1 - p} of all requests
     * is global, so the whole mix runs at most {@code G / (1 - p)}):
     * <pre>  X = min(C, G(w) / (1 - p)),  w = slotWaitMs(X / C)</pre>
     * The slot wait {@code w} depends on how busy the slots are ({@code X / C}), so {@code X} is the fixed point of
     * that formula; its right side falls as {@code X} rises, so there is one, found by bisection. With
     * {@code updatesAhead}, as {@link #tokenMsPerGlobal} says.
     */
    public double expectedThroughput(int n, int belts, boolean parallelGlobals, double localRatio,
                                     boolean updatesAhead) {
        double capacity = capacity(n, localRatio);
        if (localRatio >= 1) return capacity;
        double low = 0, high = capacity;
        for (int i = 0; i < 60; i++) {
            double x = (low + high) / 2;
            double bound = Math.min(capacity, globalCeiling(n, belts, parallelGlobals, slotWaitMs(x / capacity),
                    updatesAhead) / (1 - localRatio));
            if (bound >= x) low = x;
            else high = x;
        }
        return low;
    }

    /**
     * The expected token rotation, in ms, when each belt carries {@code globalsPerSecondPerBelt} and a slot frees after
     * {@code slotWaitMs}: every hop costs the message's latency plus the wait for a slot to apply what the token brings,
     * and each global request carried costs {@link #tokenMsPerGlobal}. With {@code g} globals per rotation,
     * {@code R = n (hop + w) + g t}, and {@code g = x R}, so
     * <pre>  R = n (hop + w) / (1 - x t)</pre>
     * which grows without bound as the belt nears its ceiling ({@code x t -> 1}); infinite beyond.
     */
    public double expectedRotationMs(int n, boolean parallelGlobals, double globalsPerSecondPerBelt, double slotWaitMs,
                                     boolean updatesAhead) {
        double busy = globalsPerSecondPerBelt * tokenMsPerGlobal(n, parallelGlobals, slotWaitMs, updatesAhead) / 1000.0;
        if (busy >= 1) return Double.POSITIVE_INFINITY;
        return n * (hopLatencyMs + slotWaitMs) / (1 - busy);
    }

    /**
     * The mean wait for a slot of work that goes ahead of the queue, in ms, at a slot utilisation {@code u}: all
     * {@code slots} are busy with probability about {@code u^slots}, and then the first of them frees after about
     * {@code localMs / (slots + 1)} (the least of {@code slots} residual service times).
     */
    public double slotWaitMs(double utilisation) {
        return Math.pow(Math.min(1, Math.max(0, utilisation)), slots) * localMs / (slots + 1);
    }
}
