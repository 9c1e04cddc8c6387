package dev.gyro.runtime.db;

import com.zaxxer.hikari.HikariConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;

/**
 * SQLite through sqlite-jdbc: one database file per instance (docs/decisions/01-java-maven-processes.md and
 * docs/decisions/02-jdbc-only.md).
 *
 * <ul>
 *   <li>Connections: WAL journal (readers never block the writer), a busy timeout, {@code synchronous=NORMAL}
 *       unless told otherwise, foreign keys as {@link Database.Options#foreignKeys()} says. The read-write pool
 *       begins transactions with {@code BEGIN IMMEDIATE}, so a transaction that reads and then writes never
 *       fails on a lock upgrade; the read-only pool uses deferred transactions with {@code query_only} set.</li>
 *   <li>Capture: {@code RETURNING *} (SQLite 3.35+) appended to the application's statement.</li>
 *   <li>Apply: {@code INSERT ... ON CONFLICT (key) DO UPDATE SET ...} (SQLite 3.24+), never {@code INSERT OR
 *       REPLACE}, whose delete-and-insert would fire ON DELETE foreign-key actions.</li>
 *   <li>Commit ordering: trivially, because there is a single writer; but that means globals run one at a
 *       time ({@link #parallelGlobals()} is false, paper Appendix B).</li>
 *   <li>Retry: SQLITE_BUSY and SQLITE_LOCKED with all their extended codes (BUSY_SNAPSHOT, ...).</li>
 * </ul>
 *
 * <p>sqlite-jdbc runs {@code BEGIN} as soon as auto-commit is switched off and again right after every commit
 * or rollback. With {@code BEGIN IMMEDIATE} that takes the write lock, so a read-write connection must not sit
 * idle with auto-commit off: the pool keeps auto-commit on, and a connection from
 * {@link Database#writeConnection()} should be closed right after its commit or rollback.
 */
public final class SqliteDialect implements Dialect {

    /** First SQLite release with RETURNING. */
    static final int[] MIN_VERSION = {3, 35, 0};
    private static final int SQLITE_BUSY = 5;
    private static final int SQLITE_LOCKED = 6;

    public static final SqliteDialect INSTANCE = new SqliteDialect();

    @Override
    public String name() {
        return "sqlite";
    }

    @Override
    public String jdbcUrl(String urlOrTarget) {
        if (urlOrTarget == null || urlOrTarget.isBlank())
            throw new IllegalArgumentException("no SQLite database file given");
        String url;
        if (urlOrTarget.startsWith("jdbc:")) {
            if (!urlOrTarget.startsWith("jdbc:sqlite:"))
                throw new IllegalArgumentException("not a SQLite JDBC URL: " + urlOrTarget);
            url = urlOrTarget;
        } else {
            url = "jdbc:sqlite:" + Path.of(urlOrTarget).toAbsolutePath();
        }
        String rest = url.substring("jdbc:sqlite:".length());
        if (rest.isEmpty() || rest.startsWith(":memory:") || rest.contains("mode=memory"))
            throw new IllegalArgumentException("an instance's SQLite database must be a file (its pools open it"
                    + " several times and it must survive restarts), not " + url);
        return url;
    }

    /** One write connection: SQLite has one writer per file, so writers queue in the pool, first come first served. */
    @Override
    public Database.Options instanceOptions() {
        return Database.Options.defaults().withPoolSizes(1, 8);
    }

    @Override
    public void configurePool(HikariConfig config, String jdbcUrl, boolean readOnly, Database.Options options) {
        createParentDirectory(jdbcUrl);
        config.setJdbcUrl(jdbcUrl);
        config.setDriverClassName("org.sqlite.JDBC");
        config.addDataSourceProperty("busy_timeout", Long.toString(options.busyTimeout().toMillis()));
        config.addDataSourceProperty("foreign_keys", Boolean.toString(options.foreignKeys()));
        config.addDataSourceProperty("synchronous", options.synchronous().toUpperCase(Locale.ROOT));
        if (readOnly) {
            // WAL is a property of the file, set by the read-write pool, which Database opens first.
            config.addDataSourceProperty("transaction_mode", "DEFERRED");
            config.setConnectionInitSql("PRAGMA query_only = true");
        } else {
            config.addDataSourceProperty("journal_mode", "WAL");
            config.addDataSourceProperty("transaction_mode", "IMMEDIATE");
        }
    }

    /** The file part of a SQLite JDBC URL: what follows {@code jdbc:sqlite:}, without its {@code ?} parameters. */
    static String fileOf(String jdbcUrl) {
        String rest = jdbcUrl.substring("jdbc:sqlite:".length());
        int q = rest.indexOf('?');
        return q < 0 ? rest : rest.substring(0, q);
    }

    private static void createParentDirectory(String jdbcUrl) {
        String file = fileOf(jdbcUrl);
        if (file.startsWith("file:")) return; // URI form: the user knows what they are doing
        Path parent = Path.of(file).toAbsolutePath().getParent();
        if (parent == null) return;
        try {
            Files.createDirectories(parent);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the directory of SQLite database " + jdbcUrl, e);
        }
    }

    /**
     * sqlite-jdbc runs the configured {@code BEGIN} when auto-commit goes off; on the read-write pool that is
     * {@code BEGIN IMMEDIATE}, which waits up to the busy timeout for the write lock and then fails busy.
     */
    @Override
    public void begin(Connection connection) throws SQLException {
        connection.setAutoCommit(false);
    }

    /**
     * Commits by switching auto-commit back on: sqlite-jdbc's {@code commit()} runs the next {@code BEGIN} right
     * after {@code COMMIT}, which would take the write lock again, and, if another writer got it first, wait and
     * then throw although the commit succeeded. Switching auto-commit on runs a plain {@code COMMIT}.
     */
    @Override
    public void commit(Connection connection) throws SQLException {
        connection.setAutoCommit(true);
    }

    /**
     * Rolls back with plain statements, for the same reason as {@link #commit}: {@code ROLLBACK} (an error is
     * ignored: SQLite may already have rolled back, or {@link #begin} failed before a transaction existed), then
     * an empty deferred transaction, which takes no lock, that switching auto-commit on commits. Works whatever
     * sqlite-jdbc believes the auto-commit state to be.
     */
    @Override
    public void rollback(Connection connection) throws SQLException {
        boolean driverInTransactionMode = !connection.getAutoCommit();
        try (Statement st = connection.createStatement()) {
            try {
                st.execute("ROLLBACK");
            } catch (SQLException noTransaction) {
                // nothing to roll back
            }
            if (driverInTransactionMode) st.execute("BEGIN DEFERRED");
        }
        connection.setAutoCommit(true); // commits the empty deferred transaction; a no-op if already on
    }

    @Override
    public void checkServer(Connection connection) throws SQLException {
        String version;
        try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery("SELECT sqlite_version()")) {
            rs.next();
            version = rs.getString(1);
        }
        if (compareVersion(version, MIN_VERSION) < 0)
            throw new SQLException("SQLite " + version + " is too old: Gyro needs 3.35.0 or newer (RETURNING)");
    }

    static int compareVersion(String version, int[] min) {
        String[] parts = version.split("\\.");
        for (int i = 0; i < min.length; i++) {
            int v = i < parts.length ? Integer.parseInt(parts[i].replaceAll("\\D.*", "")) : 0;
            if (v != min[i]) return Integer.compare(v, min[i]);
        }
        return 0;
    }

    @Override
    public boolean parallelGlobals() {
        return false;
    }

    @Override
    public boolean isRetryable(SQLException e) {
        int primary = e.getErrorCode() & 0xff;
        if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) return true;
        if (e instanceof org.sqlite.SQLiteException s && s.getResultCode() != null) {
            int code = s.getResultCode().code & 0xff;
            if (code == SQLITE_BUSY || code == SQLITE_LOCKED) return true;
        }
        String m = e.getMessage();
        return m != null && (m.contains("[SQLITE_BUSY") || m.contains("[SQLITE_LOCKED")
                || m.contains("database is locked") || m.contains("database table is locked"));
    }

    /**
     * Backticks, not double quotes: SQLite reads a double-quoted name that matches no column as a string literal,
     * so {@code WHERE "no_such_column" = ?} would silently match nothing instead of failing.
     */
    @Override
    public String quote(String identifier) {
        return '`' + identifier.replace("`", "``") + '`';
    }

    @Override
    public String captureSchema(Connection connection, String writtenSchema, String table) throws SQLException {
        if (writtenSchema == null || writtenSchema.equalsIgnoreCase("main")) return null;
        throw new SQLException("cannot capture writes to " + writtenSchema + "." + table + ": only tables of the"
                + " instance's main database are replicated (not temp or attached databases)", "0A000");
    }

    @Override
    public List<String> rowIdAliases() {
        return List.of("rowid", "oid", "_rowid_");
    }

    @Override
    public String returningAll(String sql, WriteKind kind) {
        return Dialects.returningAll(sql);
    }

    /** The request for keys goes to sqlite-jdbc unchanged: it ignores RETURNING and reports the last rowid. */
    @Override
    public boolean forwardsKeyRequest() {
        return true;
    }

    /**
     * sqlite-jdbc reports {@code SELECT last_insert_rowid()} (one row, labelled so) after any INSERT or REPLACE,
     * requested or not, and an empty result otherwise; this runs the same query at the same moment.
     */
    @Override
    public ResultSet generatedKeys(Connection connection, WriteKind kind, WrittenRows written, KeyRequest request)
            throws SQLException {
        Statement st = connection.createStatement();
        try {
            return st.executeQuery(kind == WriteKind.INSERT ? "SELECT last_insert_rowid()" : "SELECT 1 WHERE 1 = 2");
        } catch (SQLException | RuntimeException e) {
            st.close();
            throw e;
        }
    }

    @Override
    public String upsertSql(String table, List<String> columns, List<String> keyColumns) {
        return Dialects.upsertOnConflictSql(this, "excluded", table, columns, keyColumns);
    }

    @Override
    public String nullSafeEqual() {
        return "IS";
    }

    @Override
    public String removeOneSql(String table, List<String> columns) {
        return "DELETE FROM " + quote(table) + " WHERE rowid = (SELECT rowid FROM " + quote(table) + " WHERE "
                + equalInEveryColumn(columns) + " LIMIT 1)";
    }

    @Override
    public boolean selectsForUpdate() {
        return false;
    }

    @Override
    public String deleteSql(String table, List<String> keyColumns) {
        return Dialects.deleteSql(this, table, keyColumns);
    }

    @Override
    public void beforeApply(Connection connection) throws SQLException {
        try (Statement st = connection.createStatement()) {
            st.execute("PRAGMA defer_foreign_keys = ON"); // reset by SQLite at the end of the transaction
        }
    }

    @Override
    public String sqlType(SqlType type) {
        switch (type) {
            case BIGINT: return "INTEGER";
            case TEXT: return "TEXT";
            case BLOB: return "BLOB";
            default: throw new IllegalArgumentException(String.valueOf(type));
        }
    }

    @Override
    public String toString() {
        return name();
    }
}
