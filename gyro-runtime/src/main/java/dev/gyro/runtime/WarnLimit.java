package dev.gyro.runtime;

import java.util.function.LongSupplier;

/**
 * Keeps a WARN line that anyone who can reach a port can cause at will (a refused or malformed peer message) from
 * flooding the log: the first line is said at once, then at most one per interval, which says how many were left
 * unsaid since the line before. Nothing is lost from the counts: the metrics count every one.
 *
 * <p>Thread-safe.
 */
final class WarnLimit {

    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private boolean saidOnce;
    private long nextAt;
    private long unsaid;

    /** @param nanoClock {@link System#nanoTime} but in tests */
    WarnLimit(long intervalNanos, LongSupplier nanoClock) {
        if (intervalNanos <= 0) throw new IllegalArgumentException("the interval must be positive, got " + intervalNanos);
        this.intervalNanos = intervalNanos;
        this.nanoClock = nanoClock;
    }

    /** One line every 10 seconds at most. */
    static WarnLimit everyTenSeconds() {
        return new WarnLimit(10_000_000_000L, System::nanoTime);
    }

    /**
     * One more occurrence: -1 if its line is not to be said now; otherwise how many occurrences went unsaid since
     * the last line said (0 for the first).
     */
    synchronized long occurred() {
        long now = nanoClock.getAsLong();
        if (saidOnce && now - nextAt < 0) {
            unsaid++;
            return -1;
        }
        saidOnce = true;
        nextAt = now + intervalNanos;
        long before = unsaid;
        unsaid = 0;
        return before;
    }

    /** The words to add to a line said after {@code unsaid} were not: empty when none were. */
    static String suffix(long unsaid) {
        return unsaid <= 0 ? "" : " (and " + unsaid + " more like it since the last such line)";
    }
}
