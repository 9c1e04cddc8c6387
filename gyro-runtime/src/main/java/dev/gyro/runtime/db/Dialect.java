package dev.gyro.runtime.db;

import com.zaxxer.hikari.HikariConfig;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * Everything that differs between the supported DBMSs (DESIGN.md decision 2), so that the rest of the database
 * layer is plain JDBC. One implementation per backend; {@link SqliteDialect} today, PostgreSQL and MariaDB later.
 * Implementations are stateless and thread-safe.
 */
public interface Dialect {

    /**
     * The dialect of the DBMS behind {@code connection}, from its JDBC metadata.
     *
     * @throws SQLException when Gyro has no dialect for that DBMS
     */
    static Dialect of(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        if (product != null && product.toLowerCase(java.util.Locale.ROOT).contains("sqlite")) return SqliteDialect.INSTANCE;
        throw new SQLException("Gyro has no dialect for DBMS " + product + " (supported: SQLite)", "0A000");
    }

    /** A short name for messages and logs ("sqlite"). */
    String name();

    /**
     * The JDBC URL for {@code urlOrTarget}: a JDBC URL is returned checked, anything else is read as the
     * backend's native target (for SQLite: the database file).
     *
     * @throws IllegalArgumentException when the target cannot serve as one instance's database
     */
    String jdbcUrl(String urlOrTarget);

    /**
     * Configures one of {@link Database}'s two pools. The read-write pool must hand out connections on which
     * {@code setAutoCommit(false)} starts a transaction that will not fail later for lock upgrades (SQLite:
     * {@code BEGIN IMMEDIATE}); the read-only pool serves transactions that only read, concurrently.
     * Pools are configured with auto-commit on; {@link Database} switches it off when it hands out a
     * connection, which starts the transaction.
     */
    void configurePool(HikariConfig config, String jdbcUrl, boolean readOnly, Database.Options options);

    /**
     * Begins a transaction on a pooled connection (which is in auto-commit mode). On the read-write pool the
     * transaction must hold the write lock (or equivalent) from here on where the backend has one.
     */
    default void begin(Connection connection) throws SQLException {
        connection.setAutoCommit(false);
    }

    /**
     * Commits the transaction begun by {@link #begin} and leaves the connection in auto-commit mode, holding no
     * locks. If this throws, the transaction did not commit and is still to be rolled back.
     */
    default void commit(Connection connection) throws SQLException {
        connection.commit();
        connection.setAutoCommit(true);
    }

    /**
     * Rolls back the transaction begun by {@link #begin} (also after {@link #begin} itself failed) and leaves the
     * connection in auto-commit mode, holding no locks. If this throws, the connection is unusable.
     */
    default void rollback(Connection connection) throws SQLException {
        connection.rollback();
        connection.setAutoCommit(true);
    }

    /** Checks the server on a fresh connection (version, settings) and fails with a clear message if it cannot serve. */
    void checkServer(Connection connection) throws SQLException;

    /**
     * Commit ordering (paper Appendix B, DESIGN.md decision 6): true only when the DBMS never lets a
     * transaction commit before one serialized ahead of it, so a primary may run its queued global requests in
     * parallel. False means: run them one at a time.
     */
    boolean parallelGlobals();

    /**
     * True when {@code e} (not its causes) means "the transaction lost a race; run it again": SQLite's
     * BUSY/LOCKED, serialization failures (SQLSTATE 40001) and deadlocks elsewhere (DESIGN.md decision 6).
     */
    boolean isRetryable(SQLException e);

    /** The identifier quoted for this DBMS. */
    String quote(String identifier);

    /**
     * The schema to look a written table up in, given the schema the statement named (null if none):
     * null for the connection's default schema.
     *
     * @throws SQLException when writes to that schema cannot be captured (for SQLite: attached or temp databases)
     */
    String captureSchema(String writtenSchema, String table) throws SQLException;

    /**
     * Hidden row identifiers an UPDATE could change besides the declared columns (SQLite's {@code rowid}),
     * lower case; changing one changes the row's identity, which capture refuses like a key change.
     */
    List<String> rowIdAliases();

    /**
     * Row-image capture (DESIGN.md decision 4): {@code sql}, a single INSERT/REPLACE/UPDATE/DELETE statement,
     * rewritten so that executing it as a query also returns every row it wrote, with all columns -- the row after
     * the write for inserts and updates, the row before for deletes -- one result row per written row, and with
     * the same parameters at the same positions. Null when this backend cannot do that for {@code kind}; a keyed
     * re-read is then needed (not implemented yet: no current backend lacks it).
     */
    String returningAll(String sql, WriteKind kind);

    /**
     * The generated keys of a captured write, as the driver would report them for the application's original
     * statement (the rewritten one it actually ran cannot tell). Called on the same connection right after the
     * write ran, before any other write; {@code kind} is null when nothing ran yet. The caller closes the result
     * set's statement via {@link ResultSet#getStatement()}.
     */
    ResultSet generatedKeys(Connection connection, WriteKind kind) throws SQLException;

    /**
     * An idempotent upsert by primary key: {@code INSERT INTO table (columns) VALUES (?...)} that, when a row with
     * the same key exists, overwrites it with these values. Parameters are the values in {@code columns} order.
     */
    String upsertSql(String table, List<String> columns, List<String> keyColumns);

    /** {@code DELETE FROM table WHERE k1 = ? AND ...}: parameters are the key values in key order. */
    String deleteSql(String table, List<String> keyColumns);

    /**
     * Prepares a transaction that is about to apply state updates: row changes arrive in the origin's write order
     * but not in an order that satisfies foreign keys statement by statement, so checks that can be deferred to
     * commit are deferred (SQLite: {@code PRAGMA defer_foreign_keys}).
     */
    void beforeApply(Connection connection) throws SQLException;

    /** The column type for Gyro's own metadata tables. */
    String sqlType(SqlType type);

    /** Column types of Gyro's metadata tables. */
    enum SqlType { BIGINT, TEXT, BLOB }
}
