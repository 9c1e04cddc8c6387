package dev.gyro.apps;

import dev.gyro.servers.ServerKind;
import dev.gyro.servers.ThrowawayServers;
import org.junit.jupiter.api.Assumptions;

import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Scratch databases for the applications' tests: SQLite files, and a fresh database on a throwaway PostgreSQL or
 * MariaDB server that the tests start themselves on a free loopback port ({@link ThrowawayServers}), never the
 * servers that may run on the standard ports. {@code -Dgyro.test.postgres=JDBC-URL} or
 * {@code -Dgyro.test.mariadb=JDBC-URL} names a server of your own instead. When a server's programs are missing the
 * test is skipped with the reason; with {@code CI=true} it fails.
 */
public final class Databases {

    private Databases() {}

    /** A SQLite file; no fsync per commit (a test's database need not survive a power cut). */
    public static Connection sqlite(Path file) throws SQLException {
        Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA journal_mode = WAL");
            s.execute("PRAGMA synchronous = OFF");
        }
        return c;
    }

    /** A fresh PostgreSQL schema named {@code name} (dropped first), as the connection's current schema. */
    public static Connection postgres(String name) throws SQLException {
        String base = System.getProperty("gyro.test.postgres");
        if (base == null) return DriverManager.getConnection(throwaway(ServerKind.POSTGRES));
        Connection admin = open(base);
        try (Statement s = admin.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
            s.execute("CREATE SCHEMA " + name);
        } finally {
            admin.close();
        }
        return DriverManager.getConnection(base + "&currentSchema=" + name);
    }

    /** A fresh MariaDB database named {@code name} (dropped first). */
    public static Connection mariadb(String name) throws SQLException {
        String base = System.getProperty("gyro.test.mariadb");
        if (base == null) return DriverManager.getConnection(throwaway(ServerKind.MARIADB));
        Connection admin = open(base);
        try (Statement s = admin.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name);
            s.execute("CREATE DATABASE " + name);
        } finally {
            admin.close();
        }
        int slash = base.indexOf('/', base.indexOf("//") + 2);
        return DriverManager.getConnection(base.substring(0, slash + 1) + name + base.substring(slash + 1));
    }

    /** A fresh database on a shared throwaway server of this kind; skips (fails under CI=true) without one. */
    private static String throwaway(ServerKind kind) {
        String reason = kind.unavailableReason();
        if (reason != null) {
            if ("true".equalsIgnoreCase(System.getenv("CI")))
                org.junit.jupiter.api.Assertions.fail("CI=true and no " + kind + " server can be started: " + reason);
            Assumptions.abort("skipped: " + reason + " (with CI=true this fails)");
        }
        return ThrowawayServers.freshDatabase(kind, 0);
    }

    private static Connection open(String url) {
        try {
            return DriverManager.getConnection(url);
        } catch (SQLException e) {
            Assumptions.abort("database server not reachable at " + url + ": " + e.getMessage());
            throw new AssertionError(e);
        }
    }

    /** A digest of a table's rows, ordered by every column, with integers and texts written the same on every backend. */
    public static String digest(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement()) {
            int columns;
            try (ResultSet probe = s.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
                columns = probe.getMetaData().getColumnCount();
            }
            List<String> order = new ArrayList<>();
            for (int i = 1; i <= columns; i++) order.add(Integer.toString(i));
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            long rows = 0;
            try (ResultSet rs = s.executeQuery("SELECT * FROM " + table + " ORDER BY " + String.join(", ", order))) {
                while (rs.next()) {
                    rows++;
                    for (int i = 1; i <= columns; i++) {
                        Object v = rs.getObject(i);
                        String text = v instanceof Number n ? Long.toString(n.longValue()) : String.valueOf(v);
                        md.update(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                        md.update((byte) 0x1f);
                    }
                }
            }
            return rows + ":" + HexFormat.of().formatHex(md.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
