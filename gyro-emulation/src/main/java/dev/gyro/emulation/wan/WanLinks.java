package dev.gyro.emulation.wan;

import dev.gyro.runtime.hook.LinkDelay;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The links of one instance on an emulated WAN ({@link Wan.Placement}, benchmarks): every message to a peer, and
 * every reply from one, is handed on after its link's one-way delay. Plugged into an instance as its
 * {@link LinkDelay} ({@link #factory}); with WAN emulation off it is {@link LinkDelay#NONE}, which runs each action
 * at once on the caller's thread: no scheduler, no thread, nothing on the message path.
 *
 * <p>Emulated delays hold no thread per message: one scheduler thread per instance hands each message on when its
 * link's delay has passed. Messages of one link leave in the order they were given: the link's delay is a
 * constant, so their due times follow the order of hand-over on the monotonic clock, and the scheduler runs tasks
 * due at the same time in submission order. (What gRPC does with two calls in flight on one channel is as on a
 * LAN: the Conveyor Belt does not rely on their order.)
 */
public final class WanLinks {

    private WanLinks() {}

    /**
     * The links of instance {@code self} under {@code placement}: {@link LinkDelay#NONE} when the placement's WAN is
     * {@link Wan#OFF}, else a scheduler thread named {@code gyro-SELF-wan}.
     */
    public static LinkDelay of(int self, Wan.Placement placement) {
        if (!placement.emulated()) return LinkDelay.NONE;
        placement.siteOf(self); // fails with the exact problem when self is not placed
        return new Emulated(self, placement);
    }

    /** Makes each instance's links under {@code placement}, as it starts. */
    public static LinkDelay.Factory factory(Wan.Placement placement) {
        return self -> of(self, placement);
    }

    /** How many messages {@code links} has delayed so far (0 for {@link LinkDelay#NONE}). */
    public static long delayed(LinkDelay links) {
        return links instanceof Emulated e ? e.delayed.get() : 0;
    }

    private static final class Emulated implements LinkDelay {

        private static final Logger log = LoggerFactory.getLogger(WanLinks.class);

        private final int self;
        private final Wan.Placement placement;
        private final long[] oneWayNanos; // per peer instance
        private final ScheduledThreadPoolExecutor scheduler;
        private final AtomicLong delayed = new AtomicLong();

        Emulated(int self, Wan.Placement placement) {
            this.self = self;
            this.placement = placement;
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
        public java.time.Duration oneWay(int peer) {
            return java.time.Duration.ofNanos(oneWayNanos[peer]);
        }

        @Override
        public java.util.Map<String, Object> status() {
            return java.util.Map.of("site", placement.siteOf(self).abbreviation(), "wanDelayed", delayed.get());
        }

        @Override
        public String toString() {
            return "instance " + self + " at " + placement.siteOf(self).displayName() + " ("
                    + placement.siteOf(self).abbreviation() + "): WAN emulation, " + placement;
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
