package dev.gyro.runtime.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Commit ordering made on PostgreSQL, whose serializable isolation (SSI) does not give it on its own
 * (docs/decisions/06-commit-ordering.md and docs/decisions/20-postgres-ordered-commits.md): global requests run
 * concurrently, and yet a request that commits after another is serialized after it, so the gsn order, which is the
 * commit order, is a serialization order (paper, Appendix B).
 *
 * <p>How. Every attempt gets a position, increasing, when it {@link #begin}s, and a slot: one of {@code slots}
 * single-row tables {@code gyro_slot_S}, which its first statement writes. Before it commits ({@link #beforeCommit})
 * it (1) waits until every running attempt of a lower position ended, through a PostgreSQL advisory lock each attempt
 * holds for its lifetime, so the positions commit in order and a wait that closes a cycle with row locks is a
 * deadlock PostgreSQL detects and breaks; and (2) reads the slot tables of every running attempt of a higher position.
 * Those writes are invisible to its snapshot, so the read is an rw-antidependency from the earlier attempt to each
 * later one: were a later attempt B to have read what the earlier A wrote without seeing it (B rw-> A, the order that
 * breaks commit ordering), the two edges form a cycle, and SSI aborts one of them (SQLSTATE 40001, retried as a new
 * attempt with a new position). Starts are excluded from step (2) until the commit ends, so no attempt begins
 * unseen between an earlier one's read and its commit.
 *
 * <p>Why slot tables and not rows: PostgreSQL takes a relation-level predicate lock for a scan of a tiny table, and a
 * row-level one may be promoted to the page; one table per slot keeps the artificial edges exactly the intended ones.
 */
public final class OrderedCommits {

    /** Advisory lock key space of Gyro's commit positions (the first of the two int keys). */
    static final int LOCK_SPACE = 0x67790001;

    /** The longest wait for a row lock while an attempt runs; see {@link #begin}. */
    static final int LOCK_WAIT_MILLIS = 250;

    private final int slots;
    private final TreeMap<Long, Integer> running = new TreeMap<>(); // position -> slot
    private final boolean[] slotTaken;
    private long next = 1;
    private long committer; // the position between its read of the higher slots and its commit, or 0
    private long soloist; // the position running alone, or 0
    private int aloneWaiting; // attempts waiting to run alone: no other starts until they have

    /** One attempt of one request: its position and slot. */
    public record Attempt(long position, int slot) {}

    public OrderedCommits(int slots) {
        if (slots < 1) throw new IllegalArgumentException("slots must be positive");
        this.slots = slots;
        this.slotTaken = new boolean[slots];
    }

    /** The tables the slots need; idempotent. */
    public void createTables(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            for (int s = 0; s < slots; s++) {
                st.execute("CREATE TABLE IF NOT EXISTS " + table(s) + " (v BIGINT NOT NULL)");
                st.execute("INSERT INTO " + table(s) + " (v) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM " + table(s) + ")");
            }
        }
    }

    static String table(int slot) {
        return "gyro_slot_" + slot;
    }

    /**
     * Starts an attempt on {@code c} (a serializable transaction that has run no statement yet: this takes its
     * snapshot). Waits while every slot is taken.
     */
    public Attempt begin(Connection c) throws SQLException, InterruptedException {
        return begin(c, false);
    }

    /**
     * As {@link #begin(Connection)}; an {@code alone} attempt waits until no other runs, none starts while it waits,
     * and none until it ended: how a request that lost a race runs again, so that it cannot lose the same race to
     * other globals forever (it may still lose one to a local request, as any transaction can).
     */
    public Attempt begin(Connection c, boolean alone) throws SQLException, InterruptedException {
        long position;
        int slot;
        synchronized (this) {
            if (alone) aloneWaiting++;
            try {
                while ((slot = freeSlot(alone)) < 0 || (alone && !running.isEmpty())) wait();
            } finally {
                if (alone) {
                    aloneWaiting--;
                    notifyAll();
                }
            }
            if (alone) soloist = next;
            position = next++;
            slotTaken[slot] = true;
            try (Statement st = c.createStatement()) {
                // First the lock (held until this transaction ends), then the slot write, both before anyone of a
                // higher position exists, so a later attempt always finds both.
                // A lower position that waits for a row lock of a higher one waits for an attempt that cannot
                // commit before it: a deadlock PostgreSQL finds only after deadlock_timeout (1 s by default, and
                // only a superuser may lower it), while the token waits. A bounded wait breaks it sooner (55P03,
                // retried); a request waiting as long on a local request's lock just runs again.
                // One round trip for the three (the driver sends them together, the server runs them in order): this
                // runs while other attempts wait to begin, on the token's path.
                st.execute("SELECT pg_advisory_xact_lock(" + LOCK_SPACE + ", " + (int) position + "); UPDATE "
                        + table(slot) + " SET v = " + position + "; SET LOCAL lock_timeout = '" + LOCK_WAIT_MILLIS
                        + "ms'");
            } catch (SQLException e) {
                slotTaken[slot] = false;
                if (soloist == position) soloist = 0;
                notifyAll();
                throw e;
            }
            running.put(position, slot);
        }
        return new Attempt(position, slot);
    }

    /**
     * Waits until every lower position ended, then reads the slots of the higher running ones. From here until
     * {@link #end} no attempt starts: the caller must commit (or roll back) and call {@link #end} at once.
     */
    public void beforeCommit(Connection c, Attempt a) throws SQLException {
        List<Long> lower;
        synchronized (this) {
            lower = new ArrayList<>(running.headMap(a.position(), false).keySet());
        }
        // The wait for the lower positions is as long as they run; a lock returns at once for an attempt that ended
        // meanwhile. One round trip for all of them, run in order.
        StringBuilder wait = new StringBuilder("SET LOCAL lock_timeout = 0");
        for (long p : lower) wait.append("; SELECT pg_advisory_xact_lock_shared(").append(LOCK_SPACE).append(", ")
                .append((int) p).append(")");
        try (Statement st = c.createStatement()) {
            st.execute(wait.toString());
        }
        List<Integer> higher;
        synchronized (this) {
            while (committer != 0) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new SQLException("interrupted before commit", e);
                }
            }
            committer = a.position();
            higher = new ArrayList<>(running.tailMap(a.position(), false).values());
        }
        if (higher.isEmpty()) return;
        StringBuilder read = new StringBuilder();
        for (int s : higher) read.append(read.length() == 0 ? "" : " UNION ALL ").append("SELECT v FROM ").append(table(s));
        try (Statement st = c.createStatement()) {
            st.executeQuery(read.toString()).close();
        }
    }

    /** The attempt committed or rolled back: its slot is free, and starts may go on. */
    public synchronized void end(Attempt a) {
        running.remove(a.position());
        slotTaken[a.slot()] = false;
        if (committer == a.position()) committer = 0;
        if (soloist == a.position()) soloist = 0;
        notifyAll();
    }

    private int freeSlot(boolean alone) {
        if (committer != 0) return -1; // a start now could slip between an earlier attempt's read and its commit
        if (soloist != 0) return -1;
        // An attempt waiting to run alone goes first: were other attempts to start meanwhile, it would wait for every
        // other conflict class's whole chain, the token waiting with it (the simulator's model serves starts in the
        // order asked, SimOrderedCommits).
        if (!alone && aloneWaiting > 0) return -1;
        for (int s = 0; s < slots; s++) if (!slotTaken[s]) return s;
        return -1;
    }
}
