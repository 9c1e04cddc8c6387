package dev.gyro.runtime.db;

import com.zaxxer.hikari.HikariPoolMXBean;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * One instance's DBMS, reached only through pooled JDBC connections (docs/decisions/02-jdbc-only.md). Two
 * implementations: {@link PooledDatabase}, a database of the instance's own ({@link #open}), and
 * {@link ReplicatedDatabase}, the view of a replicated group's replica whose write transactions commit through the
 * group ({@link #replicatedBy}).
 *
 * <p>The simplest correct use is {@link #inTransaction}: it begins, runs the work, commits, rolls back on any failure
 * and retries the whole unit when the DBMS says it lost a race ({@link Failures#lostRace};
 * docs/decisions/06-commit-ordering.md). {@link #writeConnection()}/{@link #readConnection()} hand out a connection
 * with a transaction already begun; finish it with {@link #commit(Connection)} or {@link #rollback(Connection)} (not
 * the connection's own commit/rollback: sqlite-jdbc begins the next transaction inside those, which on the read-write
 * pool would grab the write lock again) and close it at once. What a failure means is decided by {@link #failures()},
 * and nowhere else.
 *
 * <p>Thread-safe.
 */
public interface Database extends AutoCloseable {

    /**
     * How to open and use the database.
     *
     * @param writePoolSize     connections of the read-write pool (SQLite runs one writer at a time; the others
     *                          wait for the lock up to {@code busyTimeout})
     * @param readPoolSize      connections of the read-only pool
     * @param busyTimeout       how long a connection waits for a lock before the DBMS reports busy
     * @param foreignKeys       enforce foreign keys (SQLite's {@code PRAGMA foreign_keys}; off is SQLite's default)
     * @param synchronous       SQLite's {@code PRAGMA synchronous}: NORMAL (durable up to the last checkpoint-free
     *                          commits on power loss, safe on process crash), FULL or OFF
     * @param maxAttempts       how many times {@link #inTransaction} runs a unit of work that keeps losing races
     * @param firstBackoff      pause before the second attempt; doubles per attempt (with jitter)
     * @param maxBackoff        the longest pause between attempts
     * @param connectionTimeout how long to wait for a free pooled connection
     */
    public record Options(int writePoolSize, int readPoolSize, Duration busyTimeout, boolean foreignKeys,
                          String synchronous, int maxAttempts, Duration firstBackoff, Duration maxBackoff,
                          Duration connectionTimeout) {

        public Options {
            if (writePoolSize < 1 || readPoolSize < 1) throw new IllegalArgumentException("pool sizes must be >= 1");
            if (maxAttempts < 1) throw new IllegalArgumentException("maxAttempts must be >= 1");
            Objects.requireNonNull(busyTimeout);
            Objects.requireNonNull(synchronous);
            Objects.requireNonNull(firstBackoff);
            Objects.requireNonNull(maxBackoff);
            Objects.requireNonNull(connectionTimeout);
        }

        public static Options defaults() {
            return new Options(4, 8, Duration.ofSeconds(5), false, "NORMAL", 10, Duration.ofMillis(5),
                    Duration.ofMillis(500), Duration.ofSeconds(30));
        }

        public Options withPoolSizes(int write, int read) {
            return new Options(write, read, busyTimeout, foreignKeys, synchronous, maxAttempts, firstBackoff,
                    maxBackoff, connectionTimeout);
        }

        public Options withBusyTimeout(Duration d) {
            return new Options(writePoolSize, readPoolSize, d, foreignKeys, synchronous, maxAttempts, firstBackoff,
                    maxBackoff, connectionTimeout);
        }

        public Options withForeignKeys(boolean on) {
            return new Options(writePoolSize, readPoolSize, busyTimeout, on, synchronous, maxAttempts, firstBackoff,
                    maxBackoff, connectionTimeout);
        }

        public Options withSynchronous(String mode) {
            return new Options(writePoolSize, readPoolSize, busyTimeout, foreignKeys, mode, maxAttempts,
                    firstBackoff, maxBackoff, connectionTimeout);
        }

        public Options withRetries(int attempts, Duration first, Duration max) {
            return new Options(writePoolSize, readPoolSize, busyTimeout, foreignKeys, synchronous, attempts, first,
                    max, connectionTimeout);
        }

        public Options withConnectionTimeout(Duration d) {
            return new Options(writePoolSize, readPoolSize, busyTimeout, foreignKeys, synchronous, maxAttempts,
                    firstBackoff, maxBackoff, d);
        }
    }

    /** {@link #open(Dialect, String, Options)} with {@link Options#defaults()}. */
    static Database open(Dialect dialect, String jdbcUrlOrFile) throws SQLException {
        return open(dialect, jdbcUrlOrFile, Options.defaults());
    }

    /**
     * Opens (creating if needed) the database at {@code jdbcUrlOrFile} -- a JDBC URL, or the backend's native
     * target such as a SQLite file path -- and checks that the server can serve Gyro.
     *
     * @throws SQLException when the database cannot be opened or the server is unsuitable
     */
    static Database open(Dialect dialect, String jdbcUrlOrFile, Options options) throws SQLException {
        return PooledDatabase.open(dialect, jdbcUrlOrFile, options);
    }

    /**
     * This database as one replica of a replicated group (docs/decisions/24-ring-on-groups.md): the same pools, but
     * every write transaction ({@link #writeConnection()}, {@link #inTransaction} with {@code readOnly} false) begins
     * and commits through {@code replication}. Read-only transactions are unchanged. Closing the view closes nothing:
     * the replica owns the database.
     *
     * @throws IllegalStateException when this is a replicated view already
     */
    default Database replicatedBy(Replication replication) {
        if (replicated()) throw new IllegalStateException(this + " is replicated already");
        return new ReplicatedDatabase(this, Objects.requireNonNull(replication, "replication"));
    }

    /** True for a view whose writes go through a replicated group ({@link #replicatedBy}). */
    boolean replicated();

    Dialect dialect();

    String jdbcUrl();

    Options options();

    /** The table metadata cache shared by everything capturing or applying writes on this database. */
    TableCatalog tables();

    /** What a failure of this database's transactions means: the one classifier of the instance. */
    Failures failures();

    /** The connection pools by what they serve ("write", "read"), for the instance's metrics. */
    Map<String, HikariPoolMXBean> pools();

    /** How many times {@link #inTransaction} has retried a unit of work so far. */
    long retries();

    /**
     * A connection with a write transaction begun (auto-commit off; on SQLite the write lock is held from here on).
     * Finish with {@link #commit(Connection)} or {@link #rollback(Connection)}, then close it; closing without either
     * rolls back.
     *
     * @throws SQLException when no connection is free, or the transaction cannot begin (busy: retry later);
     *                      {@link UnavailableException} when a replicated group cannot take writes now
     */
    Connection writeConnection() throws SQLException;

    /**
     * A connection from the read-only pool with a transaction begun (auto-commit off). Writes fail. Finish with
     * {@link #commit(Connection)} or {@link #rollback(Connection)} and close it.
     */
    Connection readConnection() throws SQLException;

    /**
     * Commits the transaction of a connection from {@link #writeConnection()} or {@link #readConnection()} and
     * leaves it ready to be closed. If the commit fails the transaction did not commit, or its outcome is unknown
     * ({@link Failures.Kind#UNREACHABLE}): it is rolled back (or the connection thrown out of the pool) and the
     * exception is rethrown.
     */
    void commit(Connection c) throws SQLException;

    /**
     * Rolls back the transaction of a connection from {@link #writeConnection()} or {@link #readConnection()}
     * and leaves it ready to be closed. Never throws.
     */
    void rollback(Connection c);

    /**
     * Runs {@code work} in one transaction: begins (read-only if {@code readOnly}), runs it, commits. Any exception
     * rolls the transaction back. When the failure is a lost race ({@link Failures#lostRace}), the whole unit runs
     * again on a fresh transaction after a short randomized pause, up to {@link Options#maxAttempts()} times in all.
     * Runs on the caller's thread.
     *
     * @return what {@code work} returned, once committed
     * @throws SQLException     the last failure, when it is an SQLException (or a checked exception, wrapped),
     *                          after rollback; lost races only after the last attempt
     * @throws RuntimeException thrown by {@code work} (rolled back; not retried unless caused by a lost race)
     */
    <T> T inTransaction(boolean readOnly, SqlWork<T> work) throws SQLException;

    /**
     * As {@link #inTransaction(boolean, SqlWork)}, for a request whose client waits for its answer until
     * {@code deadlineNanos} (a {@link System#nanoTime()} value; {@link DeadlinePassedException#NONE}: no limit but the
     * database's own; docs/decisions/37-request-ids.md): a connection is waited for until then at most, and once it has
     * passed the transaction does not begin, nor commit: it rolls back with a {@link DeadlinePassedException}, so a
     * client that gave up is never answered by a commit behind its back. Only a commit already sent when the deadline
     * passes may still go through.
     *
     * @throws DeadlinePassedException when the deadline passed before the commit; nothing was committed
     */
    default <T> T inTransaction(boolean readOnly, long deadlineNanos, SqlWork<T> work) throws SQLException {
        return inTransaction(readOnly, c -> {
            DeadlinePassedException.check(deadlineNanos, "not begun");
            T result = work.run(c);
            DeadlinePassedException.check(deadlineNanos, "not committed");
            return result;
        });
    }

    /** Closes what this database owns (a replicated view owns nothing); connections in use are closed when returned. */
    @Override
    void close();
}
