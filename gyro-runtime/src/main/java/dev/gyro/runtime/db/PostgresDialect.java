package dev.gyro.runtime.db;

import com.zaxxer.hikari.HikariConfig;
import dev.gyro.protocol.Value;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * PostgreSQL (10 or newer) through pgjdbc: one database per instance, on a server of its own.
 *
 * <ul>
 *   <li>Isolation: every pooled connection is SERIALIZABLE, which PostgreSQL implements as serializable snapshot
 *       isolation (SSI): optimistic, so a transaction may fail at any statement or at commit with SQLSTATE 40001;
 *       {@link #isRetryable} says so, and {@link Database#inTransaction} runs it again. Deadlocks (40P01) too.</li>
 *   <li>Commit ordering does NOT hold (paper Appendix B; docs/decisions/06-commit-ordering.md): SSI lets a transaction
 *       that read a row commit after one that later wrote it, although it is serialized first
 *       ({@link #parallelGlobals()} is false; the tests show the reordering on a real server). Gyro makes the order
 *       itself ({@link OrderedCommits}, {@link #orderedCommits()}), so a round's globals still run side by side.</li>
 *   <li>Capture: {@code RETURNING *} appended to every INSERT, UPDATE and DELETE. Generated keys are what pgjdbc
 *       would report: for {@code RETURN_GENERATED_KEYS} every column of the written rows (pgjdbc appends
 *       {@code RETURNING *}), for column names those columns; the rewritten statement is prepared without the
 *       request, which pgjdbc would act on by moving the returned rows into the keys.</li>
 *   <li>Apply: {@code INSERT ... ON CONFLICT (key) DO UPDATE SET c = EXCLUDED.c}; deferrable constraints are
 *       deferred ({@code SET CONSTRAINTS ALL DEFERRED}; foreign keys that are not DEFERRABLE are checked row by
 *       row, so declare them DEFERRABLE if row images may arrive in an order that violates them). Values are bound
 *       untyped so that the server reads them as the column's type (a Boolean captured as 1 goes back into a
 *       boolean column). Sequences of serial and identity columns are moved past the keys applied, because
 *       PostgreSQL does not move them when a row is inserted with an explicit key.</li>
 * </ul>
 */
public final class PostgresDialect implements Dialect {

    public static final PostgresDialect INSTANCE = new PostgresDialect();
    static final int MIN_MAJOR_VERSION = 10;

    private PostgresDialect() {}

    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public String jdbcUrl(String urlOrTarget) {
        if (urlOrTarget == null || !urlOrTarget.strip().startsWith("jdbc:postgresql:"))
            throw new IllegalArgumentException("a PostgreSQL instance is reached by a JDBC URL"
                    + " (jdbc:postgresql://host:port/database?user=...), not '" + urlOrTarget + "'");
        return urlOrTarget.strip();
    }

    @Override
    public void configurePool(HikariConfig config, String jdbcUrl, boolean readOnly, Database.Options options) {
        Dialects.configureServerPool(config, jdbcUrl, "org.postgresql.Driver", readOnly);
        config.addDataSourceProperty("ApplicationName", "gyro");
    }

    @Override
    public Database.Options instanceOptions() {
        return Dialects.serverInstanceOptions();
    }

    @Override
    public void checkServer(Connection connection) throws SQLException {
        DatabaseMetaData md = connection.getMetaData();
        if (md.getDatabaseMajorVersion() < MIN_MAJOR_VERSION)
            throw new SQLException("PostgreSQL " + md.getDatabaseProductVersion() + " is too old: Gyro needs "
                    + MIN_MAJOR_VERSION + " or newer");
        try (Statement st = connection.createStatement();
             ResultSet rs = st.executeQuery("SHOW default_transaction_isolation")) {
            rs.next();
            Dialects.checkSerializable(rs.getString(1), "serializable");
        }
    }

    @Override
    public boolean parallelGlobals() {
        return false;
    }

    /**
     * SSI aborts one side of every cycle, which is what {@link OrderedCommits} builds on: a round's globals run side by
     * side (docs/decisions/20-postgres-ordered-commits.md).
     */
    @Override
    public boolean orderedCommits() {
        return true;
    }

    /** Serialization failure (40001), deadlock (40P01), lock not available (55P03, with a lock_timeout). */
    @Override
    public boolean isRetryable(SQLException e) {
        String state = e.getSQLState();
        return "40001".equals(state) || "40P01".equals(state) || "55P03".equals(state);
    }

    @Override
    public String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    @Override
    public String captureSchema(Connection connection, String writtenSchema, String table) throws SQLException {
        if (writtenSchema == null) return null;
        String current = connection.getSchema();
        if (writtenSchema.equals(current) || writtenSchema.toLowerCase(Locale.ROOT).equals(current)) return null;
        throw new SQLException("cannot capture writes to " + writtenSchema + "." + table + ": only tables of the"
                + " connection's current schema (" + current + ") are replicated", "0A000");
    }

    @Override
    public String defaultSchema(Connection connection) throws SQLException {
        return connection.getSchema();
    }

    @Override
    public List<String> rowIdAliases() {
        return List.of();
    }

    @Override
    public String returningAll(String sql, WriteKind kind) {
        return Dialects.returningAll(sql);
    }

    @Override
    public ResultSet generatedKeys(Connection connection, WriteKind kind, WrittenRows written, KeyRequest request)
            throws SQLException {
        if (!request.requested() || kind == null) return ListResultSet.of(List.of(), List.of());
        if (request.indexes() != null)
            throw new SQLFeatureNotSupportedException("Returning autogenerated keys by column index is not supported.");
        return written.returned(request.names() == null ? List.of("*") : List.of(request.names()));
    }

    @Override
    public String upsertSql(String table, List<String> columns, List<String> keyColumns) {
        return Dialects.upsertOnConflictSql(this, "EXCLUDED", table, columns, keyColumns);
    }

    @Override
    public String removeOneSql(String table, List<String> columns) {
        return "DELETE FROM " + quote(table) + " WHERE ctid = (SELECT ctid FROM " + quote(table) + " WHERE "
                + equalInEveryColumn(columns) + " LIMIT 1)";
    }

    @Override
    public String deleteSql(String table, List<String> keyColumns) {
        return Dialects.deleteSql(this, table, keyColumns);
    }

    @Override
    public void beforeApply(Connection connection) throws SQLException {
        try (Statement st = connection.createStatement()) {
            st.execute("SET CONSTRAINTS ALL DEFERRED");
        }
    }

    /** Moves the sequence of every serial or identity column of {@code tables} past the largest value present. */
    @Override
    public void afterApply(Connection connection, Set<String> tables, TableCatalog catalog) throws SQLException {
        for (String table : tables) {
            TableInfo info = catalog.table(connection, null, table);
            for (String column : info.autoIncrementColumns()) {
                String sql = "SELECT setval(s.seq, x.m) FROM (SELECT pg_get_serial_sequence(?, ?) AS seq) s,"
                        + " (SELECT MAX(" + quote(column) + ") AS m FROM " + quote(info.name()) + ") x"
                        + " WHERE s.seq IS NOT NULL AND x.m IS NOT NULL"
                        + " AND x.m > COALESCE(pg_sequence_last_value(s.seq::regclass), 0)";
                try (PreparedStatement ps = connection.prepareStatement(sql)) {
                    ps.setString(1, quote(info.name()));
                    ps.setString(2, column);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            // setval ran
                        }
                    }
                }
            }
        }
    }

    /**
     * Timestamps, dates, times, UUIDs, JSON and other values pgjdbc returns as objects travel as their text form,
     * which PostgreSQL reads back into the same value (see {@link #bind}).
     */
    @Override
    public Value toValue(Object o) {
        if (o instanceof java.util.Date || o instanceof java.time.temporal.Temporal || o instanceof java.util.UUID
                || o instanceof org.postgresql.util.PGobject)
            return new Value.Text(o.toString());
        return Value.of(o);
    }

    /** Untyped (Types.OTHER) for numbers and text, so the server reads each as the column's type. */
    @Override
    public void bind(PreparedStatement ps, int index, Value v) throws SQLException {
        if (v instanceof Value.Null) {
            ps.setNull(index, Types.NULL);
        } else if (v instanceof Value.Int i) {
            ps.setObject(index, Long.toString(i.value()), Types.OTHER);
        } else if (v instanceof Value.Real r) {
            ps.setObject(index, Double.toString(r.value()), Types.OTHER);
        } else if (v instanceof Value.Text t) {
            ps.setObject(index, t.value(), Types.OTHER);
        } else if (v instanceof Value.Blob b) {
            ps.setBytes(index, (byte[]) b.toJava());
        } else {
            throw new SQLException("unsupported value " + v);
        }
    }

    @Override
    public String sqlType(SqlType type) {
        switch (type) {
            case BIGINT: return "BIGINT";
            case TEXT: return "TEXT";
            case BLOB: return "BYTEA";
            default: throw new IllegalArgumentException(String.valueOf(type));
        }
    }

    @Override
    public String toString() {
        return name();
    }
}
