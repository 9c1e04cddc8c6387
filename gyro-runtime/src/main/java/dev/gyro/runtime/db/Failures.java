package dev.gyro.runtime.db;

import dev.gyro.runtime.Backoff;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;

/**
 * What a failed transaction of one {@link Database} means: the instance's one rule, used by
 * {@link Database#inTransaction}, the global and local executors and the belt's durable actions alike.
 * <ul>
 *   <li>{@link Kind#LOST_RACE}: the DBMS aborted it for a concurrent one (busy, serialization failure, deadlock,
 *       {@link Dialect#isRetryable}); running it again may succeed at once;</li>
 *   <li>{@link Kind#UNREACHABLE}: the database could not be reached (a broken connection, a server shutting down or
 *       out of resources); a commit's outcome is then unknown, and it is worth trying again once it answers;</li>
 *   <li>{@link Kind#REFUSED}: anything else, the transaction's own failure (a constraint, bad SQL, a user abort).</li>
 * </ul>
 * Thread-safe.
 */
public final class Failures {

    /** Pause between tries while the database does not answer. */
    public static final Backoff DATABASE_DOWN = Backoff.of(10, 1000);

    /** What a failure says about trying again. */
    public enum Kind { LOST_RACE, UNREACHABLE, REFUSED }

    private final Database db;
    private final DatabaseHealth health;

    Failures(Database db) {
        this(db, new DatabaseHealth(db));
    }

    /** Failures of {@code db}, whose health is {@code health} (a replicated view shares its replica's). */
    Failures(Database db, DatabaseHealth health) {
        this.db = db;
        this.health = health;
    }

    /** Whether the database answers, as its transactions, its retries and a probe find it. */
    public DatabaseHealth health() {
        return health;
    }

    /** The kind of {@code t}, by its type and SQLState anywhere in its cause chain (no round trip). */
    public Kind kind(Throwable t) {
        if (lostRace(t)) return Kind.LOST_RACE;
        for (int depth = 0; t != null && depth < 20; depth++, t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLTransientException || t instanceof SQLRecoverableException) return Kind.UNREACHABLE;
            if (t instanceof SQLException s && s.getSQLState() != null
                    && (s.getSQLState().startsWith("08") || s.getSQLState().startsWith("57")
                    || s.getSQLState().startsWith("53"))) return Kind.UNREACHABLE;
        }
        return Kind.REFUSED;
    }

    /** True when {@code t}, or anything in its cause chain, is a lost race the dialect says to retry. */
    public boolean lostRace(Throwable t) {
        for (int depth = 0; t != null && depth < 20; depth++, t = t.getCause()) {
            if (t instanceof SQLException e) {
                for (SQLException n = e; n != null; n = n.getNextException()) {
                    if (db.dialect().isRetryable(n)) return true;
                    if (n.getNextException() == n) break;
                }
            }
            if (t.getCause() == t) break;
        }
        return false;
    }

    /**
     * True for a failure that goes away by itself: a lost race, or a database that cannot be reached. A failure of
     * no such kind still passes when a fresh connection cannot be had either (the database is down, whatever the
     * driver said); one that does answer shows the failure was the transaction's own.
     */
    public boolean passes(Throwable t) {
        if (kind(t) != Kind.REFUSED) return true;
        try (Connection probe = db.readConnection()) {
            db.rollback(probe);
            return false;
        } catch (SQLException | RuntimeException unreachable) {
            health.unreachable(unreachable);
            return true;
        }
    }
}
