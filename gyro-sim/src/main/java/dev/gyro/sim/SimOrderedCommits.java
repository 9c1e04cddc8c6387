package dev.gyro.sim;

import java.util.ArrayDeque;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The runtime's commit ordering on a snapshot-isolated DBMS (docs/decisions.md, decision 20; the runtime's
 * {@code OrderedCommits}), as the simulator models it. An attempt of a global request gets an increasing position and
 * a snapshot of the table when it begins; it commits only after every running attempt of a lower position ended,
 * and from then until it ends no attempt begins. The DBMS aborts an attempt whose snapshot missed a write to a key it
 * read or wrote ({@link SimDatabase#writtenSince}): the cycle that SSI breaks in the real runtime. An attempt that
 * lost runs again alone.
 *
 * <p>An attempt may begin ahead of its round ({@link #beginAhead}, decision 27): until its round {@link #unpark}s it
 * no one waits for it, and then it takes the next position with the snapshot it began with.
 *
 * <p>Waiting is by continuation: {@code later} runs a woken one as a separate simulator event.
 */
final class SimOrderedCommits {

    /** One attempt: its position, the commits its snapshot saw, and the snapshot. */
    record Attempt(long position, long seen, NavigableMap<Long, Long> snapshot) {}

    private record Starting(SimDatabase db, boolean alone, boolean ahead, Consumer<Attempt> then) {}

    private final Consumer<Runnable> later;
    private final TreeSet<Long> running = new TreeSet<>();
    private final TreeSet<Long> parked = new TreeSet<>(); // running, begun ahead, not yet unparked
    private final ArrayDeque<Starting> waitingToBegin = new ArrayDeque<>();
    private final TreeMap<Long, Runnable> waitingToCommit = new TreeMap<>();
    private long next = 1;
    private long committer; // between its turn to commit and its end, or 0
    private long soloist; // the attempt running alone, or 0

    SimOrderedCommits(Consumer<Runnable> later) {
        this.later = later;
    }

    /**
     * Begins an attempt on {@code db} once starts are allowed, in the order asked; an {@code alone} one once no other
     * runs. Its snapshot is taken when it begins.
     */
    void begin(SimDatabase db, boolean alone, Consumer<Attempt> then) {
        waitingToBegin.add(new Starting(db, alone, false, then));
        wake();
    }

    /** As {@link #begin}, ahead of the attempt's round: parked until {@link #unpark}. */
    void beginAhead(SimDatabase db, Consumer<Attempt> then) {
        waitingToBegin.add(new Starting(db, false, true, then));
        wake();
    }

    /** The parked attempt's round came: the next position, its snapshot as it was. */
    Attempt unpark(Attempt a) {
        if (!parked.remove(a.position()) || !running.remove(a.position()))
            throw new IllegalStateException("attempt " + a.position() + " is not parked");
        long position = next++;
        running.add(position);
        return new Attempt(position, a.seen(), a.snapshot());
    }

    /** Runs {@code then} once every lower position ended and no other attempt is committing. */
    void turnToCommit(Attempt a, Runnable then) {
        waitingToCommit.put(a.position(), then);
        wake();
    }

    /** The attempt committed or rolled back. */
    void end(Attempt a) {
        running.remove(a.position());
        parked.remove(a.position());
        waitingToCommit.remove(a.position());
        if (committer == a.position()) committer = 0;
        if (soloist == a.position()) soloist = 0;
        wake();
    }

    private void wake() {
        if (committer == 0 && !waitingToCommit.isEmpty()) {
            long lowest = waitingToCommit.firstKey();
            Long first = running.first();
            while (first != null && parked.contains(first)) first = running.higher(first); // no one waits for those
            if (first != null && first == lowest) {
                committer = lowest;
                later.accept(waitingToCommit.remove(lowest));
                return; // no start until it ends
            }
        }
        while (committer == 0 && soloist == 0 && !waitingToBegin.isEmpty()) {
            if (waitingToBegin.peek().alone() && !running.isEmpty()) return;
            Starting s = waitingToBegin.poll();
            long position = next++;
            if (s.alone()) soloist = position;
            running.add(position);
            if (s.ahead()) parked.add(position);
            Attempt a = new Attempt(position, s.db().commits(), new TreeMap<>(s.db().rows()));
            later.accept(() -> s.then().accept(a));
        }
    }
}
