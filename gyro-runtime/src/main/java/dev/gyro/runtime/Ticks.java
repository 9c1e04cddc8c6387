package dev.gyro.runtime;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The belt's timer: a tick every {@code millis} while the belt waits for time (a token passed and not yet
 * acknowledged, a global request waiting for the token: {@link dev.gyro.protocol.ConveyorBelt#waitsForTime()}), none
 * while it does not. A parked ring therefore wakes no thread for the belt at all
 * (docs/decisions/30-idle-ring-no-ticks.md). Thread-safe.
 */
final class Ticks {

    private final ScheduledExecutorService timers;
    private final long millis;
    private final Runnable tick;
    private ScheduledFuture<?> ticking; // guarded by this

    Ticks(ScheduledExecutorService timers, long millis, Runnable tick) {
        this.timers = timers;
        this.millis = millis;
        this.tick = tick;
    }

    /** Ticks from now on if {@code wanted}, else stops ticking; called after each event the belt handled. */
    synchronized void want(boolean wanted) {
        if (wanted == (ticking != null)) return;
        if (wanted) {
            try {
                ticking = timers.scheduleAtFixedRate(tick, millis, millis, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // the instance is closing
            }
        } else {
            ticking.cancel(false);
            ticking = null;
        }
    }
}
