package dev.gyro.analyzer;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The time to analyze about 50,000 lines of legacy code stays under a minute (gyro-analyzer/README.md):
 * a generated tree of DAO classes, each with transactions opening their own connection, helpers receiving
 * it, and the validation and formatting code real classes carry around their SQL.
 */
@Tag("slow")
class ScaleTest {
    private static final Logger LOG = LoggerFactory.getLogger(ScaleTest.class);
    static final int CLASSES = 250;
    static final int TABLES = 40;

    @Test
    void fiftyThousandLinesOfDaoClassesInUnderAMinute(@TempDir Path dir) throws IOException {
        long lines = generate(dir);
        // The analysis runs on this one thread: its CPU time is what it takes on a core of its own. The wall time is
        // logged too, but on a machine shared with other builds it mostly measures their load.
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long start = System.nanoTime();
        long cpuStart = threads.getCurrentThreadCpuTime();
        AnalysisResult r = new Analyzer().analyze(List.of(dir));
        long cpuMillis = (threads.getCurrentThreadCpuTime() - cpuStart) / 1_000_000;
        long millis = (System.nanoTime() - start) / 1_000_000;
        LOG.info("analyzed {} lines in {} Java files, {} transactions, in {} ms of CPU ({} ms wall, load average {})",
                lines, r.javaFiles(), r.transactions().size(), cpuMillis, millis,
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        assertThat(lines).isGreaterThanOrEqualTo(50_000);
        assertThat(r.transactions()).hasSize(CLASSES * 4);
        assertThat(cpuMillis).isLessThan(60_000);
    }

    /** Writes the tree; returns its number of lines. */
    static long generate(Path dir) throws IOException {
        StringBuilder schema = new StringBuilder();
        for (int t = 0; t < TABLES; t++) {
            schema.append("CREATE TABLE T").append(t).append(" (ID BIGINT NOT NULL PRIMARY KEY, OWNER BIGINT NOT NULL, ")
                    .append("NAME VARCHAR(40) NOT NULL, QTY INT NOT NULL, UPDATED BIGINT NOT NULL);\n");
        }
        Files.writeString(dir.resolve("schema.sql"), schema);
        long lines = schema.toString().lines().count();
        for (int k = 0; k < CLASSES; k++) {
            String source = daoClass(k, "T" + (k % TABLES), "T" + ((k * 7 + 3) % TABLES));
            Files.writeString(dir.resolve("Dao" + k + ".java"), source);
            lines += source.lines().count();
        }
        return lines;
    }

    private static String daoClass(int k, String table, String other) {
        StringBuilder filler = new StringBuilder();
        for (int i = 0; i < 14; i++) {
            filler.append("""
                        /** Formats a record for the %2$s screen. */
                        static String format%1$d(long id, String name, int qty) {
                            if (name == null || name.isEmpty()) {
                                throw new IllegalArgumentException("name");
                            }
                            StringBuilder sb = new StringBuilder();
                            sb.append(id).append(';').append(name.trim()).append(';').append(qty);
                            return sb.toString();
                        }
                    """.formatted(i, table));
        }
        return """
                package gen.dao;

                import java.sql.Connection;
                import java.sql.DriverManager;
                import java.sql.PreparedStatement;
                import java.sql.ResultSet;
                import java.sql.SQLException;

                public class Dao%1$d {
                    private static final String FIND = "SELECT NAME, QTY FROM %2$s WHERE ID = ?";
                    private static final String BY_OWNER = "SELECT ID, NAME FROM %2$s WHERE OWNER = ?";

                    private static Connection open() throws SQLException {
                        return DriverManager.getConnection("jdbc:postgresql://db/app");
                    }

                    public String find%1$d(long id) throws SQLException {
                        try (Connection c = open(); PreparedStatement ps = c.prepareStatement(FIND)) {
                            ps.setLong(1, id);
                            try (ResultSet rs = ps.executeQuery()) {
                                return rs.next() ? format0(id, rs.getString(1), rs.getInt(2)) : null;
                            }
                        }
                    }

                    public int count%1$d(long owner) throws SQLException {
                        try (Connection c = open(); PreparedStatement ps = c.prepareStatement(BY_OWNER)) {
                            ps.setLong(1, owner);
                            int n = 0;
                            try (ResultSet rs = ps.executeQuery()) {
                                while (rs.next()) {
                                    n++;
                                }
                            }
                            return n;
                        }
                    }

                    public void take%1$d(long id, int qty, long now) throws SQLException {
                        try (Connection c = open()) {
                            touch(c, id, now);
                            try (PreparedStatement ps = c.prepareStatement("UPDATE %2$s SET QTY = QTY - ? WHERE ID = ?")) {
                                ps.setInt(1, qty);
                                ps.setLong(2, id);
                                ps.executeUpdate();
                            }
                        }
                    }

                    public long create%1$d(long owner, String name) throws SQLException {
                        try (Connection c = open()) {
                            long id;
                            try (PreparedStatement ps = c.prepareStatement("SELECT MAX(ID) FROM %3$s");
                                 ResultSet rs = ps.executeQuery()) {
                                rs.next();
                                id = rs.getLong(1) + 1;
                            }
                            try (PreparedStatement ps = c.prepareStatement(
                                    "INSERT INTO %3$s (ID, OWNER, NAME, QTY, UPDATED) VALUES (?, ?, ?, 0, 0)")) {
                                ps.setLong(1, id);
                                ps.setLong(2, owner);
                                ps.setString(3, name);
                                ps.executeUpdate();
                            }
                            return id;
                        }
                    }

                    static void touch(Connection c, long id, long now) throws SQLException {
                        try (PreparedStatement ps = c.prepareStatement("UPDATE %2$s SET UPDATED = ? WHERE ID = ?")) {
                            ps.setLong(1, now);
                            ps.setLong(2, id);
                            ps.executeUpdate();
                        }
                    }
                %4$s}
                """.formatted(k, table, other, filler);
    }
}
