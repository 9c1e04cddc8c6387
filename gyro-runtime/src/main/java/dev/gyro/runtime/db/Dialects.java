package dev.gyro.runtime.db;

import com.zaxxer.hikari.HikariConfig;

import java.sql.SQLException;
import java.util.List;
import java.util.StringJoiner;

/**
 * What two or more {@link Dialect}s do alike, written once. Each dialect calls these explicitly, passing what is
 * its own (a driver class, the spelling of a pseudo-table), so that every difference between the backends stays
 * readable in the dialect class itself.
 */
final class Dialects {

    private Dialects() {}

    /** How many times an instance on a database server runs a transaction that keeps losing races. */
    static final int SERVER_ATTEMPTS = 50;

    /**
     * The options an instance opens a server backend (PostgreSQL, MariaDB) with. Row locks and serializable isolation
     * let many writers in at once, and abort one of two that conflict: under contention a transaction may lose many
     * races in a row (a TPC-C district at 128 clients lost ten), so it gets as many attempts as the benchmarks'
     * baselines give theirs, the pauses between them doubling as ever.
     */
    static Database.Options serverInstanceOptions() {
        Database.Options defaults = Database.Options.defaults();
        return defaults.withPoolSizes(16, 16).withRetries(SERVER_ATTEMPTS, defaults.firstBackoff(), defaults.maxBackoff());
    }

    /**
     * The pool settings of a backend that runs as a server (PostgreSQL, MariaDB): every pooled connection is
     * SERIALIZABLE, and the read-only pool's connections are read-only.
     */
    static void configureServerPool(HikariConfig config, String jdbcUrl, String driverClassName, boolean readOnly) {
        config.setJdbcUrl(jdbcUrl);
        config.setDriverClassName(driverClassName);
        config.setTransactionIsolation("TRANSACTION_SERIALIZABLE");
        config.setReadOnly(readOnly);
    }

    /**
     * Fails unless {@code isolation}, the level the server reports for the connection, is {@code serializable}
     * (in any case); the message spells the level as the server does.
     */
    static void checkSerializable(String isolation, String serializable) throws SQLException {
        if (!serializable.equalsIgnoreCase(isolation))
            throw new SQLException("the connection's isolation level is " + isolation + ", not " + serializable);
    }

    /**
     * {@code sql}, a single write statement, with {@code RETURNING *} after its end (docs/decisions/04-row-images.md).
     */
    static String returningAll(String sql) {
        // The rewritten text keeps every '?' where it was: RETURNING * adds no parameter.
        return SqlText.withoutTail(sql) + "\nRETURNING *";
    }

    /** {@code INSERT INTO table (columns) VALUES (?...)}, every name quoted by {@code dialect}. */
    static String insertSql(Dialect dialect, String table, List<String> columns) {
        StringJoiner cols = new StringJoiner(", ");
        StringJoiner params = new StringJoiner(", ");
        for (String c : columns) {
            cols.add(dialect.quote(c));
            params.add("?");
        }
        return "INSERT INTO " + dialect.quote(table) + " (" + cols + ") VALUES (" + params + ")";
    }

    /**
     * {@link Dialect#upsertSql} for backends with {@code INSERT ... ON CONFLICT (key) DO UPDATE} (PostgreSQL,
     * SQLite): every column that is not a key is overwritten from {@code excluded}, the pseudo-table of the row
     * that was not inserted, as the dialect spells it; a table of keys only does nothing on conflict.
     */
    static String upsertOnConflictSql(Dialect dialect, String excluded, String table, List<String> columns,
            List<String> keyColumns) {
        StringJoiner keys = new StringJoiner(", ");
        StringJoiner sets = new StringJoiner(", ");
        for (String c : columns) {
            if (!keyColumns.contains(c)) sets.add(dialect.quote(c) + " = " + excluded + "." + dialect.quote(c));
        }
        for (String k : keyColumns) keys.add(dialect.quote(k));
        String action = sets.length() == 0 ? "DO NOTHING" : "DO UPDATE SET " + sets;
        return insertSql(dialect, table, columns) + " ON CONFLICT (" + keys + ") " + action;
    }

    /** {@code c1 OP ? AND c2 OP ? ...}, OP the dialect's NULL-safe equality, every name quoted by {@code dialect}. */
    static String equalInEveryColumn(Dialect dialect, List<String> columns, String op) {
        StringJoiner where = new StringJoiner(" AND ");
        for (String c : columns) where.add(dialect.quote(c) + " " + op + " ?");
        return where.toString();
    }

    /** {@code DELETE FROM table WHERE k1 = ? AND ...}, every name quoted by {@code dialect}. */
    static String deleteSql(Dialect dialect, String table, List<String> keyColumns) {
        StringJoiner where = new StringJoiner(" AND ");
        for (String k : keyColumns) where.add(dialect.quote(k) + " = ?");
        return "DELETE FROM " + dialect.quote(table) + " WHERE " + where;
    }
}
