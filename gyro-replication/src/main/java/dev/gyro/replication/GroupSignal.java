package dev.gyro.replication;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Wakes whoever waits for something in a group to change: a leader elected or ready, a log entry applied. Waiting is
 * on these events, with a deadline; the condition is also looked at every {@link #RECHECK} because Ratis may announce an
 * event a moment before its state (the leader's readiness) shows it.
 */
final class GroupSignal {

    /** Short beside a failover (decision 22): a new leader's readiness is seen within this, and a stopped one's loss. */
    static final Duration RECHECK = Duration.ofMillis(20);

    synchronized void changed() {
        notifyAll();
    }

    /** Waits until {@code condition} holds or {@code deadlineNanos} ({@link System#nanoTime()}) passes. */
    synchronized boolean await(BooleanSupplier condition, long deadlineNanos) throws InterruptedException {
        while (!condition.getAsBoolean()) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) return false;
            wait(Math.max(1, Math.min(RECHECK.toMillis(), left / 1_000_000)));
        }
        return true;
    }
}
