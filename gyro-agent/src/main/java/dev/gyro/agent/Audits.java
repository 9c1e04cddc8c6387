package dev.gyro.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gyro.check.Access;
import dev.gyro.check.RowRef;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.TableInfo;
import dev.gyro.runtime.db.UpdateApplier;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * An application's own consistency conditions, asked of its database as a whole (docs/attach.md, "Audits"): each audit
 * is a query that answers one value, asked once before the first call (every instance's database is then the same:
 * the application created and loaded it through Gyro) and once at exit, of the <em>logical</em> database: instance 0's
 * database with, in a transaction rolled back afterwards, every row a local request wrote elsewhere taken from the
 * instance that wrote it (a local write exists only there, paper Section III). Which rows those are, the recorded
 * accesses say ({@link dev.gyro.check.RequestRecorder}): audits record them. An audit with an expected value fails the
 * run when its value at exit differs.
 *
 * <p>Two local requests of different instances that wrote the same row are a violation of Definition 1 the check
 * reports; here the later one's row is taken. In a table without a key, rows are told apart by their values: each
 * value a local request wrote elsewhere is made to occur as often as it does there.
 */
final class Audits {

    /** One audit: a name, a query answering one value, and the value it must have at exit (null: any). */
    record Audit(String name, String sql, String expect) {}

    private final List<Audit> audits;
    private final Map<String, String> before = new LinkedHashMap<>();

    Audits(List<Audit> audits) {
        this.audits = List.copyOf(audits);
    }

    /** The audits a JSON file lists: {@code [{"name": ..., "sql": ..., "expect": ...}, ...]}. */
    static Audits read(Path file) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(file.toFile());
        } catch (IOException e) {
            throw new IllegalArgumentException("audits " + file + " cannot be read: " + e.getMessage());
        }
        if (root == null || !root.isArray()) throw new IllegalArgumentException("audits " + file + ": expected a list");
        List<Audit> out = new ArrayList<>();
        for (JsonNode a : root) {
            if (!a.hasNonNull("name") || !a.hasNonNull("sql"))
                throw new IllegalArgumentException("audits " + file + ": each audit has a name and an sql query: " + a);
            out.add(new Audit(a.get("name").asText(), a.get("sql").asText(),
                    a.hasNonNull("expect") ? a.get("expect").asText() : null));
        }
        return new Audits(out);
    }

    /** Asks every audit of {@code c}, the database before the first call. */
    synchronized void before(Connection c) throws SQLException {
        for (Audit a : audits) before.put(a.name(), ask(c, a));
    }

    /**
     * Asks every audit of the logical database at exit: {@code instances.get(0)}'s, with the rows {@code accesses} say
     * local requests wrote on other instances taken from there.
     *
     * @return one line per audit, and the failures (empty when every expected value holds)
     */
    synchronized Result after(List<Database> instances, List<Access> accesses) throws SQLException {
        Database first = instances.get(0);
        List<String> lines = new ArrayList<>(), failures = new ArrayList<>();
        try (Connection c = first.writeConnection()) {
            try {
                UpdateApplier.apply(c, first.dialect(), localRowsElsewhere(instances, accesses));
                for (Audit a : audits) {
                    String now = ask(c, a);
                    lines.add("audit " + a.name() + ": " + before.getOrDefault(a.name(), "not asked") + " before the"
                            + " first call, " + now + " at exit" + (a.expect() == null ? "" : " (expected " + a.expect() + ")"));
                    if (a.expect() != null && !same(a.expect(), now))
                        failures.add("audit " + a.name() + " is " + now + " at exit, not " + a.expect() + " [" + a.sql() + "]");
                }
            } finally {
                first.rollback(c);
            }
        }
        return new Result(lines, failures);
    }

    record Result(List<String> lines, List<String> failures) {}

    /** The rows local requests of instances other than 0 wrote, as they are where they were written. */
    private static List<RowChange> localRowsElsewhere(List<Database> instances, List<Access> accesses) throws SQLException {
        Map<RowRef, Access> lastWriter = new HashMap<>();
        for (Access a : accesses) {
            if (a.global()) continue;
            for (RowRef w : a.writes()) {
                RowRef row = new RowRef(w.table(), w.key());
                Access seen = lastWriter.get(row);
                if (seen == null || seen.endNanos() < a.endNanos()) lastWriter.put(row, a);
            }
        }
        List<RowChange> out = new ArrayList<>();
        for (Map.Entry<RowRef, Access> e : lastWriter.entrySet()) {
            int at = e.getValue().instance();
            if (at == 0) continue;
            Database db = instances.get(at);
            Connection c = db.readConnection();
            Connection first = instances.get(0).readConnection();
            try {
                TableInfo table = db.tables().table(c, null, e.getKey().table());
                if (table.hasPrimaryKey()) out.add(rowAsWritten(c, db, table, e.getKey().key()));
                else out.addAll(copiesAsWritten(c, first, db, table, e.getKey().key()));
            } finally {
                db.rollback(c);
                c.close();
                instances.get(0).rollback(first);
                first.close();
            }
        }
        return out;
    }

    /**
     * A row of a table without a key, equal to {@code values}, as many times in instance 0's database as in
     * {@code c}'s, where local requests wrote it: the appends or removals that make up the difference.
     */
    private static List<RowChange> copiesAsWritten(Connection c, Connection first, Database db, TableInfo table,
                                                   List<Value> values) throws SQLException {
        long difference = copies(c, db, table, values) - copies(first, db, table, values);
        RowChange.Kind kind = difference > 0 ? RowChange.Kind.APPEND : RowChange.Kind.REMOVE;
        List<RowChange> out = new ArrayList<>();
        for (long i = 0; i < Math.abs(difference); i++)
            out.add(new RowChange(table.name(), kind, table.columns(), values, List.of()));
        return out;
    }

    private static long copies(Connection c, Database db, TableInfo table, List<Value> values) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + db.dialect().quote(table.name())
                + " WHERE " + db.dialect().equalInEveryColumn(table.columns()))) {
            for (int i = 0; i < values.size(); i++) db.dialect().bind(ps, i + 1, values.get(i));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** The row with key {@code key} as {@code c}'s database holds it: an upsert, or a delete when it is gone. */
    private static RowChange rowAsWritten(Connection c, Database db, TableInfo table, List<Value> key) throws SQLException {
        StringJoiner where = new StringJoiner(" AND ");
        for (String k : table.keyColumns()) where.add(db.dialect().quote(k) + " = ?");
        StringJoiner columns = new StringJoiner(", ");
        for (String col : table.columns()) columns.add(db.dialect().quote(col));
        try (PreparedStatement ps = c.prepareStatement("SELECT " + columns + " FROM " + db.dialect().quote(table.name())
                + " WHERE " + where)) {
            for (int i = 0; i < key.size(); i++) db.dialect().bind(ps, i + 1, key.get(i));
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) return new RowChange(table.name(), RowChange.Kind.DELETE, table.keyColumns(), key,
                        table.keyColumns());
                List<Value> values = new ArrayList<>();
                for (int i = 1; i <= table.columns().size(); i++) values.add(db.dialect().toValue(rs.getObject(i)));
                return new RowChange(table.name(), RowChange.Kind.UPSERT, table.columns(), values, table.keyColumns());
            }
        }
    }

    private static String ask(Connection c, Audit a) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(a.sql())) {
            if (!rs.next()) return "no row";
            Object v = rs.getObject(1);
            return v == null ? "NULL" : v.toString();
        } catch (SQLException e) {
            throw new SQLException("audit " + a.name() + " [" + a.sql() + "]: " + e.getMessage(), e.getSQLState(),
                    e.getErrorCode(), e);
        }
    }

    /** The same value: equal as text, or as numbers. */
    private static boolean same(String expected, String actual) {
        if (expected.equals(actual)) return true;
        try {
            return new java.math.BigDecimal(expected).compareTo(new java.math.BigDecimal(actual)) == 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
