package dev.gyro.runtime.db;

import java.sql.SQLException;

/**
 * A request's transaction that did not commit because the time its client waits for the answer had passed
 * (docs/decisions/37-request-ids.md): an instance never commits a request behind the back of a client that gave up on
 * it. Thrown before the commit, so the transaction rolled back and nothing of it is in the database.
 */
public final class DeadlinePassedException extends SQLException {

    /** SQLState of a timeout (SQL:2016 class HY, as ODBC's HYT00): neither a lost race nor an unreachable database. */
    public static final String SQL_STATE = "HYT00";

    /** A deadline that never passes: the caller waits as long as the database's own limits allow. */
    public static final long NONE = Long.MAX_VALUE;

    public DeadlinePassedException(String message) {
        super(message, SQL_STATE);
    }

    /**
     * @param deadlineNanos a {@link System#nanoTime()} value, or {@link #NONE}
     * @throws DeadlinePassedException when it has passed; {@code what} says what was not done
     */
    public static void check(long deadlineNanos, String what) throws DeadlinePassedException {
        if (deadlineNanos == NONE) return;
        long late = System.nanoTime() - deadlineNanos;
        if (late >= 0)
            throw new DeadlinePassedException(what + ": its client's deadline passed " + late / 1_000_000 + " ms ago");
    }

    /** Milliseconds left until {@code deadlineNanos} (at least 0), or -1 for {@link #NONE}. */
    public static long millisLeft(long deadlineNanos) {
        if (deadlineNanos == NONE) return -1;
        return Math.max(0, (deadlineNanos - System.nanoTime()) / 1_000_000);
    }
}
