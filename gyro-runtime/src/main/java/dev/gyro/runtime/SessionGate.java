package dev.gyro.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The session guarantee (docs/decisions/09-serializability-session.md): a client that saw a global request's reply
 * carries its gsn, and this instance runs that client's next request only once it has applied that gsn. A request that
 * must wait is parked here as a continuation, holding no thread: when the instance's applied gsn reaches the request's,
 * its {@code ready} action runs (on the thread that advanced the gsn: it must only hand the request on); after
 * {@link #MAX_WAIT} its {@code timedOut} action runs instead. Exactly one of the two runs, once.
 */
final class SessionGate implements AutoCloseable {

    /** How long a request waits for its gsn before it is answered UNAVAILABLE. */
    static final Duration MAX_WAIT = Duration.ofSeconds(30);

    private final ScheduledExecutorService timers;
    private final TreeMap<Long, List<Waiter>> waiting = new TreeMap<>(); // guarded by this
    private volatile long applied;
    private boolean closed; // guarded by this

    private static final class Waiter {
        final Runnable ready;
        final Runnable timedOut;
        final AtomicBoolean done = new AtomicBoolean();
        ScheduledFuture<?> timeout;

        Waiter(Runnable ready, Runnable timedOut) {
            this.ready = ready;
            this.timedOut = timedOut;
        }

        void ready() {
            if (!done.compareAndSet(false, true)) return;
            if (timeout != null) timeout.cancel(false);
            ready.run();
        }

        void timedOut() {
            if (done.compareAndSet(false, true)) timedOut.run();
        }
    }

    SessionGate(long applied, ScheduledExecutorService timers) {
        this.applied = applied;
        this.timers = timers;
    }

    long applied() {
        return applied;
    }

    /** How many requests wait for their gsn now. */
    synchronized int waiting() {
        int n = 0;
        for (List<Waiter> ws : waiting.values()) n += ws.size();
        return n;
    }

    /** True when a request carrying {@code gsn} may run now. */
    boolean reached(long gsn) {
        return gsn <= applied;
    }

    /** Runs {@code ready} at once if {@code gsn} was applied, else when it is (or {@code timedOut} after a while). */
    void await(long gsn, Runnable ready, Runnable timedOut) {
        if (gsn <= applied) {
            ready.run();
            return;
        }
        Waiter w = new Waiter(ready, timedOut);
        synchronized (this) {
            if (gsn > applied && !closed) {
                waiting.computeIfAbsent(gsn, g -> new ArrayList<>()).add(w);
                w.timeout = timers.schedule(() -> expire(gsn, w), MAX_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                return;
            }
        }
        if (gsn <= applied) w.ready();
        else w.timedOut(); // closed
    }

    /** The instance has applied every gsn up to {@code gsn}: requests waiting for it go on. */
    void advance(long gsn) {
        List<Waiter> go = new ArrayList<>();
        synchronized (this) {
            if (gsn <= applied) return;
            applied = gsn;
            Map<Long, List<Waiter>> due = waiting.headMap(gsn, true);
            for (List<Waiter> ws : due.values()) go.addAll(ws);
            due.clear();
        }
        for (Waiter w : go) w.ready();
    }

    private void expire(long gsn, Waiter w) {
        synchronized (this) {
            List<Waiter> ws = waiting.get(gsn);
            if (ws != null && ws.remove(w) && ws.isEmpty()) waiting.remove(gsn);
        }
        w.timedOut();
    }

    /** Stops waiting: every parked request times out now. */
    @Override
    public void close() {
        List<Waiter> all = new ArrayList<>();
        synchronized (this) {
            closed = true;
            for (List<Waiter> ws : waiting.values()) all.addAll(ws);
            waiting.clear();
        }
        for (Waiter w : all) w.timedOut();
    }
}
