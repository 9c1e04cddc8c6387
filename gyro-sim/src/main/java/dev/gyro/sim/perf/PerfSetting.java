package dev.gyro.sim.perf;

import java.util.Locale;

/**
 * One simulated point: the ring, its load and how long it is measured. A seed decides everything else.
 *
 * @param instances          ring size
 * @param belts              independent Conveyor Belts (each its own token and gsns) over the same instances; a
 *                           global request rides the belt of its group, drawn uniformly (groups of global transactions
 *                           that can never conflict, docs/decisions/21-several-belts.md). 1 is today's Gyro
 * @param parallelGlobals    the holder runs a round's global requests side by side (paper Appendix B; MariaDB) instead
 *                           of one at a time (PostgreSQL, SQLite)
 * @param localRatio         share of local requests, 0 to 1
 * @param clientsPerInstance closed loop: clients homed at each instance, each sending its next request as soon as the
 *                           last one is answered
 * @param warmupMs           simulated time before measuring
 * @param measureMs          simulated time measured, at least (stretched while it holds fewer than three token
 *                           rotations, {@link PerfResult#measuredSeconds()})
 * @param seed               the run's one random source
 */
public record PerfSetting(int instances, int belts, boolean parallelGlobals, double localRatio, int clientsPerInstance,
                          long warmupMs, long measureMs, long seed, boolean updatesAhead) {

    /** Updates only with the token. */
    public PerfSetting(int instances, int belts, boolean parallelGlobals, double localRatio, int clientsPerInstance,
                       long warmupMs, long measureMs, long seed) {
        this(instances, belts, parallelGlobals, localRatio, clientsPerInstance, warmupMs, measureMs, seed, false);
    }

    /** The same setting with each committed update sent ahead of the token (docs/decisions/25-updates-ahead.md). */
    public PerfSetting withUpdatesAhead(boolean ahead) {
        return new PerfSetting(instances, belts, parallelGlobals, localRatio, clientsPerInstance, warmupMs, measureMs,
                seed, ahead);
    }

    public PerfSetting {
        if (instances < 1) throw new IllegalArgumentException("a ring needs at least one instance, was " + instances);
        if (belts < 1) throw new IllegalArgumentException("at least one belt, was " + belts);
        if (!(localRatio >= 0 && localRatio <= 1))
            throw new IllegalArgumentException("local ratio must be in [0, 1], was " + localRatio);
        if (clientsPerInstance < 1) throw new IllegalArgumentException("at least one client per instance");
        if (warmupMs < 0 || measureMs < 1) throw new IllegalArgumentException("measure for at least 1 ms");
    }

    public String describe() {
        return String.format(Locale.ROOT, "%d instances, %d belt(s), globals %s, %.0f%% local, %d clients per "
                        + "instance, %d ms warm-up + %d ms measured, seed %d%s", instances, belts,
                parallelGlobals ? "in parallel" : "one at a time", localRatio * 100, clientsPerInstance, warmupMs,
                measureMs, seed, updatesAhead ? ", updates sent ahead of the token" : "");
    }
}
