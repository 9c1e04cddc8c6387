package dev.gyro.bench;

import java.time.Duration;

/**
 * How long the correctness tests drive a workload: a number of calls, not a window of time
 * ({@link WorkloadRunner.Settings#calls}), so that a quiet machine is done sooner and a loaded one still makes every
 * call a check needs; the time is only the bound on a run that makes no progress.
 */
final class Bounded {

    /** Calls per run: about what a window of 3 s made on a loaded 2-core machine. */
    static final long CALLS = 400;

    /** The most a run may last before it ends with the calls it made. */
    static final Duration AT_MOST = Duration.ofSeconds(30);

    private Bounded() {}
}
