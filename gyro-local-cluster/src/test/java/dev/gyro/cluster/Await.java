package dev.gyro.cluster;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits for an event (a count reached, a ring gone quiet), never for a fixed time: a test timed with sleeps fails
 * on a loaded machine. The deadline only ends a test that hangs, with what it waited for.
 */
public final class Await {

    /** Long enough for a loaded 2-core machine; only a hung test reaches it. */
    public static final Duration DEADLINE = Duration.ofMinutes(3);

    private Await() {}

    public static void until(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("waited " + DEADLINE + " for " + what);
            Thread.sleep(5);
        }
    }
}
