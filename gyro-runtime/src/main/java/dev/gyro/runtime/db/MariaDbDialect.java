package dev.gyro.runtime.db;

import com.zaxxer.hikari.HikariConfig;
import dev.gyro.protocol.Value;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * MariaDB (10.5 or newer, InnoDB) through MariaDB Connector/J: one database per instance, on a server of its own.
 *
 * <ul>
 *   <li>Isolation: every pooled connection is SERIALIZABLE. InnoDB implements it with strict two-phase locking
 *       (plain reads inside a transaction take shared next-key locks, held until commit), so a transaction that
 *       conflicts with another waits for it; deadlocks (1213, SQLSTATE 40001) and lock wait timeouts (1205) are
 *       retried.</li>
 *   <li>Commit ordering holds (paper Appendix B; docs/decisions/06-commit-ordering.md): a transaction cannot commit
 *       before one serialized ahead of it, whose locks it waits for. {@link #parallelGlobals()} is true; the tests show
 *       the waiting on a real server.</li>
 *   <li>Capture: {@code RETURNING *} for INSERT, REPLACE and DELETE (MariaDB 10.5+; with ON DUPLICATE KEY UPDATE
 *       it returns the row as updated). UPDATE has no RETURNING: the keys of the rows it will write are read with
 *       a locking SELECT built from its own WHERE clause before it runs, and the rows by key after
 *       ({@link KeyedReRead}). Generated keys are what Connector/J would report: one row per written row,
 *       labelled {@code insert_id}, with the table's AUTO_INCREMENT column.</li>
 *   <li>Apply: {@code INSERT ... ON DUPLICATE KEY UPDATE c = VALUES(c)} run as
 *       {@code SET STATEMENT foreign_key_checks=0 FOR ...}: row images need not arrive in an order that satisfies
 *       foreign keys row by row, and the switch cannot outlive the statement on a pooled connection.</li>
 *   <li>MySQL is not served: it has no RETURNING at all, and INSERT would need a keyed re-read too;
 *       {@link #checkServer} says so.</li>
 * </ul>
 */
public final class MariaDbDialect implements Dialect {

    public static final MariaDbDialect INSTANCE = new MariaDbDialect();
    static final int[] MIN_VERSION = {10, 5, 0};
    static final int ER_LOCK_WAIT_TIMEOUT = 1205;
    static final int ER_LOCK_DEADLOCK = 1213;
    static final int ER_CHECKREAD = 1020;

    private MariaDbDialect() {}

    @Override
    public String name() {
        return "mariadb";
    }

    /** InnoDB's serializable reads lock every row they read; its repeatable read reads a snapshot, locking nothing. */
    @Override
    public void readSnapshot(Connection c) throws SQLException {
        c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ); // the pool sets it back when c returns
    }

    @Override
    public String jdbcUrl(String urlOrTarget) {
        String u = urlOrTarget == null ? "" : urlOrTarget.strip();
        if (u.startsWith("jdbc:mysql:")) u = "jdbc:mariadb:" + u.substring("jdbc:mysql:".length());
        if (!u.startsWith("jdbc:mariadb:"))
            throw new IllegalArgumentException("a MariaDB instance is reached by a JDBC URL"
                    + " (jdbc:mariadb://host:port/database?user=...), not '" + urlOrTarget + "'");
        return u;
    }

    @Override
    public void configurePool(HikariConfig config, String jdbcUrl, boolean readOnly, Database.Options options) {
        Dialects.configureServerPool(config, jdbcUrl, "org.mariadb.jdbc.Driver", readOnly);
        long wait = Math.max(1, options.busyTimeout().toSeconds());
        config.addDataSourceProperty("sessionVariables", "innodb_lock_wait_timeout=" + wait);
    }

    @Override
    public Database.Options instanceOptions() {
        return Dialects.serverInstanceOptions();
    }

    @Override
    public void checkServer(Connection connection) throws SQLException {
        DatabaseMetaData md = connection.getMetaData();
        String version = md.getDatabaseProductVersion();
        if (!md.getDatabaseProductName().toLowerCase(java.util.Locale.ROOT).contains("mariadb")
                && !version.toLowerCase(java.util.Locale.ROOT).contains("mariadb"))
            throw new SQLException(md.getDatabaseProductName() + " " + version + " cannot serve Gyro's mariadb backend:"
                    + " it needs MariaDB 10.5 or newer, whose INSERT, REPLACE and DELETE have RETURNING (MySQL's do"
                    + " not, and capturing their rows would need a keyed re-read for every INSERT)");
        if (SqliteDialect.compareVersion(version, MIN_VERSION) < 0)
            throw new SQLException("MariaDB " + version + " is too old: Gyro needs 10.5 or newer (INSERT ... RETURNING)");
        try (Statement st = connection.createStatement();
             ResultSet rs = st.executeQuery("SELECT @@SESSION.tx_isolation, @@SESSION.default_storage_engine")) {
            rs.next();
            Dialects.checkSerializable(rs.getString(1), "SERIALIZABLE");
            if (!"InnoDB".equalsIgnoreCase(rs.getString(2)))
                throw new SQLException("the default storage engine is " + rs.getString(2) + ": Gyro needs InnoDB,"
                        + " whose SERIALIZABLE locking is what makes globals run in parallel correctly");
        }
    }

    @Override
    public boolean parallelGlobals() {
        return true;
    }

    @Override
    public boolean isRetryable(SQLException e) {
        int code = e.getErrorCode();
        return code == ER_LOCK_DEADLOCK || code == ER_LOCK_WAIT_TIMEOUT || code == ER_CHECKREAD
                || "40001".equals(e.getSQLState());
    }

    @Override
    public String quote(String identifier) {
        return '`' + identifier.replace("`", "``") + '`';
    }

    @Override
    public String captureSchema(Connection connection, String writtenSchema, String table) throws SQLException {
        if (writtenSchema == null || writtenSchema.equals(connection.getCatalog())) return null;
        throw new SQLException("cannot capture writes to " + writtenSchema + "." + table + ": only tables of the"
                + " instance's own database (" + connection.getCatalog() + ") are replicated", "0A000");
    }

    @Override
    public String metadataCatalog(Connection connection) throws SQLException {
        return connection.getCatalog();
    }

    @Override
    public List<String> rowIdAliases() {
        return List.of();
    }

    /** RETURNING for INSERT, REPLACE and DELETE; null for UPDATE, which is captured by a keyed re-read. */
    @Override
    public String returningAll(String sql, WriteKind kind) {
        if (kind == WriteKind.UPDATE) return null;
        return Dialects.returningAll(sql);
    }

    @Override
    public ResultSet generatedKeys(Connection connection, WriteKind kind, WrittenRows written, KeyRequest request)
            throws SQLException {
        if (!request.requested())
            throw new SQLException("Cannot return generated keys: query was not set with Statement.RETURN_GENERATED_KEYS");
        List<List<Object>> rows = new ArrayList<>();
        if (kind == WriteKind.INSERT && written.table() != null && !written.table().autoIncrementColumns().isEmpty()) {
            int at = written.indexOf(written.table().autoIncrementColumns().get(0));
            if (at >= 0) for (List<Object> row : written.rows()) rows.add(java.util.Collections.singletonList(row.get(at)));
        }
        return ListResultSet.of(List.of("insert_id"), rows);
    }

    @Override
    public String upsertSql(String table, List<String> columns, List<String> keyColumns) {
        StringJoiner sets = new StringJoiner(", ");
        for (String c : columns) {
            if (!keyColumns.contains(c)) sets.add(quote(c) + " = VALUES(" + quote(c) + ")");
        }
        // ON DUPLICATE KEY UPDATE needs an assignment: a table of keys only sets its first key to itself
        if (sets.length() == 0) sets.add(quote(keyColumns.get(0)) + " = " + quote(keyColumns.get(0)));
        return "SET STATEMENT foreign_key_checks = 0 FOR " + Dialects.insertSql(this, table, columns)
                + " ON DUPLICATE KEY UPDATE " + sets;
    }

    @Override
    public String appendSql(String table, List<String> columns) {
        return "SET STATEMENT foreign_key_checks = 0 FOR " + Dialects.insertSql(this, table, columns);
    }

    @Override
    public String nullSafeEqual() {
        return "<=>";
    }

    @Override
    public String removeOneSql(String table, List<String> columns) {
        return "SET STATEMENT foreign_key_checks = 0 FOR DELETE FROM " + quote(table) + " WHERE "
                + equalInEveryColumn(columns) + " LIMIT 1";
    }

    @Override
    public String deleteSql(String table, List<String> keyColumns) {
        return "SET STATEMENT foreign_key_checks = 0 FOR " + Dialects.deleteSql(this, table, keyColumns);
    }

    @Override
    public void beforeApply(Connection connection) {
        // foreign-key checks are switched off per statement (upsertSql, appendSql, deleteSql)
    }

    /** Dates and times travel as their text form, which MariaDB reads back into the same value. */
    @Override
    public Value toValue(Object o) {
        if (o instanceof java.util.Date || o instanceof java.time.temporal.Temporal)
            return new Value.Text(o.toString());
        return Value.of(o);
    }

    @Override
    public String sqlType(SqlType type) {
        switch (type) {
            case BIGINT: return "BIGINT";
            case TEXT: return "VARCHAR(255)"; // short texts: the token status, a cluster id
            case BLOB: return "LONGBLOB";
            default: throw new IllegalArgumentException(String.valueOf(type));
        }
    }

    @Override
    public String toString() {
        return name();
    }
}
