package dev.gyro.runtime.db;


import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * A database of the instance's own, reached only through pooled JDBC connections. Two pools:
 * a read-write pool whose transactions take the write lock when they begin (SQLite: {@code BEGIN IMMEDIATE}),
 * so a transaction that reads and then writes never fails on a lock upgrade, and a read-only pool for
 * transactions that only read (SQLite: deferred, concurrent with the writer under WAL).
 *
 * <p>Thread-safe. {@link #close()} closes both pools.
 */
final class PooledDatabase implements Database {

    private static final Logger log = LoggerFactory.getLogger(PooledDatabase.class);
    private static final AtomicInteger POOL_IDS = new AtomicInteger();

    private final Dialect dialect;
    private final String jdbcUrl;
    private final Options options;
    private final HikariDataSource writePool;
    private final HikariDataSource readPool;
    private final TableCatalog tables;
    private final Failures failures = new Failures(this);
    private final LongAdder retries = new LongAdder();
    /** The pool each handed-out connection came from (weak: a closed connection is forgotten). */
    private final Map<Connection, HikariDataSource> handedOut = new WeakHashMap<>();

    private PooledDatabase(Dialect dialect, String jdbcUrl, Options options, HikariDataSource writePool,
                           HikariDataSource readPool) {
        this.dialect = dialect;
        this.jdbcUrl = jdbcUrl;
        this.options = options;
        this.writePool = writePool;
        this.readPool = readPool;
        this.tables = TableCatalog.forUrl(jdbcUrl);
        this.tables.invalidate(); // a (re)opened database may have a different schema
    }

    @Override
    public boolean replicated() {
        return false;
    }

    /** {@link Database#open(Dialect, String, Options)}. */
    static Database open(Dialect dialect, String jdbcUrlOrFile, Options options) throws SQLException {
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
            log.debug("opened {} database {}", dialect.name(), shown(url));
            return new PooledDatabase(dialect, url, options, write, read);
        } catch (RuntimeException e) {
            if (write != null) write.close();
            throw new SQLException("cannot open " + dialect.name() + " database " + shown(url) + ": " + e.getMessage(),
                    "08001", e);
        } catch (SQLException e) {
            if (write != null) write.close();
            throw new SQLException("cannot open " + dialect.name() + " database " + shown(url) + ": " + e.getMessage(),
                    e.getSQLState(), e.getErrorCode(), e);
        }
    }

    /** {@code url} as logs and messages show it: a password it carries is hidden. */
    private static String shown(String url) {
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
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

    @Override
    public Dialect dialect() {
        return dialect;
    }

    @Override
    public String jdbcUrl() {
        return jdbcUrl;
    }

    @Override
    public Options options() {
        return options;
    }

    @Override
    public TableCatalog tables() {
        return tables;
    }

    @Override
    public Map<String, com.zaxxer.hikari.HikariPoolMXBean> pools() {
        return Map.of("write", writePool.getHikariPoolMXBean(), "read", readPool.getHikariPoolMXBean());
    }

    @Override
    public long retries() {
        return retries.sum();
    }

    @Override
    public Connection writeConnection() throws SQLException {
        return begin(writePool);
    }

    @Override
    public Connection readConnection() throws SQLException {
        return begin(readPool);
    }

    private Connection begin(HikariDataSource pool) throws SQLException {
        Connection c = connection(pool);
        synchronized (handedOut) {
            handedOut.put(c, pool);
        }
        try {
            dialect.begin(c);
            return c;
        } catch (SQLException | RuntimeException e) {
            sawFailure(e);
            discard(pool, c);
            closeQuietly(c);
            throw e;
        }
    }

    /** A pooled connection; a pool that cannot have one tells the database's health (DatabaseHealth). */
    private Connection connection(HikariDataSource pool) throws SQLException {
        try {
            return pool.getConnection();
        } catch (SQLException | RuntimeException e) {
            sawFailure(e);
            throw e;
        }
    }

    /**
     * A pooled connection, waited for until {@code deadlineNanos} at most (docs/decisions/37-request-ids.md): a request
     * whose client waits no longer is answered while it still waits, instead of running once the database is back. A
     * wait that ran out tells the database's health only when the pool could not connect (the timeout's cause is the
     * driver's failure): a pool whose connections were all in use says nothing about the database.
     */
    private Connection connection(HikariDataSource pool, long deadlineNanos) throws SQLException {
        if (deadlineNanos == DeadlinePassedException.NONE) return connection(pool);
        DeadlinePassedException.check(deadlineNanos, "not begun");
        long left = Math.max(1, DeadlinePassedException.millisLeft(deadlineNanos));
        try {
            return ((HikariPool) pool.getHikariPoolMXBean()).getConnection(Math.min(left, pool.getConnectionTimeout()));
        } catch (SQLException | RuntimeException e) {
            if (e.getCause() != null) sawFailure(e);
            throw e;
        }
    }

    /** A failure that says the database cannot be reached goes to its health; any other says nothing about it. */
    private void sawFailure(Throwable t) {
        if (failures.kind(t) == Failures.Kind.UNREACHABLE) failures.health().unreachable(t);
    }

    private HikariDataSource poolOf(Connection c) {
        synchronized (handedOut) {
            return handedOut.get(c);
        }
    }

    @Override
    public void commit(Connection c) throws SQLException {
        commit(poolOf(c), c);
    }

    private void commit(HikariDataSource pool, Connection c) throws SQLException {
        try {
            dialect.commit(c);
            failures.health().answered();
        } catch (SQLException | RuntimeException e) {
            sawFailure(e);
            discard(pool, c);
            throw e;
        }
    }

    @Override
    public void rollback(Connection c) {
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

    @Override
    public <T> T inTransaction(boolean readOnly, SqlWork<T> work) throws SQLException {
        return inTransaction(readOnly, DeadlinePassedException.NONE, work);
    }

    @Override
    public <T> T inTransaction(boolean readOnly, long deadlineNanos, SqlWork<T> work) throws SQLException {
        HikariDataSource pool = readOnly ? readPool : writePool;
        return LostRaces.retry(this, retries, () -> {
            Connection c = connection(pool, deadlineNanos);
            boolean committing = false;
            try {
                DeadlinePassedException.check(deadlineNanos, "not begun");
                dialect.begin(c);
                T result = work.run(c);
                DeadlinePassedException.check(deadlineNanos, "not committed");
                committing = true;
                commit(pool, c); // rolls back itself when it fails, and tells the health either way
                return result;
            } catch (Throwable t) {
                if (!committing) {
                    sawFailure(t);
                    discard(pool, c);
                }
                throw t;
            } finally {
                closeQuietly(c);
            }
        });
    }

    @Override
    public Failures failures() {
        return failures;
    }

    private static void closeQuietly(Connection c) {
        if (c == null) return;
        try {
            c.close();
        } catch (SQLException | RuntimeException e) {
            log.debug("closing a connection failed: {}", e.toString());
        }
    }

    @Override
    public void close() {
        readPool.close();
        writePool.close();
    }

    @Override
    public String toString() {
        return "Database[" + dialect.name() + " " + shown(jdbcUrl) + "]";
    }
}
