package dev.gyro.runtime;

import dev.gyro.driver.Stopping;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.OrderedCommits;
import dev.gyro.runtime.hook.TransactionGate;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.LongFunction;

/**
 * Schedules the global requests of one round on the global threads: which run one after another (a conflict class,
 * a chain) and which side by side, each chain in one slot of the transaction gate, and local requests held from the
 * token's arrival until the round's first requests are in their slots (paper Section VII-C). The gate itself is a
 * hook ({@link TransactionGate}: the capacity emulator in benchmarks, nothing in production).
 *
 * <p>Threads: {@link #one}, {@link #round} and {@link #holdLocals} on the belt loop, which they never block; the
 * chains run on the global threads; {@link #releaseLocals} from any thread.
 */
final class RoundScheduler implements AutoCloseable {

    /** Runs one request of a chain on its global thread, in its {@link Turn}. */
    interface Runner {
        void run(long requestId, Turn turn);
    }

    private final TransactionGate gate;
    private final ExecutorService threads;
    private final boolean byConflictClass;
    private final LongFunction<List<Value>> partitionOf;
    private final Consumer<Throwable> failStop;
    private final AtomicReference<TransactionGate.Hold> held = new AtomicReference<>();

    /**
     * @param byConflictClass requests of an equal first partitioning value run one after another ({@link OrderedCommits})
     * @param partitionOf     a waiting request's partitioning values (empty if it is not known)
     * @param failStop        stops the instance when a request cannot be run (the belt waits for its report)
     */
    RoundScheduler(TransactionGate gate, ExecutorService threads, boolean byConflictClass,
                   LongFunction<List<Value>> partitionOf, Consumer<Throwable> failStop) {
        this.gate = gate;
        this.threads = threads;
        this.byConflictClass = byConflictClass;
        this.partitionOf = partitionOf;
        this.failStop = failStop;
    }

    /**
     * The token arrived where global requests wait, and its updates are about to be applied: local requests are held
     * back from now until the round's first requests are in their slots ({@link TransactionGate#holdLocals()}), so
     * that the transactions in service finish while the updates are applied.
     */
    void holdLocals() {
        TransactionGate.Hold before = held.getAndSet(gate.holdLocals());
        if (before != null) before.close();
    }

    /** Lets local requests in again, if {@link #holdLocals()} held them. Any number of times. */
    void releaseLocals() {
        TransactionGate.Hold h = held.getAndSet(null);
        if (h != null) h.close();
    }

    /** One request at a time ({@code Action.ExecuteGlobal}). Does not wait for it. */
    void one(long requestId, Runner runner) {
        start(List.of(requestId), runner, new AtomicInteger(1));
    }

    /** The whole round at once ({@code Action.ExecuteGlobals}), a chain per conflict class. Does not wait for it. */
    void round(List<Long> requestIds, Runner runner) {
        Collection<List<Long>> chains = conflictClasses(requestIds);
        AtomicInteger firstWave = new AtomicInteger(chains.size()); // the requests that start at once
        for (List<Long> chain : chains) start(chain, runner, firstWave);
    }

    /**
     * The round split by conflict class: requests of an equal first partitioning value (the same warehouse, the same
     * item) almost always touch the same rows, so under {@link OrderedCommits} they would only abort each other or
     * deadlock on their commit order. The first value is the one that chose this instance as the request's owner
     * (a local-or-global request runs where its first key lives, decision 7), where the rows it reads and then
     * writes are: a new order's district, a payment's customer, a bid's item. Each class runs one request after
     * another, in the belt's order; classes run side by side (conflict-aware scheduling;
     * docs/decisions/20-postgres-ordered-commits.md). Serializability does not rest on this: requests of different
     * classes that do conflict are still ordered by {@link OrderedCommits}. Where the DBMS orders commits itself
     * (MariaDB), every request is a class of its own.
     */
    private Collection<List<Long>> conflictClasses(List<Long> ids) {
        if (!byConflictClass) return ids.stream().map(List::of).toList();
        Map<List<Value>, List<Long>> classes = new LinkedHashMap<>();
        for (long id : ids) {
            List<Value> key = partitionOf.apply(id);
            if (key.size() > 1) key = key.subList(0, 1);
            classes.computeIfAbsent(key, k -> new ArrayList<>()).add(id);
        }
        return classes.values();
    }

    /**
     * Runs {@code ids} one after another on one global thread, all in one slot of the transaction gate
     * ({@link ChainSlot}); the first of them, once in its slot (or failed), counts {@code firstWave} down, and the last
     * of the wave lets local requests in again.
     */
    private void start(List<Long> ids, Runner runner, AtomicInteger firstWave) {
        try {
            threads.execute(() -> {
                try (ChainSlot slot = new ChainSlot()) {
                    for (int i = 0; i < ids.size(); i++) {
                        long id = ids.get(i);
                        Runnable entered = i > 0 ? () -> {} : () -> {
                            if (firstWave.decrementAndGet() == 0) releaseLocals();
                        };
                        try {
                            runner.run(id, new Turn(slot, entered, i == ids.size() - 1));
                        } catch (RuntimeException | Error e) { // the belt waits for this request's report: fail-stop
                            failStop.accept(new IllegalStateException("global request " + id
                                    + " could not be executed: " + e, e));
                            return;
                        }
                    }
                }
            });
        } catch (RejectedExecutionException e) {
            throw new Stopping();
        }
    }

    /** One request's turn in its chain's slot. Used on the chain's global thread only. */
    static final class Turn {
        private final ChainSlot slot;
        private final Runnable entered;
        private final boolean last;

        private Turn(ChainSlot slot, Runnable entered, boolean last) {
            this.slot = slot;
            this.entered = entered;
            this.last = last;
        }

        /**
         * Waits for the chain's slot (its first request) or serves next in it; the slot is held for every attempt.
         *
         * @throws InterruptedException when interrupted (then {@link #abandon()})
         */
        void enter() throws InterruptedException {
            slot.enter(entered);
        }

        /** The request is over: the last of its chain lets the slot go. */
        void over() {
            if (last) slot.close();
        }

        /** The request was never entered (nothing to run): counted as entered, and over. */
        void skip() {
            entered.run();
            over();
        }

        /** The instance is stopping: the slot is let go at once. */
        void abandon() {
            slot.close();
        }
    }

    /**
     * The gate's slot that a conflict class keeps from one request to the next ({@link TransactionGate.Slot#serveNext}):
     * the next request starts only once the one before committed, so it cannot wait ahead of the local requests
     * meanwhile, and would find the slot it frees taken by one of them.
     */
    private final class ChainSlot implements AutoCloseable {
        private TransactionGate.Slot slot;

        void enter(Runnable entered) throws InterruptedException {
            try {
                if (slot == null) slot = gate.enterAhead();
                else slot.serveNext();
            } finally {
                entered.run();
            }
        }

        @Override
        public void close() {
            if (slot != null) slot.close();
            slot = null;
        }
    }

    /** Stops: local requests are let in, running requests interrupted. */
    @Override
    public void close() {
        releaseLocals();
        threads.shutdownNow();
    }
}
