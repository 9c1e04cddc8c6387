package dev.gyro.runtime.wan;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one instance's links to its peers cost: nothing ({@link #NONE}, a LAN), or the emulated one-way delay of
 * each link under a {@link Wan.Placement} (benchmarks). Every message this instance sends to a peer (belt messages,
 * requests it forwards) goes through {@link #send}; the replies to the requests it forwarded come back through
 * {@link #receive}.
 *
 * <p>Emulated delays hold no thread per message: one scheduler thread per instance hands each message on when its
 * link's delay has passed. Messages of one link leave in the order they were given: the link's delay is a
 * constant, so their due times follow the order of hand-over on the monotonic clock, and the scheduler runs tasks
 * due at the same time in submission order. (What gRPC does with two calls in flight on one channel is as on a
 * LAN: the Conveyor Belt does not rely on their order.)
 *
 * <p>With WAN emulation off, {@link #NONE} runs each action at once on the caller's thread: no scheduler, no
 * thread, no branch on the message path (STYLE.md: a feature switched off is a no-op object).
 */
public abstract class LinkDelay implements AutoCloseable {

    /** A LAN: every action runs at once, on the calling thread. */
    public static final LinkDelay NONE = new LinkDelay() {
        @Override
        public void send(int to, Runnable transmit) {
            transmit.run();
        }

        @Override
        public void receive(int from, Runnable deliver) {
            deliver.run();
        }

        @Override
        public boolean emulated() {
            return false;
        }

        @Override
        public long delayed() {
            return 0;
        }

        @Override
        public void close() {}
    };

    private LinkDelay() {}

    /**
     * The links of instance {@code self} under {@code placement}: {@link #NONE} when the placement's WAN is
     * {@link Wan#OFF}, else a scheduler thread named {@code gyro-SELF-wan}.
     */
    public static LinkDelay of(int self, Wan.Placement placement) {
        if (!placement.emulated()) return NONE;
        placement.siteOf(self); // fails with the exact problem when self is not placed
        return new Emulated(self, placement);
    }

    /** Runs {@code transmit} (which sends one message to instance {@code to}) once the link's delay has passed. */
    public abstract void send(int to, Runnable transmit);

    /**
     * Runs {@code deliver} (which hands on a reply that instance {@code from} sent back) once the link's delay has
     * passed.
     */
    public abstract void receive(int from, Runnable deliver);

    /** False for {@link #NONE}. */
    public abstract boolean emulated();

    /** How many messages have been delayed so far (0 for {@link #NONE}). */
    public abstract long delayed();

    /**
     * Stops delaying: what is still under way, and whatever comes after, runs at once. Call it once the links'
     * channels are closed, so those sends fail instead of arriving early.
     */
    @Override
    public abstract void close();

    private static final class Emulated extends LinkDelay {

        private static final Logger log = LoggerFactory.getLogger(LinkDelay.class);

        private final int self;
        private final long[] oneWayNanos; // per peer instance
        private final ScheduledThreadPoolExecutor scheduler;
        private final AtomicLong delayed = new AtomicLong();

        Emulated(int self, Wan.Placement placement) {
            this.self = self;
            this.oneWayNanos = new long[placement.instances()];
            for (int i = 0; i < oneWayNanos.length; i++) oneWayNanos[i] = placement.oneWay(self, i).toNanos();
            this.scheduler = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "gyro-" + self + "-wan");
                t.setDaemon(true);
                return t;
            });
        }

        @Override
        public void send(int to, Runnable transmit) {
            later(to, transmit);
        }

        @Override
        public void receive(int from, Runnable deliver) {
            later(from, deliver); // the placement is symmetric: from -> self costs what self -> from does
        }

        private void later(int peer, Runnable action) {
            delayed.incrementAndGet();
            try {
                scheduler.schedule(() -> run(action), oneWayNanos[peer], TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                run(action); // closed: see close()
            }
        }

        private void run(Runnable action) {
            try {
                action.run();
            } catch (RuntimeException e) {
                log.warn("instance {}: a message to or from a peer failed after its delay: {}", self, e.toString());
            }
        }

        @Override
        public boolean emulated() {
            return true;
        }

        @Override
        public long delayed() {
            return delayed.get();
        }

        @Override
        public void close() {
            // What is still under way runs now, once the links are closed (PeerLinks closes its channels first):
            // sends fail at once, and a reply a caller awaits from a peer is handed on now (or fails), so no caller
            // of a stopping instance waits forever. After shutdown() new hand-overs are refused, so later() runs
            // them at once; the tasks taken off the queue still run when asked (the default policy keeps delayed
            // tasks runnable after shutdown). drainTo would take only the tasks already due, hence remove().
            scheduler.shutdown();
            List<Runnable> pending = new ArrayList<>();
            for (Runnable task : scheduler.getQueue().toArray(new Runnable[0]))
                if (scheduler.getQueue().remove(task)) pending.add(task);
            pending.sort((a, b) -> ((Delayed) a).compareTo((Delayed) b)); // by due time, then hand-over order
            for (Runnable task : pending) task.run();
        }
    }
}
