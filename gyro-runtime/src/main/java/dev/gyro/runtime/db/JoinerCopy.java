package dev.gyro.runtime.db;

import dev.gyro.protocol.Ring;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.Value;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The database of an instance that joins a running ring (docs/decisions/44-ring-changes.md): a copy of a member's,
 * taken once that member applied the join, made the joiner's by {@link MetadataStore#becomeJoiner}. A SQLite file is
 * copied whole ({@code VACUUM INTO}, then renamed into place); a database on a server is copied through JDBC, every
 * table in one snapshot of the member's database (repeatable read) and one transaction of the new one, which the
 * application's schema and Gyro's tables were made in first. A copy that fails leaves no half-made member: the next
 * attempt starts again.
 */
public final class JoinerCopy {

    /** Makes the application's tables in a new database. */
    @FunctionalInterface
    public interface Schema {
        void create(Connection c) throws SQLException;
    }

    private JoinerCopy() {}

    /**
     * Whether {@code target} is the database of a member already, as instance {@code self}: it joined, and this is a
     * restart.
     *
     * @throws SQLException when {@code target} holds the Gyro state of another instance, or of one that is not a member
     */
    public static boolean isMember(String target, int self) throws SQLException {
        Dialect d = Dialect.forTarget(target);
        if (d == SqliteDialect.INSTANCE && !target.startsWith("jdbc:") && !Files.exists(Path.of(target))) return false;
        try (Connection c = DriverManager.getConnection(d.jdbcUrl(target))) {
            Long owner;
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT self_id FROM " + MetadataStore.STATE + " WHERE id = 1")) {
                owner = rs.next() ? rs.getLong(1) : null;
            } catch (SQLException noGyroTables) {
                return false;
            }
            if (owner == null) return false;
            Ring ring = MetadataStore.ring(c);
            if (owner == self && ring != null && ring.contains(self)) return true;
            throw new SQLException("database " + describe(target) + " holds the Gyro state of instance " + owner
                    + (owner == self ? " in a ring it is no member of (" + (ring == null ? "the first ring" : ring
                    .members()) + ")" : "") + ": a joining instance starts on a new, empty database");
        }
    }

    /**
     * Makes {@code target} instance {@code self}'s database: a copy of member {@code source}'s, taken once it applied
     * the join of {@code self} (waiting up to {@code waitMillis} for that). What {@code target} held is replaced.
     *
     * @param progress told each table copied
     * @return the rows copied (0 for a SQLite file, copied whole)
     * @throws SQLException when the databases are of different DBMSs, when {@code source} did not apply the join in
     *                      time, or when a table of {@code source} has none of its name in {@code target} after
     *                      {@code schema} made it
     */
    public static long make(String source, String target, int self, Schema schema, long waitMillis,
                            Consumer<String> progress) throws SQLException, InterruptedException {
        Dialect from = Dialect.forTarget(source), to = Dialect.forTarget(target);
        if (from != to)
            throw new SQLException("a joining instance's database is a copy of a member's on the same DBMS: "
                    + describe(source) + " is " + from.name() + ", " + describe(target) + " is " + to.name());
        long deadline = System.currentTimeMillis() + waitMillis;
        if (from == SqliteDialect.INSTANCE) {
            copyFile(source, target, self, deadline);
            progress.accept("copied " + describe(source) + " to " + describe(target));
            return 0;
        }
        return copyRows(source, target, self, schema, deadline, progress);
    }

    /**
     * {@code configured} (the ring as the cluster started) followed by the addresses of the instances that joined
     * since, as {@code target} holds them.
     */
    public static List<String> addresses(String target, List<String> configured) throws SQLException {
        TreeMap<Integer, String> joined = new TreeMap<>();
        try (Connection c = DriverManager.getConnection(Dialect.forTarget(target).jdbcUrl(target));
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT id, address FROM " + MetadataStore.MEMBERS)) {
            while (rs.next()) joined.put((int) rs.getLong(1), rs.getString(2));
        }
        List<String> out = new ArrayList<>(configured);
        for (Map.Entry<Integer, String> e : joined.entrySet()) {
            while (out.size() <= e.getKey()) out.add(null);
            out.set(e.getKey(), e.getValue());
        }
        for (int i = 0; i < out.size(); i++)
            if (out.get(i) == null)
                throw new SQLException("database " + describe(target) + " names no address for instance " + i);
        return out;
    }

    private static void copyFile(String source, String target, int self, long deadline)
            throws SQLException, InterruptedException {
        Path file = Path.of(SqliteDialect.fileOf(SqliteDialect.INSTANCE.jdbcUrl(target))).toAbsolutePath();
        Path making = file.resolveSibling(file.getFileName() + ".joining");
        while (true) {
            try {
                Files.deleteIfExists(making);
                try (Connection c = DriverManager.getConnection(SqliteDialect.INSTANCE.jdbcUrl(source));
                     Statement st = c.createStatement()) {
                    st.execute("VACUUM INTO '" + making.toString().replace("'", "''") + "'");
                }
                try (Connection c = DriverManager.getConnection(SqliteDialect.INSTANCE.jdbcUrl(making.toString()))) {
                    c.setAutoCommit(false);
                    if (joined(c, self)) {
                        MetadataStore.becomeJoiner(c, self);
                        c.commit();
                        break;
                    }
                }
            } catch (java.io.IOException e) {
                throw new SQLException("cannot write " + making + ": " + e.getMessage(), e);
            }
            waitForJoin(source, self, deadline);
        }
        try {
            for (String suffix : List.of("-wal", "-shm")) Files.deleteIfExists(Path.of(file + suffix));
            Files.move(making, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (java.io.IOException e) {
            throw new SQLException("cannot move the copy " + making + " to " + file + ": " + e.getMessage(), e);
        }
    }

    private static long copyRows(String source, String target, int self, Schema schema, long deadline,
                                 Consumer<String> progress) throws SQLException, InterruptedException {
        Dialect d = Dialect.forTarget(source);
        String targetUrl = d.jdbcUrl(target);
        try (Connection in = DriverManager.getConnection(d.jdbcUrl(source));
             Connection out = DriverManager.getConnection(targetUrl)) {
            out.setAutoCommit(false);
            schema.create(out);
            MetadataStore.createTables(out);
            out.commit();
            in.setAutoCommit(false);
            in.setReadOnly(true);
            in.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ); // one snapshot of every table
            while (!joined(in, self)) {
                in.rollback();
                waitForJoin(source, self, deadline);
            }
            long rows = copyTables(in, out, d, describe(source), describe(target), progress);
            MetadataStore.becomeJoiner(out, self);
            out.commit();
            in.rollback();
            return rows;
        }
    }

    /**
     * Copies every table of the database {@code in} reads (one snapshot: repeatable read, read-only) into the tables of
     * the same names of {@code out}'s, which the application's schema and Gyro's tables were made in first: what they
     * held goes, children before parents, then each table's rows come, parents before children. A table of Gyro's own
     * that {@code out} lacks (per-process tables, made when an instance starts) is left out. Commits nothing.
     *
     * @param progress told each table copied
     * @return the rows copied
     * @throws SQLException when a table of {@code in}'s is not in {@code out}'s
     */
    public static long copyTables(Connection in, Connection out, Dialect d, String from, String to,
                                  Consumer<String> progress) throws SQLException {
        Set<String> made = new LinkedHashSet<>();
        List<String> targetTables = tables(out, d);
        for (String t : targetTables) made.add(t.toLowerCase(Locale.ROOT));
        List<String> copied = new ArrayList<>();
        for (String table : tables(in, d)) {
            if (made.contains(table.toLowerCase(Locale.ROOT))) copied.add(table);
            else if (!table.toLowerCase(Locale.ROOT).startsWith("gyro_"))
                throw new SQLException("table " + table + " of " + from + " is not in " + to + " once the application's"
                        + " schema is made there: the schema makes tables the copy cannot fill");
        }
        d.beforeApply(out);
        for (int i = copied.size() - 1; i >= 0; i--) {
            try (Statement st = out.createStatement()) {
                st.executeUpdate("DELETE FROM " + d.quote(copied.get(i)));
            }
        }
        TableCatalog sourceTables = new TableCatalog();
        long rows = 0;
        for (String table : copied) {
            long n = copyTable(in, out, d, sourceTables.table(in, null, table));
            rows += n;
            progress.accept("copied table " + table + ": " + n + " rows");
        }
        return rows;
    }

    private static long copyTable(Connection in, Connection out, Dialect d, TableInfo info) throws SQLException {
        long[] n = {0};
        List<RowChange> batch = new ArrayList<>();
        TableRows.scan(in, d, info, values -> {
            batch.add(TableRows.image(info, values));
            if (batch.size() == TableRows.FETCH) {
                UpdateApplier.apply(out, d, batch);
                n[0] += batch.size();
                batch.clear();
            }
        });
        UpdateApplier.apply(out, d, batch);
        return n[0] + batch.size();
    }

    /** The tables of {@code c}'s database, a table that others' foreign keys reference before them. */
    static List<String> tables(Connection c, Dialect d) throws SQLException {
        DatabaseMetaData md = c.getMetaData();
        String catalog = d.metadataCatalog(c), schema = d.defaultSchema(c);
        Map<String, Set<String>> parents = new LinkedHashMap<>();
        try (ResultSet rs = md.getTables(catalog, schema, "%", new String[] {"TABLE"})) {
            while (rs.next()) parents.put(rs.getString("TABLE_NAME"), new LinkedHashSet<>());
        }
        for (Map.Entry<String, Set<String>> e : parents.entrySet()) {
            try (ResultSet rs = md.getImportedKeys(catalog, schema, e.getKey())) {
                while (rs.next()) {
                    String parent = rs.getString("PKTABLE_NAME");
                    if (!parent.equals(e.getKey()) && parents.containsKey(parent)) e.getValue().add(parent);
                }
            }
        }
        List<String> ordered = new ArrayList<>();
        Set<String> placed = new LinkedHashSet<>();
        for (String t : parents.keySet()) place(t, parents, placed, new LinkedHashSet<>(), ordered);
        return ordered;
    }

    private static void place(String t, Map<String, Set<String>> parents, Set<String> placed, Set<String> visiting,
                              List<String> ordered) {
        if (placed.contains(t) || !visiting.add(t)) return; // a cycle of foreign keys keeps the metadata's order
        for (String p : parents.get(t)) place(p, parents, placed, visiting, ordered);
        placed.add(t);
        ordered.add(t);
    }

    /** Whether the database {@code c} reads counts {@code self} in its ring. */
    private static boolean joined(Connection c, int self) throws SQLException {
        Ring ring = MetadataStore.ring(c);
        return ring != null && ring.contains(self);
    }

    private static void waitForJoin(String source, int self, long deadline) throws SQLException, InterruptedException {
        if (System.currentTimeMillis() > deadline)
            throw new SQLException("member database " + describe(source) + " has not applied the join of instance "
                    + self + ": copy the database of a member of the ring, once the join was answered");
        Thread.sleep(50); // the member applies the join when the token brings it
    }

    private static String describe(String target) {
        int q = target.indexOf('?');
        return q < 0 ? target : target.substring(0, q); // a URL's parameters may hold a password
    }
}
