package dev.gyro.runtime;

import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.runtime.db.BucketCopy;
import dev.gyro.wire.RoutingTable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * The buckets this instance owns, and their cutover when a move takes some away (docs/decisions/43-bucket-moves.md).
 * A request of a bucket it owns enters here before it runs and leaves when answered. A move copies the buckets' rows
 * while they stay open ({@link #copying}), then closes them (a request arriving then is parked, and handled again
 * when the move ends, by the map then in force), waits until the requests inside have left, reads what changed since
 * the copy, and commits it with the new map, so no request of a moving bucket runs at the old owner after the
 * catch-up was read. Between the two, the updates applied here are noted ({@link #touched}): the rows they wrote go
 * again at the cutover.
 *
 * <p>Also the map's own state: the routing table routes by the newest map this database holds, and {@link #mapGsn}
 * is the gsn that made it, which a request forwarded from here carries so that its receiver routes it by a map at
 * least as new.
 *
 * <p>Threads: any. A request's way in and out is two atomic counts and a read of its bucket's flag, with no lock:
 * it is on every local request's path. The lock is a move's: it closes and opens buckets and parks the requests that
 * find theirs closed. A request counts itself inside before it looks at the flag, and a move sets the flag before it
 * counts who is inside, so one of them always sees the other.
 */
final class Buckets {

    private final int self;
    private final RoutingTable routing;
    private final java.util.concurrent.atomic.AtomicIntegerArray inside;
    private final java.util.concurrent.atomic.AtomicIntegerArray closed; // 1 while a move has the bucket closed
    private final List<Runnable> parked = new ArrayList<>();
    private volatile long mapGsn;
    private int closedNow; // guarded by this
    private long movedAway; // guarded by this
    /** The move in progress here (one at a time), or null. */
    private Moving moving; // guarded by this
    /** The copy of the move in progress, read without the lock on every global's commit ({@link #touched}). */
    private volatile BucketCopy noting;
    private long rowsMoved; // guarded by this
    private final java.util.Map<String, String> tables;

    /** @param tables the classification's partitioned tables: table to the column holding its rows' partitioning value */
    Buckets(int self, RoutingTable routing, long mapGsn, java.util.Map<String, String> tables) {
        this.self = self;
        this.routing = routing;
        this.tables = tables;
        this.inside = new java.util.concurrent.atomic.AtomicIntegerArray(routing.map().buckets());
        this.closed = new java.util.concurrent.atomic.AtomicIntegerArray(routing.map().buckets());
        this.mapGsn = mapGsn;
    }

    /** Which rows belong to a bucket: table to the column holding its rows' partitioning value; empty if unknown. */
    java.util.Map<String, String> tables() {
        return tables;
    }

    /** The map in force. */
    PartitionMap map() {
        return routing.map();
    }

    /** The gsn of the move that made the map in force (0: the ring's first map). */
    long mapGsn() {
        return mapGsn;
    }

    /**
     * A request of {@code bucket} is about to run here: true if it entered (it must {@link #leave} once answered), false
     * if a move has the bucket closed, and then {@code again} runs once the move ended, or if the bucket moved away
     * since the request was routed, and then {@code again} runs at once.
     */
    boolean enter(int bucket, Runnable again) {
        while (true) {
            inside.incrementAndGet(bucket);
            if (closed.get(bucket) == 0) {
                if (routing.map().ownerOfBucket(bucket) == self) return true;
                leave(bucket);
                again.run(); // moved away since it was routed: routed again
                return false;
            }
            leave(bucket);
            synchronized (this) {
                if (closed.get(bucket) != 0) {
                    parked.add(again); // open() runs it, under this lock's next release
                    return false;
                }
            } // opened meanwhile: in again
        }
    }

    /** As {@link #enter}, for a caller that runs the request otherwise when it cannot enter now: never parks it. */
    boolean tryEnter(int bucket) {
        inside.incrementAndGet(bucket);
        if (closed.get(bucket) == 0 && routing.map().ownerOfBucket(bucket) == self) return true;
        leave(bucket);
        return false;
    }

    /**
     * A global request of {@code bucket} is about to run on a global thread: waits while a move has the bucket closed;
     * true if it entered (this instance still owns the bucket; {@link #leave} after), false if the bucket moved away.
     */
    boolean enterOwned(int bucket) throws InterruptedException {
        while (true) {
            synchronized (this) {
                while (closed.get(bucket) != 0) wait();
            }
            inside.incrementAndGet(bucket);
            if (closed.get(bucket) != 0) { // closed again meanwhile
                leave(bucket);
                continue;
            }
            if (routing.map().ownerOfBucket(bucket) == self) return true;
            leave(bucket);
            return false;
        }
    }

    void leave(int bucket) {
        if (inside.decrementAndGet(bucket) == 0 && closed.get(bucket) != 0) {
            synchronized (this) {
                notifyAll(); // a move waits for the bucket to empty
            }
        }
    }

    /**
     * Closes {@code buckets} and waits until the requests inside have left.
     *
     * @throws TimeoutException when they have not within {@code timeoutMillis}; the buckets are open again
     */
    void close(int[] buckets, int to, long timeoutMillis) throws TimeoutException, InterruptedException {
        synchronized (this) {
            for (int b : buckets) closed.set(b, 1);
            closedNow += buckets.length;
            if (moving == null) moving = new Moving(buckets, to, null);
            moving.phase = Phase.CUT_OVER;
            long until = System.nanoTime() + timeoutMillis * 1_000_000;
            try {
                for (int b : buckets) {
                    while (inside.get(b) > 0) {
                        long left = until - System.nanoTime();
                        if (left <= 0) {
                            open(buckets, null, 0);
                            throw new TimeoutException("the requests running in bucket " + b + " did not finish within "
                                    + timeoutMillis + " ms (" + inside.get(b) + " still running)");
                        }
                        wait(Math.max(1, left / 1_000_000));
                    }
                }
            } catch (InterruptedException e) {
                open(buckets, null, 0);
                throw e;
            }
        }
    }

    /**
     * Opens {@code buckets} again: with the map {@code newer} (committed at {@code gsn}) in force from now on, or as
     * they were when the move failed ({@code newer} null). The requests parked meanwhile are handled again.
     */
    void open(int[] buckets, PartitionMap newer, long gsn) {
        List<Runnable> again;
        synchronized (this) {
            if (newer != null) {
                adopt(newer, gsn);
                movedAway += buckets.length;
            }
            for (int b : buckets) closed.set(b, 0);
            closedNow -= buckets.length;
            moving = null;
            noting = null;
            notifyAll();
            again = new ArrayList<>(parked);
            parked.clear();
        }
        for (Runnable r : again) r.run();
    }

    /** A move's phases at its old owner, as the status and the metrics name them. */
    enum Phase {
        COPYING("copying"), CATCHING_UP("catching up"), CUT_OVER("cut over");

        final String named;

        Phase(String named) {
            this.named = named;
        }
    }

    /** The move in progress: its buckets, its new owner, its phase, and its copy. */
    private static final class Moving {
        final int[] buckets;
        final int to;
        final BucketCopy copy;
        final java.util.concurrent.atomic.AtomicLong read = new java.util.concurrent.atomic.AtomicLong();
        final java.time.Instant since = java.time.Instant.now();
        Phase phase = Phase.COPYING;
        long copyGsn = -1;

        Moving(int[] buckets, int to, BucketCopy copy) {
            this.buckets = buckets;
            this.to = to;
            this.copy = copy;
        }
    }

    /**
     * A move of {@code buckets} to instance {@code to} starts its copy: from now on the updates applied here are noted
     * in the copy returned ({@link #touched}), and the status shows its rows as they are read ({@link #reading}).
     *
     * @throws IllegalStateException when a move is in progress here already (one at a time)
     */
    synchronized BucketCopy copying(int[] buckets, int to) {
        if (moving != null)
            throw new IllegalStateException("instance " + self + " is moving buckets "
                    + java.util.Arrays.toString(moving.buckets) + " to instance " + moving.to + " now (" + moving.phase.named
                    + "): one move at a time");
        moving = new Moving(buckets, to, new BucketCopy(tables.keySet()));
        noting = moving.copy;
        return moving.copy;
    }

    /** Where the copy in progress counts the rows it read, for the status. */
    synchronized java.util.concurrent.atomic.AtomicLong reading() {
        return moving == null ? new java.util.concurrent.atomic.AtomicLong() : moving.read;
    }

    /** The copy in progress committed at {@code gsn}: the move catches up until its cutover. */
    synchronized void copied(long gsn) {
        if (moving == null || moving.copy == null) return;
        moving.phase = Phase.CATCHING_UP;
        moving.copyGsn = gsn;
        rowsMoved += moving.copy.rows();
    }

    /** The copy of {@code buckets} to {@code to} committed at {@code gsn}, catching up here; null if there is none. */
    synchronized BucketCopy copy(int[] buckets, int to, long gsn) {
        if (moving == null || moving.phase != Phase.CATCHING_UP || moving.copyGsn != gsn || moving.to != to
                || !java.util.Arrays.equals(moving.buckets, buckets)) return null;
        return moving.copy;
    }

    /** The move in progress ends without a cutover (its copy failed, or it is given up): nothing of it is kept. */
    synchronized void abandon() {
        moving = null;
        noting = null;
    }

    /** {@code rows} more rows left here for their new owners (a cutover's). */
    synchronized void shipped(long rows) {
        rowsMoved += rows;
    }

    /**
     * {@code update} is applied here, or about to commit here: while a move catches up, the rows it writes of the
     * partitioned tables go again at the cutover ({@link BucketCopy#touched}).
     */
    void touched(StateUpdate update) {
        BucketCopy copy = noting;
        if (copy != null) copy.touched(update);
    }

    /** As {@link #touched(StateUpdate)}, for each of {@code updates}. */
    void touched(List<StateUpdate> updates) {
        for (StateUpdate u : updates) touched(u);
    }

    synchronized double closedNow() {
        return closedNow;
    }

    synchronized double movedAway() {
        return movedAway;
    }

    /** The rows moves took from here to their new owners since the instance started: copied and caught up. */
    synchronized double rowsMoved() {
        return rowsMoved;
    }

    /** The phase of the move in progress, for the metrics: 0 none, 1 copying, 2 catching up, 3 cut over. */
    synchronized double movePhase() {
        return moving == null ? 0 : moving.phase.ordinal() + 1;
    }

    /** For the instance's status: the map's version, the buckets owned here, and the move in progress, if any. */
    synchronized java.util.Map<String, Object> status() {
        java.util.Map<String, Object> out = new java.util.LinkedHashMap<>();
        out.put("mapVersion", routing.map().version());
        out.put("bucketsOwned", routing.map().bucketsOf(self).length);
        if (moving != null) {
            java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("buckets", moving.buckets);
            m.put("to", moving.to);
            m.put("phase", moving.phase.named);
            m.put("rowsCopied", moving.copy == null ? 0 : moving.phase == Phase.COPYING ? moving.read.get()
                    : moving.copy.rows());
            m.put("requestsHeld", parked.size()); // parked while the buckets are closed for the cutover
            m.put("since", moving.since.toString());
            out.put("moving", m);
        }
        return out;
    }

    /** Another instance's move, applied here at {@code gsn}: {@code newer} is in force from now on. */
    synchronized void adopt(PartitionMap newer, long gsn) {
        if (routing.adopt(newer)) mapGsn = Math.max(mapGsn, gsn);
    }
}
