package dev.gyro.check;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Checks that replicated tables are equal on every instance once the ring is quiet. It stands apart from
 * the code it checks, so a fault there cannot hide itself: it reads the databases directly, not through Gyro.
 */
public final class ReplicaCheck {

    private ReplicaCheck() {}

    /** One table on one instance: its row count and a digest of all its rows in key order. */
    public record TableDigest(String table, int instance, long rows, String sha256) {}

    /** What {@link #compareReplicas} found: how many tables it compared, and each copy that differs from replica 0's. */
    public record ReplicaComparison(int tables, List<String> differences) {
        public boolean equal() {
            return differences.isEmpty();
        }
    }

    /** The table in which each replica of a group records where it stands: its own, so never compared. */
    public static final String REPLICA_STAMP = "gyro_replica";

    /**
     * Compares the replicas of one group, {@code replicas} (replica 0 first), table by table, on every table of replica
     * 0's database but {@link #REPLICA_STAMP} (docs/decisions/24-ring-on-groups.md): each difference names the table,
     * the replica, and both copies' row counts and digests.
     */
    public static ReplicaComparison compareReplicas(List<Connection> replicas) throws SQLException {
        List<String> differences = new ArrayList<>();
        int tables = 0;
        for (String table : tables(replicas.get(0))) {
            if (table.equalsIgnoreCase(REPLICA_STAMP)) continue;
            tables++;
            TableDigest first = digest(replicas.get(0), table, 0);
            for (int r = 1; r < replicas.size(); r++) {
                TableDigest d = digest(replicas.get(r), table, r);
                if (d.rows() != first.rows() || !d.sha256().equals(first.sha256()))
                    differences.add("table " + table + " differs between replica 0 (" + first.rows() + " rows, "
                            + first.sha256() + ") and replica " + r + " (" + d.rows() + " rows, " + d.sha256() + ")");
            }
        }
        return new ReplicaComparison(tables, differences);
    }

    /**
     * The tables of {@code c}'s database (its own catalog only, SQLite's internal ones left out), sorted: what two
     * replicas of one group are compared on, table by table.
     */
    public static List<String> tables(Connection c) throws SQLException {
        java.util.Set<String> out = new java.util.TreeSet<>();
        try (ResultSet rs = c.getMetaData().getTables(c.getCatalog(), null, "%", new String[] {"TABLE"})) {
            while (rs.next()) {
                String name = rs.getString("TABLE_NAME");
                if (!name.toLowerCase(java.util.Locale.ROOT).startsWith("sqlite_")) out.add(name);
            }
        }
        return new ArrayList<>(out);
    }

    /** Digest of one table's full contents, ordered by every column (so the order of inserts does not matter). */
    public static TableDigest digest(Connection c, String table, int instance) throws SQLException {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        long rows = 0;
        try (Statement s = c.createStatement()) {
            int columns;
            try (ResultSet probe = s.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
                columns = probe.getMetaData().getColumnCount();
            }
            List<String> order = new ArrayList<>();
            for (int i = 1; i <= columns; i++) order.add(Integer.toString(i));
            try (ResultSet rs = s.executeQuery("SELECT * FROM " + table + " ORDER BY " + String.join(", ", order))) {
                ResultSetMetaData md2 = rs.getMetaData();
                while (rs.next()) {
                    rows++;
                    for (int i = 1; i <= md2.getColumnCount(); i++) {
                        Object v = rs.getObject(i);
                        String text = v == null ? "\u0000NULL" : v instanceof byte[] b ? HexFormat.of().formatHex(b)
                                : v instanceof Number n ? normalize(n) : v.toString();
                        md.update(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                        md.update((byte) 0x1f);
                    }
                    md.update((byte) 0x1e);
                }
            }
        }
        return new TableDigest(table, instance, rows, HexFormat.of().formatHex(md.digest()));
    }

    private static String normalize(Number n) {
        if (n instanceof Double || n instanceof Float) {
            double d = n.doubleValue();
            return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
        }
        return Long.toString(n.longValue());
    }
}
