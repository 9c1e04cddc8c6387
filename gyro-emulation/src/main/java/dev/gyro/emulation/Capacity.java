package dev.gyro.emulation;

import dev.gyro.runtime.hook.TransactionGate;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Capacity emulation for benchmarks (docs/benchmark-method.md): gives one database instance the capacity of a
 * small server, so that on this 2-core machine N instances can show N times the capacity of one. Every transaction
 * a client request runs on the instance's database (a Gyro instance's local and global requests, the centralized
 * baseline's transactions) first takes one of {@code concurrency} slots, then holds it for {@code serviceMillis}
 * (the fixed per-transaction execution time of the paper's micro-benchmark, Section VII-B: 5 ms) and for the
 * transaction itself. The service time is spent before the DBMS transaction begins, so it holds no database lock:
 * it stands for the server's CPU work, not for lock contention the real server would not have.
 *
 * <p>Applying other instances' state updates is not charged: the paper's micro-benchmark charges its 5 ms to the
 * operation, and an update is row images, not the operation run again.
 *
 * <p>Waiting transactions are served in arrival order, except that {@link #enterAhead()} (a global request the
 * token holder runs) goes before every waiting {@link #enter()}: the paper's Gyro "holds local operations only for a
 * short period of time when a server has the token and executes global operations" (Section VII-C). Served in plain
 * arrival order, a global request waited behind every queued local one while the token, and with it every other
 * instance's global requests, waited for it: at 128 TPC-W clients on 2 instances, a p99 of 5.8 s. And while a
 * {@link #holdLocals()} is open no {@link #enter()} is let in at all (the runtime holds them from the token's arrival
 * until its global requests are in); and a slot that served a global request serves the next one of its conflict class
 * ({@link Slot#serveNext()}), which could not be waiting ahead while its predecessor ran.
 *
 * <p>{@link #PLAIN} emulates nothing: the machine's own capacity, shared by every instance.
 */
public final class Capacity implements TransactionGate {

    /** No emulation: transactions run at once, with no added service time. */
    public static final Capacity PLAIN = new Capacity(0, 0);

    private final int concurrency;
    private final long serviceMillis;
    private final Slots slots;
    private final AtomicInteger inService = new AtomicInteger();
    private final AtomicInteger mostInService = new AtomicInteger();
    private final AtomicLong served = new AtomicLong();
    private final AtomicLong busyNanos = new AtomicLong();

    private Capacity(int concurrency, long serviceMillis) {
        this.concurrency = concurrency;
        this.serviceMillis = serviceMillis;
        this.slots = concurrency > 0 ? new Slots(concurrency) : null;
    }

    /**
     * One instance's emulated server. Each instance needs its own: the slots are that server's.
     *
     * @param concurrency   transactions served at once (at least 1)
     * @param serviceMillis fixed service time per transaction (0 or more)
     */
    public static Capacity of(int concurrency, long serviceMillis) {
        if (concurrency < 1) throw new IllegalArgumentException("capacity needs at least one concurrent transaction");
        if (serviceMillis < 0) throw new IllegalArgumentException("service time must not be negative");
        return new Capacity(concurrency, serviceMillis);
    }

    /** A fresh server of the same size (its own slots and counters): for the next instance. */
    public Capacity copy() {
        return emulated() ? new Capacity(concurrency, serviceMillis) : PLAIN;
    }

    public boolean emulated() {
        return slots != null;
    }

    public int concurrency() {
        return concurrency;
    }

    public long serviceMillis() {
        return serviceMillis;
    }

    /** For results: what every database instance was given. */
    public String describe() {
        return emulated() ? "capacity emulation: each database instance serves " + concurrency
                + " transaction(s) at a time, " + serviceMillis + " ms service time each"
                : "plain: no capacity emulation (all instances share this machine's cores)";
    }

    /** Transactions that went through {@link #enter()}. */
    public long served() {
        return served.get();
    }

    /**
     * Slot time used so far: the nanoseconds from each slot's taking to its freeing (service time and transaction),
     * summed over closed slots. Over a window, its growth divided by {@code concurrency} times the window is the share
     * of the emulated server's capacity in use: how close a system runs to what the servers can serve at all.
     */
    public long busyNanos() {
        return busyNanos.get();
    }

    /** The most transactions that were in service at once. */
    public int mostInService() {
        return mostInService.get();
    }

    /**
     * Waits for a free slot, then spends the service time in it. Run the transaction inside the slot, in
     * try-with-resources. In plain mode returns at once.
     *
     * @throws InterruptedException when interrupted while waiting or serving (no slot is held then)
     */
    @Override
    public Slot enter() throws InterruptedException {
        return enter(false);
    }

    /**
     * As {@link #enter()}, ahead of every transaction waiting in {@link #enter()} (after those already in service,
     * and after other waiters of this method): for the global requests an instance runs while it holds the token.
     */
    @Override
    public Slot enterAhead() throws InterruptedException {
        return enter(true);
    }

    private Slot enter(boolean ahead) throws InterruptedException {
        if (slots == null) return Slot.NOTHING;
        slots.acquire(ahead);
        int now = inService.incrementAndGet();
        mostInService.accumulateAndGet(now, Math::max);
        served.incrementAndGet();
        long taken = System.nanoTime();
        Slot slot = new Slot() {
            private boolean closed;

            @Override
            public void close() {
                if (closed) return;
                closed = true;
                busyNanos.addAndGet(System.nanoTime() - taken);
                inService.decrementAndGet();
                slots.release();
            }

            @Override
            public void serveNext() throws InterruptedException {
                if (closed) throw new IllegalStateException("this slot was let go: enter again");
                served.incrementAndGet();
                if (serviceMillis > 0) Thread.sleep(serviceMillis);
            }
        };
        try {
            if (serviceMillis > 0) Thread.sleep(serviceMillis);
        } catch (InterruptedException e) {
            slot.close();
            throw e;
        }
        return slot;
    }

    /**
     * Keeps every {@link #enter()} waiting until the hold is closed, while {@link #enterAhead()} goes on: the token
     * holder's global requests find the slots that free up meanwhile. In plain mode holds nothing.
     */
    @Override
    public Hold holdLocals() {
        if (slots == null) return Hold.NOTHING;
        slots.hold(+1);
        AtomicBoolean open = new AtomicBoolean(true);
        return () -> {
            if (open.compareAndSet(true, false)) slots.hold(-1);
        };
    }

    @Override
    public String toString() {
        return describe();
    }

    /**
     * The emulated server's slots: two FIFO lanes, the one ahead served first whenever a slot frees. A waiter that is
     * interrupted leaves its lane, so it never holds up those behind it.
     */
    private static final class Slots {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private final ArrayDeque<Object> ahead = new ArrayDeque<>(), behind = new ArrayDeque<>();
        private int free;
        private int holds; // open holdLocals(): the lane behind waits while any is open

        Slots(int concurrency) {
            this.free = concurrency;
        }

        void acquire(boolean first) throws InterruptedException {
            Object me = new Object();
            lock.lock();
            try {
                ArrayDeque<Object> lane = first ? ahead : behind;
                lane.addLast(me);
                try {
                    while (free == 0 || lane.peekFirst() != me || (!first && (!ahead.isEmpty() || holds > 0)))
                        changed.await();
                } catch (InterruptedException e) {
                    lane.remove(me);
                    changed.signalAll(); // the next in line may be free to go now
                    throw e;
                }
                lane.removeFirst();
                free--;
                changed.signalAll(); // with another slot free, the next in line may go too
            } finally {
                lock.unlock();
            }
        }

        void hold(int change) {
            lock.lock();
            try {
                holds += change;
                if (holds == 0) changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        void release() {
            lock.lock();
            try {
                free++;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }
}
