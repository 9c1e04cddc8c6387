package dev.gyro.sim;

import java.util.PriorityQueue;

/**
 * Simulated time and what happens when: events run in time order, and events due at the same moment in the order
 * they were scheduled, so that a run depends only on its seed. The unit of time is the driver's (the fault-finding
 * {@link Simulator} counts milliseconds, the performance simulator microseconds).
 */
public final class EventQueue {

    private record Event(long time, long seq, Runnable run) {}

    private final PriorityQueue<Event> events = new PriorityQueue<>(
            (a, b) -> a.time != b.time ? Long.compare(a.time, b.time) : Long.compare(a.seq, b.seq));
    private long seq;
    private long now;
    private long processed;

    /** The current simulated time. */
    public long now() {
        return now;
    }

    /** Events run so far. */
    public long processed() {
        return processed;
    }

    /** Runs {@code run} {@code delay} time units from now (0: after everything already due now). */
    public void after(long delay, Runnable run) {
        if (delay < 0) throw new IllegalArgumentException("an event cannot be scheduled in the past: " + delay);
        events.add(new Event(now + delay, seq++, run));
    }

    /**
     * Runs the events due up to {@code until}, in order, until {@code done} says so after one of them; then time
     * stands at {@code until} unless {@code done} stopped it earlier.
     *
     * @param beforeEach called with the running count before each event (a budget check may throw from it)
     */
    public void runUntil(long until, java.util.function.BooleanSupplier done, java.util.function.LongConsumer beforeEach) {
        while (!events.isEmpty() && events.peek().time <= until) {
            Event e = events.poll();
            now = e.time;
            beforeEach.accept(++processed);
            e.run.run();
            if (done.getAsBoolean()) return;
        }
        now = Math.max(now, until);
    }
}
