package dev.gyro.sim;

import java.util.ArrayDeque;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The runtime's commit ordering on a snapshot-isolated DBMS (docs/decisions/20-postgres-ordered-commits.md; the
 * runtime's {@code OrderedCommits}), as the simulator models it. An attempt of a global request gets an increasing
 * position and a snapshot of the table when it begins; it commits only after every running attempt of a lower position
 * ended, and from then until it ends no attempt begins. The DBMS aborts an attempt whose snapshot missed a write to a
 * key it read or wrote ({@link SimDatabase#writtenSince}): the cycle that SSI breaks in the real runtime. An attempt
 * that lost runs again alone.
 *
 * <p>Waiting is by continuation: {@code later} runs a woken one as a separate simulator event.
 */
final class SimOrderedCommits {

    /** One attempt: its position, the commits its snapshot saw, and the snapshot. */
    record Attempt(long position, long seen, NavigableMap<Long, Long> snapshot) {}

    private record Starting(SimDatabase db, boolean alone, Consumer<Attempt> then) {}

    private final Consumer<Runnable> later;
    private final TreeSet<Long> running = new TreeSet<>();
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
        waitingToBegin.add(new Starting(db, alone, then));
        wake();
    }

    /** Runs {@code then} once every lower position ended and no other attempt is committing. */
    void turnToCommit(Attempt a, Runnable then) {
        waitingToCommit.put(a.position(), then);
        wake();
    }

    /** The attempt committed or rolled back. */
    void end(Attempt a) {
        running.remove(a.position());
        waitingToCommit.remove(a.position());
        if (committer == a.position()) committer = 0;
        if (soloist == a.position()) soloist = 0;
        wake();
    }

    private void wake() {
        if (committer == 0 && !waitingToCommit.isEmpty()) {
            long lowest = waitingToCommit.firstKey();
            if (running.first() == lowest) {
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
            Attempt a = new Attempt(position, s.db().commits(), new TreeMap<>(s.db().rows()));
            later.accept(() -> s.then().accept(a));
        }
    }
}
