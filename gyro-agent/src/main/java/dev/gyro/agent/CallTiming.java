package dev.gyro.agent;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where a local call's time goes under the agent (docs/decisions/36-attached-benchmark.md): a local call runs on the
 * application's own thread, in a request of its instance opened at the method's entry and committed at the
 * application's commit. Summed over the local calls that committed, for the agent's report at exit.
 */
final class CallTiming {

    /** The phases of one call, in order: each from one stamp to the next. */
    static final List<String> PHASES = List.of("Gyro begins the request (route, gate, DBMS transaction)",
            "the application's own statements", "Gyro commits (the DBMS commit)");

    private static final LongAdder[] SUMS = new LongAdder[PHASES.size()];
    private static final LongAdder CALLS = new LongAdder();
    /** Local calls passed through to the application's own database (no instance): their methods' time, entry to exit. */
    private static final LongAdder PASSED = new LongAdder(), PASSED_NANOS = new LongAdder();

    static {
        for (int i = 0; i < SUMS.length; i++) SUMS[i] = new LongAdder();
    }

    private CallTiming() {}

    /** One local call that committed: its stamps ({@link System#nanoTime()}), one more than {@link #PHASES}. */
    static void record(long... stamps) {
        for (int i = 0; i < SUMS.length; i++) SUMS[i].add(stamps[i + 1] - stamps[i]);
        CALLS.increment();
    }

    /** A local call passed through (no instance, no emulation) ran its method in {@code nanos}. */
    static void passedThrough(long nanos) {
        PASSED_NANOS.add(nanos);
        PASSED.increment();
    }

    static long passed() {
        return PASSED.sum();
    }

    /** The mean time of a passed-through local call's method, entry to exit, in microseconds. */
    static double passedMicros() {
        return PASSED_NANOS.sum() / 1000.0 / Math.max(1, PASSED.sum());
    }

    static long calls() {
        return CALLS.sum();
    }

    /** {@code phase 12.3 us, ...}: each phase's mean over the calls recorded. */
    static String describe() {
        long n = Math.max(1, CALLS.sum());
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < SUMS.length; i++)
            parts.add(String.format(Locale.ROOT, "%s %.1f us", PHASES.get(i), SUMS[i].sum() / 1000.0 / n));
        return String.join(", ", parts);
    }
}
