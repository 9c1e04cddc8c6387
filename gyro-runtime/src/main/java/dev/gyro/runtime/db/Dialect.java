package dev.gyro.runtime.db;

import com.zaxxer.hikari.HikariConfig;
import dev.gyro.protocol.Value;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Everything that differs between the supported DBMSs (docs/decisions/02-jdbc-only.md), so that the rest of the
 * database layer is plain JDBC. One implementation per backend: {@link SqliteDialect}, {@link PostgresDialect},
 * {@link MariaDbDialect}. Implementations are stateless and thread-safe.
 */
public interface Dialect {

    /**
     * The dialect of the DBMS behind {@code connection}, from its JDBC metadata.
     *
     * @throws SQLException when Gyro has no dialect for that DBMS
     */
    static Dialect of(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        String p = product == null ? "" : product.toLowerCase(Locale.ROOT);
        if (p.contains("sqlite")) return SqliteDialect.INSTANCE;
        if (p.contains("postgres")) return PostgresDialect.INSTANCE;
        if (p.contains("mariadb") || p.contains("mysql")) return MariaDbDialect.INSTANCE;
        throw new SQLException("Gyro has no dialect for DBMS " + product + " (supported: SQLite, PostgreSQL, MariaDB)",
                "0A000");
    }

    /**
     * The dialect for {@code jdbcUrlOrFile}: a JDBC URL names its DBMS; anything else is a SQLite database file.
     *
     * @throws IllegalArgumentException for a JDBC URL of another DBMS
     */
    static Dialect forTarget(String jdbcUrlOrFile) {
        String t = jdbcUrlOrFile == null ? "" : jdbcUrlOrFile.strip().toLowerCase(Locale.ROOT);
        if (t.startsWith("jdbc:postgresql:")) return PostgresDialect.INSTANCE;
        if (t.startsWith("jdbc:mariadb:") || t.startsWith("jdbc:mysql:")) return MariaDbDialect.INSTANCE;
        if (t.startsWith("jdbc:sqlite:") || !t.startsWith("jdbc:")) return SqliteDialect.INSTANCE;
        throw new IllegalArgumentException("Gyro has no dialect for JDBC URL " + jdbcUrlOrFile
                + " (supported: jdbc:sqlite:, jdbc:postgresql:, jdbc:mariadb:, jdbc:mysql:)");
    }

    /** A short name for messages and logs ("sqlite", "postgres", "mariadb"). */
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
     * {@code setAutoCommit(false)} starts a serializable transaction that will not fail later for lock upgrades
     * where the backend can promise that (SQLite: {@code BEGIN IMMEDIATE}); the read-only pool serves serializable
     * transactions that only read, concurrently. Pools are configured with auto-commit on; {@link Database}
     * switches it off when it hands out a connection, which starts the transaction.
     */
    void configurePool(HikariConfig config, String jdbcUrl, boolean readOnly, Database.Options options);

    /**
     * The options a Gyro instance opens its database with: pool sizes that suit the backend (SQLite has one
     * writer, so one write connection makes writers queue in the pool instead of polling the file lock).
     */
    default Database.Options instanceOptions() {
        return Database.Options.defaults();
    }

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
     * Commit ordering (paper Appendix B; docs/decisions/06-commit-ordering.md): true only when the DBMS never lets a
     * transaction commit before one serialized ahead of it, so a primary may run its queued global requests in
     * parallel. False means: run them one at a time.
     */
    boolean parallelGlobals();

    /**
     * Where the DBMS does not order commits itself but its serializable isolation detects cycles (PostgreSQL's SSI),
     * {@link OrderedCommits} makes the order, and a round's globals run in parallel all the same
     * (docs/decisions/20-postgres-ordered-commits.md).
     */
    default boolean orderedCommits() {
        return false;
    }

    /**
     * Makes the transaction of {@code c}, a read-only connection that ran no statement yet, read one snapshot without
     * locking what it reads: a scan that must not hold up the writers of its tables (a bucket move's copy,
     * docs/decisions/43-bucket-moves.md). Where serializable reads are snapshot reads already (SQLite, PostgreSQL),
     * nothing.
     */
    default void readSnapshot(Connection c) throws SQLException {}

    /**
     * True when {@code e} (not its causes) means "the transaction lost a race; run it again": SQLite's
     * BUSY/LOCKED, serialization failures (SQLSTATE 40001) and deadlocks elsewhere
     * (docs/decisions/06-commit-ordering.md).
     */
    boolean isRetryable(SQLException e);

    /** The identifier quoted for this DBMS. */
    String quote(String identifier);

    /**
     * The schema to look a written table up in, given the schema the statement named (null if none): null for the
     * connection's default schema.
     *
     * @throws SQLException when writes to that schema cannot be captured (only the tables of the instance's own
     *                      database and default schema are replicated: row images carry a table name, not a schema)
     */
    String captureSchema(Connection connection, String writtenSchema, String table) throws SQLException;

    /** The JDBC catalog that tables are looked up in through {@link java.sql.DatabaseMetaData} (null: any). */
    default String metadataCatalog(Connection connection) throws SQLException {
        return null;
    }

    /** The JDBC schema that unqualified tables are looked up in (null: any). */
    default String defaultSchema(Connection connection) throws SQLException {
        return null;
    }

    /**
     * Hidden row identifiers an UPDATE could change besides the declared columns (SQLite's {@code rowid}),
     * lower case; changing one changes the row's identity, which capture refuses like a key change.
     */
    List<String> rowIdAliases();

    /**
     * Row-image capture (docs/decisions/04-row-images.md): {@code sql}, a single INSERT/REPLACE/UPDATE/DELETE
     * statement, rewritten so that executing it as a query also returns every row it wrote, with all columns -- the row
     * after the write for inserts and updates, the row before for deletes -- one result row per written row, and with
     * the same parameters at the same positions. Null when this backend cannot do that for {@code kind}
     * (MariaDB's UPDATE has no RETURNING): the capture then reads the keys of the rows the statement will write
     * before it runs and the rows themselves after it ran ({@link KeyedReRead}).
     */
    String returningAll(String sql, WriteKind kind);

    /**
     * Whether the application's request for generated keys ({@code prepareStatement(sql, RETURN_GENERATED_KEYS)})
     * is passed on to the driver when the rewritten statement is prepared. False when the driver would act on it
     * in a way that conflicts with the rewrite (pgjdbc appends its own RETURNING and moves the rows to the keys).
     */
    default boolean forwardsKeyRequest() {
        return false;
    }

    /**
     * The generated keys of a captured write, as the driver would report them for the application's original
     * statement (the rewritten one it actually ran cannot tell): from {@code written}, the rows the write wrote with
     * all their columns (for SQLite, {@code last_insert_rowid()} on the connection instead). Called on the same
     * connection right after the write ran, before any other write; {@code kind} is null and {@code written} empty
     * when nothing ran yet. The caller closes the result set (and its statement, when
     * {@link ResultSet#getStatement()} is not null).
     *
     * @throws SQLException where the driver would throw, for example keys asked for but not requested (MariaDB)
     */
    ResultSet generatedKeys(Connection connection, WriteKind kind, WrittenRows written, KeyRequest request)
            throws SQLException;

    /**
     * An idempotent upsert by primary key: {@code INSERT INTO table (columns) VALUES (?...)} that, when a row with
     * the same key exists, overwrites it with these values. Parameters are the values in {@code columns} order.
     */
    String upsertSql(String table, List<String> columns, List<String> keyColumns);

    /** {@code DELETE FROM table WHERE k1 = ? AND ...}: parameters are the key values in key order. */
    String deleteSql(String table, List<String> keyColumns);

    /**
     * A plain insert of a whole row into a table without a primary key ({@link dev.gyro.protocol.RowChange.Kind#APPEND}):
     * {@code INSERT INTO table (columns) VALUES (?...)}, parameters in {@code columns} order.
     */
    default String appendSql(String table, List<String> columns) {
        return Dialects.insertSql(this, table, columns);
    }

    /**
     * Deletes one row of a table without a primary key equal to the parameters in every column, NULL equal to NULL
     * ({@link dev.gyro.protocol.RowChange.Kind#REMOVE}); parameters in {@code columns} order.
     */
    String removeOneSql(String table, List<String> columns);

    /** The operator that compares two values as equal when both are NULL ({@code IS NOT DISTINCT FROM} in SQL:2003). */
    default String nullSafeEqual() {
        return "IS NOT DISTINCT FROM";
    }

    /** {@code c1 <nullSafeEqual> ? AND c2 <nullSafeEqual> ? ...}: a row equal to the parameters in every column. */
    default String equalInEveryColumn(List<String> columns) {
        return Dialects.equalInEveryColumn(this, columns, nullSafeEqual());
    }

    /** Whether a locking read says so ({@code SELECT ... FOR UPDATE}); SQLite's one writer holds every row already. */
    default boolean selectsForUpdate() {
        return true;
    }

    /**
     * Prepares a transaction that is about to apply state updates: row changes arrive in the origin's write order
     * but not in an order that satisfies foreign keys statement by statement, so checks that can be deferred to
     * commit are deferred (SQLite: {@code PRAGMA defer_foreign_keys}).
     */
    void beforeApply(Connection connection) throws SQLException;

    /**
     * Called in the same transaction after state updates were applied that upserted rows of {@code tables}: lets
     * key generators catch up with keys that were written explicitly (PostgreSQL sequences do not move when a
     * row is inserted with an explicit key; SQLite's AUTOINCREMENT and InnoDB's AUTO_INCREMENT do).
     */
    default void afterApply(Connection connection, Set<String> tables, TableCatalog catalog) throws SQLException {}

    /**
     * A value read from this DBMS (a captured row, {@link java.sql.ResultSet#getObject}) as a row-image value.
     * The default takes the five storage classes of {@link Value}; a backend may map more of its types to text
     * that it reads back as the same value (PostgreSQL: timestamps, UUIDs, JSON).
     *
     * @throws IllegalArgumentException for a value of a type Gyro cannot ship
     */
    default Value toValue(Object o) {
        return Value.of(o);
    }

    /**
     * Binds a row-image value as parameter {@code index} of an upsert or delete (update application). The default
     * uses the value's own JDBC type.
     */
    default void bind(PreparedStatement ps, int index, Value v) throws SQLException {
        if (v instanceof Value.Null) {
            ps.setNull(index, Types.NULL);
        } else if (v instanceof Value.Int i) {
            ps.setLong(index, i.value());
        } else if (v instanceof Value.Real r) {
            ps.setDouble(index, r.value());
        } else if (v instanceof Value.Text t) {
            ps.setString(index, t.value());
        } else if (v instanceof Value.Blob b) {
            ps.setBytes(index, (byte[]) b.toJava());
        } else {
            throw new SQLException("unsupported value " + v);
        }
    }

    /** The column type for Gyro's own metadata tables. */
    String sqlType(SqlType type);

    /** Column types of Gyro's metadata tables. */
    enum SqlType { BIGINT, TEXT, BLOB }
}
