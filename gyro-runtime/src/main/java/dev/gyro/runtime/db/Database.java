package dev.gyro.runtime.db;

import dev.gyro.runtime.Backoff;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * One instance's DBMS, reached only through pooled JDBC connections (docs/decisions.md, decision 2). Two pools:
 * a read-write pool whose transactions take the write lock when they begin (SQLite: {@code BEGIN IMMEDIATE}),
 * so a transaction that reads and then writes never fails on a lock upgrade, and a read-only pool for
 * transactions that only read (SQLite: deferred, concurrent with the writer under WAL).
 *
 * <p>The simplest correct use is {@link #inTransaction}: it begins, runs the work, commits, rolls back on any failure
 * and retries the whole unit when the DBMS says it lost a race (busy, serialization failure;
 * docs/decisions.md, decision 6). {@link #writeConnection()}/{@link #readConnection()} hand out a connection with a
 * transaction already begun; finish it with {@link #commit(Connection)} or {@link #rollback(Connection)} (not the
 * connection's own commit/rollback: sqlite-jdbc begins the next transaction inside those, which on the read-write pool
 * would grab the write lock again) and close it at once.
 *
 * <p>Thread-safe. {@link #close()} closes both pools.
 */
public final class Database implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Database.class);
    private static final AtomicInteger POOL_IDS = new AtomicInteger();

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

    private final Dialect dialect;
    private final String jdbcUrl;
    private final Options options;
    private final Backoff backoff;
    private final HikariDataSource writePool;
    private final HikariDataSource readPool;
    private final TableCatalog tables;
    private final LongAdder retries = new LongAdder();
    /** The pool each handed-out connection came from (weak: a closed connection is forgotten). */
    private final Map<Connection, HikariDataSource> handedOut = new WeakHashMap<>();
    /** Null: write transactions commit on this database alone; otherwise through its replicated group. */
    private final Replication replication;

    private Database(Dialect dialect, String jdbcUrl, Options options, HikariDataSource writePool,
                     HikariDataSource readPool) {
        this.replication = null;
        this.dialect = dialect;
        this.jdbcUrl = jdbcUrl;
        this.options = options;
        this.backoff = new Backoff(options.firstBackoff(), options.maxBackoff());
        this.writePool = writePool;
        this.readPool = readPool;
        this.tables = TableCatalog.forUrl(jdbcUrl);
        this.tables.invalidate(); // a (re)opened database may have a different schema
    }

    /** A view of {@code replica} whose write transactions go through {@code replication}; closing it closes nothing. */
    private Database(Database replica, Replication replication) {
        this.replication = replication;
        this.dialect = replica.dialect;
        this.jdbcUrl = replica.jdbcUrl;
        this.options = replica.options;
        this.backoff = replica.backoff;
        this.writePool = replica.writePool;
        this.readPool = replica.readPool;
        this.tables = replica.tables;
    }

    /**
     * This database as one replica of a replicated group (docs/decisions.md, decision 24): the same pools, but every
     * write transaction ({@link #writeConnection()}, {@link #inTransaction} with {@code readOnly} false) begins and
     * commits through {@code replication}. Read-only transactions are unchanged. Closing the view closes nothing: the
     * replica owns the database.
     */
    public Database replicatedBy(Replication replication) {
        if (this.replication != null) throw new IllegalStateException(this + " is replicated already");
        return new Database(this, java.util.Objects.requireNonNull(replication, "replication"));
    }

    /** True for a view whose writes go through a replicated group ({@link #replicatedBy}). */
    public boolean replicated() {
        return replication != null;
    }

    /** {@link #open(Dialect, String, Options)} with {@link Options#defaults()}. */
    public static Database open(Dialect dialect, String jdbcUrlOrFile) throws SQLException {
        return open(dialect, jdbcUrlOrFile, Options.defaults());
    }

    /**
     * Opens (creating if needed) the database at {@code jdbcUrlOrFile} -- a JDBC URL, or the backend's native
     * target such as a SQLite file path -- and checks that the server can serve Gyro.
     *
     * @throws SQLException when the database cannot be opened or the server is unsuitable
     */
    public static Database open(Dialect dialect, String jdbcUrlOrFile, Options options) throws SQLException {
        String url;
        try {
            url = dialect.jdbcUrl(jdbcUrlOrFile);
        } catch (IllegalArgumentException e) {
            throw new SQLException(e.getMessage(), "08001", e);
        }
        int id = POOL_IDS.incrementAndGet();
        HikariDataSource write = null;
        try {
            // The read-write pool first: it sets file-level settings (SQLite: WAL) the readers rely on.
            write = pool(dialect, url, false, options, "gyro-db" + id + "-rw");
            try (Connection c = write.getConnection()) {
                dialect.checkServer(c);
            }
            HikariDataSource read = pool(dialect, url, true, options, "gyro-db" + id + "-ro");
            log.debug("opened {} database {}", dialect.name(), url);
            return new Database(dialect, url, options, write, read);
        } catch (RuntimeException e) {
            if (write != null) write.close();
            throw new SQLException("cannot open " + dialect.name() + " database " + url + ": " + e.getMessage(),
                    "08001", e);
        } catch (SQLException e) {
            if (write != null) write.close();
            throw new SQLException("cannot open " + dialect.name() + " database " + url + ": " + e.getMessage(),
                    e.getSQLState(), e.getErrorCode(), e);
        }
    }

    private static HikariDataSource pool(Dialect dialect, String url, boolean readOnly, Options options, String name) {
        HikariConfig cfg = new HikariConfig();
        cfg.setPoolName(name);
        cfg.setMaximumPoolSize(readOnly ? options.readPoolSize() : options.writePoolSize());
        cfg.setMinimumIdle(1);
        cfg.setAutoCommit(true); // Database switches it off per transaction; see Dialect#configurePool
        cfg.setConnectionTimeout(Math.max(250, options.connectionTimeout().toMillis()));
        cfg.setInitializationFailTimeout(1); // fail open() at once when the database cannot be reached
        dialect.configurePool(cfg, url, readOnly, options);
        return new HikariDataSource(cfg);
    }

    public Dialect dialect() {
        return dialect;
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    public Options options() {
        return options;
    }

    /** The table metadata cache shared by everything capturing or applying writes on this database. */
    public TableCatalog tables() {
        return tables;
    }

    /** The connection pools by what they serve ("write", "read"), for the instance's metrics. */
    public Map<String, com.zaxxer.hikari.HikariPoolMXBean> pools() {
        return Map.of("write", writePool.getHikariPoolMXBean(), "read", readPool.getHikariPoolMXBean());
    }

    /** How many times {@link #inTransaction} has retried a unit of work so far. */
    public long retries() {
        return retries.sum();
    }

    /**
     * A connection from the read-write pool with a transaction begun (auto-commit off; on SQLite the write lock
     * is held from here on). Finish with {@link #commit(Connection)} or {@link #rollback(Connection)}, then close
     * it; closing without either rolls back.
     *
     * @throws SQLException when no connection is free, or the transaction cannot begin (busy: retry later)
     */
    public Connection writeConnection() throws SQLException {
        if (replication != null) return replication.begin();
        return begin(writePool);
    }

    /**
     * A connection from the read-only pool with a transaction begun (auto-commit off). Writes fail. Finish with
     * {@link #commit(Connection)} or {@link #rollback(Connection)} and close it.
     */
    public Connection readConnection() throws SQLException {
        if (replication != null) replication.beforeRead();
        return begin(readPool);
    }

    private Connection begin(HikariDataSource pool) throws SQLException {
        Connection c = pool.getConnection();
        synchronized (handedOut) {
            handedOut.put(c, pool);
        }
        try {
            dialect.begin(c);
            return c;
        } catch (SQLException | RuntimeException e) {
            discard(pool, c);
            closeQuietly(c);
            throw e;
        }
    }

    private HikariDataSource poolOf(Connection c) {
        synchronized (handedOut) {
            return handedOut.get(c);
        }
    }

    /**
     * Commits the transaction of a connection from {@link #writeConnection()} or {@link #readConnection()} and
     * leaves it in auto-commit mode, ready to be closed. If the commit fails the transaction did not commit: it
     * is rolled back (or the connection thrown out of the pool) and the exception is rethrown.
     */
    public void commit(Connection c) throws SQLException {
        if (replication != null && CapturingConnection.of(c) != null) { // begun by the replication
            replication.commit(c);
            return;
        }
        commit(poolOf(c), c);
    }

    private void commit(HikariDataSource pool, Connection c) throws SQLException {
        try {
            dialect.commit(c);
        } catch (SQLException | RuntimeException e) {
            discard(pool, c);
            throw e;
        }
    }

    /**
     * Rolls back the transaction of a connection from {@link #writeConnection()} or {@link #readConnection()}
     * and leaves it in auto-commit mode, ready to be closed. Never throws: a connection that cannot be rolled
     * back cleanly is thrown out of the pool (closing it ends its transaction without committing).
     */
    public void rollback(Connection c) {
        if (replication != null && CapturingConnection.of(c) != null) {
            replication.rollback(c);
            return;
        }
        discard(poolOf(c), c);
    }

    private void discard(HikariDataSource pool, Connection c) {
        try {
            dialect.rollback(c);
        } catch (SQLException | RuntimeException e) {
            log.debug("rollback failed, evicting the connection: {}", e.toString());
            // Closing the physical connection ends its transaction without committing.
            if (pool != null) pool.evictConnection(c);
        }
    }

    /**
     * Runs {@code work} in one transaction: begins (on the read-only pool if {@code readOnly}), runs it, commits.
     * Any exception rolls the transaction back. When the failure is a lost race ({@link Dialect#isRetryable},
     * anywhere in the cause chain), the whole unit runs again on a fresh transaction after a short randomized
     * pause, up to {@link Options#maxAttempts()} times in all.
     *
     * @return what {@code work} returned, once committed
     * @throws SQLException     the last failure, when it is an SQLException (or a checked exception, wrapped),
     *                          after rollback; retryable failures only after the last attempt
     * @throws RuntimeException thrown by {@code work} (rolled back; not retried unless caused by a lost race)
     */
    public <T> T inTransaction(boolean readOnly, SqlWork<T> work) throws SQLException {
        if (replication != null) {
            if (!readOnly) return inReplicatedTransaction(work);
            replication.beforeRead(); // the leader proves it still leads before it reads (decision 24)
        }
        HikariDataSource pool = readOnly ? readPool : writePool;
        for (int attempt = 1; ; attempt++) {
            Connection c = null;
            boolean committing = false;
            try {
                c = pool.getConnection();
                dialect.begin(c);
                T result = work.run(c);
                committing = true;
                commit(pool, c); // rolls back itself when it fails
                return result;
            } catch (Throwable t) {
                if (c != null && !committing) discard(pool, c);
                if (attempt < options.maxAttempts() && isRetryable(t)) {
                    retries.increment();
                    log.debug("attempt {} lost a race, retrying: {}", attempt, t.toString());
                    closeQuietly(c);
                    c = null;
                    pause(attempt);
                    continue;
                }
                throw rethrow(t);
            } finally {
                if (c != null) closeQuietly(c);
            }
        }
    }

    /** {@link #inTransaction} for a write through the replicated group: the same retries of lost races. */
    private <T> T inReplicatedTransaction(SqlWork<T> work) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            Connection c = replication.begin();
            boolean committing = false;
            try {
                T result = work.run(c);
                committing = true;
                replication.commit(c); // rolls back itself when it fails
                return result;
            } catch (Throwable t) {
                if (!committing) replication.rollback(c);
                if (attempt < options.maxAttempts() && isRetryable(t)) {
                    retries.increment();
                    log.debug("attempt {} lost a race, retrying: {}", attempt, t.toString());
                    pause(attempt);
                    continue;
                }
                throw rethrow(t);
            }
        }
    }

    /** True when {@code t}, or anything in its cause chain, is a lost race the dialect says to retry. */
    public boolean isRetryable(Throwable t) {
        for (int depth = 0; t != null && depth < 20; depth++, t = t.getCause()) {
            if (t instanceof SQLException e) {
                for (SQLException n = e; n != null; n = n.getNextException()) {
                    if (dialect.isRetryable(n)) return true;
                    if (n.getNextException() == n) break;
                }
            }
            if (t.getCause() == t) break;
        }
        return false;
    }

    private void pause(int attempt) throws SQLException {
        if (!backoff.pause(attempt))
            throw new SQLException("interrupted while waiting to retry a transaction", "57014");
    }

    private static RuntimeException rethrow(Throwable t) throws SQLException {
        if (t instanceof SQLException e) throw e;
        if (t instanceof RuntimeException e) throw e;
        if (t instanceof Error e) throw e;
        if (t instanceof InterruptedException) Thread.currentThread().interrupt();
        throw new SQLException("transaction failed: " + t, t);
    }

    private static void closeQuietly(Connection c) {
        if (c == null) return;
        try {
            c.close();
        } catch (SQLException | RuntimeException e) {
            log.debug("closing a connection failed: {}", e.toString());
        }
    }

    /** Closes both pools; connections in use are closed when returned. */
    @Override
    public void close() {
        if (replication != null) return; // a view: the replica owns the pools
        readPool.close();
        writePool.close();
    }

    @Override
    public String toString() {
        return "Database[" + dialect.name() + " " + jdbcUrl + "]";
    }
}
