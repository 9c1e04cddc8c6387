package dev.gyro.runtime;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * How long to wait before trying again: jittered exponential backoff, the one retry pause of Gyro and its baselines
 * (lost races of local and global requests, of 2PC and ShardingSphere transactions, a database that does not answer).
 * The pause after attempt {@code n} failed is uniform in {@code [d/2, d]} with {@code d = min(max, first * 2^(n-1))}:
 * contending retries spread out, and a long outage is polled at most every {@code max}.
 *
 * @param first the pause after the first failed attempt (before jitter)
 * @param max   the longest pause
 */
public record Backoff(Duration first, Duration max) {

    public Backoff {
        if (first.isNegative() || first.isZero()) throw new IllegalArgumentException("first pause must be positive");
        if (max.compareTo(first) < 0) throw new IllegalArgumentException("max pause " + max + " below first " + first);
    }

    public static Backoff of(long firstMillis, long maxMillis) {
        return new Backoff(Duration.ofMillis(firstMillis), Duration.ofMillis(maxMillis));
    }

    /** The pause after attempt {@code attempt} (1 for the first) failed, in milliseconds (at least 1). */
    public long delayMillis(int attempt, RandomGenerator random) {
        long first = Math.max(1, this.first.toMillis());
        long d = Math.min(max.toMillis(), first << Math.min(30, Math.max(0, attempt - 1)));
        return Math.max(1, d / 2 + random.nextLong(d / 2 + 1));
    }

    /**
     * Sleeps the pause after attempt {@code attempt} failed.
     *
     * @return false if interrupted (the thread's interrupt flag is set again): the caller must stop retrying
     */
    public boolean pause(int attempt) {
        try {
            Thread.sleep(delayMillis(attempt, ThreadLocalRandom.current()));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
