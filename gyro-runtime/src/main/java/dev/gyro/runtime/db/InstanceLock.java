package dev.gyro.runtime.db;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * One running instance per database, held for the instance's lifetime (docs/decisions/13-secure-by-default.md): a
 * second instance started on a database while the first runs would apply the ring's updates twice and answer for a
 * token it does not hold. The lock is the DBMS's or the operating system's, so it goes away with the process or session
 * that held it, and a crashed instance never leaves its database locked:
 * <ul>
 *   <li>SQLite: an exclusive lock on a file beside the database ({@code FILE.lock}); not on the database file itself,
 *       whose POSIX locks are SQLite's own and would be released by closing any other descriptor of the file;</li>
 *   <li>PostgreSQL: a session advisory lock ({@code pg_try_advisory_lock}) on a connection of its own (advisory locks
 *       are per database);</li>
 *   <li>MariaDB: a named lock ({@code GET_LOCK}) on a connection of its own, named after the database (named locks
 *       are per server).</li>
 * </ul>
 */
public final class InstanceLock implements AutoCloseable {

    /** PostgreSQL's advisory lock key of a Gyro instance: "gyro" in ASCII, so it reads as what it is in pg_locks. */
    static final long ADVISORY_KEY = 0x6779726fL;

    private final FileChannel file;
    private final FileLock lock;
    private final Connection session;

    private InstanceLock(FileChannel file, FileLock lock, Connection session) {
        this.file = file;
        this.lock = lock;
        this.session = session;
    }

    /**
     * Takes the lock of the database at {@code jdbcUrl} for instance {@code self}, without waiting.
     *
     * @throws SQLException naming the database when another instance holds it, or when the lock cannot be taken
     */
    public static InstanceLock acquire(Dialect dialect, String jdbcUrl, int self) throws SQLException {
        return switch (dialect.name()) {
            case "sqlite" -> fileLock(jdbcUrl, self);
            case "postgres" -> sessionLock(jdbcUrl, self, "SELECT pg_try_advisory_lock(" + ADVISORY_KEY + ")");
            case "mariadb" -> sessionLock(jdbcUrl, self, "SELECT GET_LOCK(CONCAT('gyro-instance:', DATABASE()), 0)");
            default -> throw new SQLException("no instance lock for " + dialect.name() + " databases");
        };
    }

    private static InstanceLock fileLock(String jdbcUrl, int self) throws SQLException {
        String file = SqliteDialect.fileOf(jdbcUrl);
        if (file.isEmpty() || file.startsWith(":memory:") || file.startsWith("file:"))
            return new InstanceLock(null, null, null); // in memory: nobody else can open it
        Path path = Path.of(file + ".lock");
        FileChannel ch = null;
        try {
            ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ);
            FileLock l;
            try {
                l = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                l = null; // held by another instance of this same process
            }
            if (l == null) {
                ch.close();
                throw inUse(file, self, "its lock file " + path + " is locked");
            }
            ch.truncate(0);
            ch.write(java.nio.ByteBuffer.wrap(("instance " + self + ", pid " + ProcessHandle.current().pid() + "\n")
                    .getBytes(StandardCharsets.UTF_8)));
            return new InstanceLock(ch, l, null);
        } catch (IOException e) {
            try {
                if (ch != null) ch.close();
            } catch (IOException ignored) {
                // the failure below says what matters
            }
            throw new SQLException("cannot lock the database " + file + " for instance " + self + " (" + path + "): " + e);
        }
    }

    private static InstanceLock sessionLock(String jdbcUrl, int self, String sql) throws SQLException {
        Connection c = DriverManager.getConnection(jdbcUrl);
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            if (rs.next() && rs.getBoolean(1)) return new InstanceLock(null, null, c);
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        c.close();
        throw inUse(jdbcUrl.replaceAll("(?i)(password=)[^&;]*", "$1***"), self, "another session holds its Gyro lock");
    }

    private static SQLException inUse(String database, int self, String why) {
        return new SQLException("database " + database + " is in use by another running Gyro instance (" + why
                + "): one database serves one instance, so instance " + self + " does not start on it; is the same"
                + " --id started twice?", "55006");
    }

    /** Lets the next instance take the database. */
    @Override
    public void close() {
        try {
            if (lock != null) lock.release();
            if (file != null) file.close();
            if (session != null) session.close();
        } catch (IOException | SQLException e) {
            // the lock goes with the process or session anyway
        }
    }
}
