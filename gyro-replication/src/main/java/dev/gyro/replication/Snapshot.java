package dev.gyro.replication;

import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.runtime.db.JoinerCopy;
import dev.gyro.runtime.db.SqliteDialect;
import dev.gyro.runtime.db.SqlWork;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.Consumer;

/**
 * A copy of a live replica's database at a log index, to rebuild a replica whose database was lost or fell too far
 * behind (docs/decisions/24-ring-on-groups.md, 45-database-as-snapshot.md): the copy records the log index it holds
 * ({@code gyro_replica}), so the rebuilt replica applies exactly the log after it. A SQLite database is copied whole
 * with {@code VACUUM INTO}, a consistent copy as one read transaction sees it; a PostgreSQL or MariaDB database through
 * JDBC, every table read in one snapshot (repeatable read) and written in one transaction of the replica's own
 * database, which the application's schema and Gyro's tables were made in first. Either way the source keeps serving.
 */
public final class Snapshot {

    private Snapshot() {}

    /**
     * Copies {@code source} (replica {@code from} of {@code spec}'s group, running; -1: any replica of it) into the new
     * file {@code target} as replica {@code to}'s database, and returns the log index the copy holds. A copy that is no
     * replica's of the group leaves no file.
     *
     * @throws SQLException when {@code source} is not SQLite, or the copy fails
     * @throws IOException  when {@code target} exists
     */
    public static long copy(Database source, GroupSpec spec, int from, Path target, int to)
            throws SQLException, IOException {
        if (!(source.dialect() instanceof SqliteDialect))
            throw new SQLException("a copy into a file is of a SQLite database; " + source.dialect().name()
                    + " replicas are copied into a database on a server (a JDBC URL)");
        if (Files.exists(target)) throw new IOException(target + " exists: a snapshot is written to a new file");
        Files.createDirectories(target.toAbsolutePath().getParent());
        // A connection of its own, in auto-commit: VACUUM INTO runs outside any transaction, as one read of its own.
        try (Connection c = DriverManager.getConnection(source.jdbcUrl());
             Statement st = c.createStatement()) {
            st.execute("VACUUM INTO '" + target.toString().replace("'", "''") + "'");
        }
        Dialect dialect = Dialect.forTarget(target.toString());
        try (Database copy = Database.open(dialect, target.toString())) {
            return copy.inTransaction(false, c -> from < 0 ? ReplicaProgress.restampCopy(c, spec.name(), to)
                    : ReplicaProgress.restamp(c, spec.name(), from, to)).appliedIndex();
        } catch (SQLException | RuntimeException e) {
            deleteSqlite(target);
            throw e;
        }
    }

    /** The file a SQLite target names (a path, or a {@code jdbc:sqlite:} URL). */
    private static Path sqliteFile(String target) {
        return Path.of(target.startsWith("jdbc:sqlite:") ? target.substring("jdbc:sqlite:".length()) : target);
    }

    private static void deleteSqlite(Path file) throws IOException {
        for (String suffix : new String[] {"", "-wal", "-shm", "-journal"}) Files.deleteIfExists(Path.of(file + suffix));
    }

    /**
     * Copies {@code source} (replica {@code from} of {@code spec}'s group, running) into {@code target}, replica
     * {@code to}'s database: for SQLite a file, whose old files are deleted first; else a database on a server of the
     * same DBMS, whose tables {@code schema} makes (if need be) and whose rows are replaced. Returns the log index the
     * copy holds.
     *
     * @param progress told each table copied
     * @throws SQLException when the DBMSs differ, or the copy fails (the target's transaction rolls back)
     */
    public static long copy(Database source, GroupSpec spec, int from, String target, int to, SqlWork<?> schema,
                            Consumer<String> progress) throws SQLException, IOException {
        Dialect d = source.dialect(), into = Dialect.forTarget(target);
        if (d != into)
            throw new SQLException("replica " + to + " of " + spec.name() + " is rebuilt from a copy on the same DBMS: the"
                    + " source is " + d.name() + ", the target " + into.name());
        if (d instanceof SqliteDialect) {
            deleteSqlite(sqliteFile(target));
            return copy(source, spec, from, sqliteFile(target), to);
        }
        try (Connection out = DriverManager.getConnection(d.jdbcUrl(target))) {
            out.setAutoCommit(false);
            try {
                schema.run(out);
                ReplicaProgress.createTable(out);
                out.commit();
                long index = copyInto(source, out, spec, to, "replica " + to + "'s", progress).appliedIndex();
                out.commit();
                return index;
            } catch (Exception e) {
                out.rollback();
                if (e instanceof SQLException s) throw s;
                throw new SQLException("cannot rebuild replica " + to + " of " + spec.name() + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * Makes {@code target}, a new database, a copy of {@code source} (a live replica of {@code spec}'s group, any of
     * them: its SQLite file, or its JDBC URL on the same DBMS) as replica {@code to}'s, for a new member in a lost
     * one's place (docs/decisions/47-new-member.md). Returns the log index the copy holds.
     *
     * @throws SQLException when {@code source} is no replica of this group, the DBMSs differ, or the copy fails
     * @throws IOException  when {@code target} is a SQLite file that exists
     */
    public static long copyOf(String source, GroupSpec spec, String target, int to, SqlWork<?> schema,
                              Consumer<String> progress) throws SQLException, IOException {
        Dialect d = Dialect.forTarget(source);
        if (d instanceof SqliteDialect && !Files.isRegularFile(sqliteFile(source)))
            throw new SQLException(source + ": no such file (the SQLite database of a live replica of " + spec.name()
                    + ", or a copy of it)");
        try (Database from = Database.open(d, source)) {
            if (!(d instanceof SqliteDialect)) return copy(from, spec, -1, target, to, schema, progress);
            if (Dialect.forTarget(target) != d)
                throw new SQLException("a new member's database is a copy on the same DBMS: the source is " + d.name()
                        + ", the target " + Dialect.forTarget(target).name());
            return copy(from, spec, -1, sqliteFile(target), to);
        }
    }

    /**
     * Replaces {@code target}, replica {@code to}'s database, lost or behind its group's log, by a copy of
     * {@code source} (a live replica of the group, or a copy of one: a SQLite file, or a JDBC URL on the same DBMS),
     * for a replica run as a process of its own (docs/decisions/45-database-as-snapshot.md); its group log is kept.
     * Returns the log index the copy holds.
     */
    public static long rebuild(String source, GroupSpec spec, String target, int to, SqlWork<?> schema,
                               Consumer<String> progress) throws SQLException, IOException {
        boolean sqlite = Dialect.forTarget(target) instanceof SqliteDialect;
        Path file = sqliteFile(target), from = sqliteFile(source);
        if (source.equals(target) || sqlite && Files.exists(file) && Files.exists(from) && Files.isSameFile(file, from))
            throw new SQLException(source + " is this replica's own database: give a live replica's to copy");
        if (sqlite) deleteSqlite(file);
        return copyOf(source, spec, target, to, schema, progress);
    }

    /** Whether {@code target} is replica {@code replica} of {@code spec}'s group's database already. */
    public static boolean isReplica(String target, GroupSpec spec, int replica) throws SQLException {
        Dialect d = Dialect.forTarget(target);
        if (d instanceof SqliteDialect && !Files.exists(sqliteFile(target))) return false;
        try (Connection c = DriverManager.getConnection(d.jdbcUrl(target))) {
            return ReplicaProgress.isClaimedBy(c, spec.name(), replica);
        }
    }

    /**
     * Copies every table of {@code source} (a live replica of {@code spec}'s group) into {@code out}'s database, in
     * {@code out}'s transaction (not committed here), read in one snapshot of {@code source}'s, and restamps the copy
     * as replica {@code to}'s; returns where the copy stands in the log.
     */
    static ReplicaProgress.Position copyInto(Database source, Connection out, GroupSpec spec, int to, String target,
                                             Consumer<String> progress) throws SQLException {
        try (Connection in = DriverManager.getConnection(source.jdbcUrl())) {
            in.setAutoCommit(false);
            if (!(source.dialect() instanceof SqliteDialect)) { // SQLite: one read transaction is one snapshot
                in.setReadOnly(true);
                in.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ); // one snapshot of every table
            }
            try {
                JoinerCopy.copyTables(in, out, source.dialect(), "a live replica's database", target, progress);
                return ReplicaProgress.restampCopy(out, spec.name(), to);
            } finally {
                in.rollback();
            }
        }
    }
}
