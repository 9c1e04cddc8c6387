package dev.gyro.replication;

import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.runtime.db.SqliteDialect;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A copy of a live replica's database at a log index, to rebuild a replica whose database was lost or fell too far
 * behind (docs/decisions/24-ring-on-groups.md): the copy records the log index it holds ({@code gyro_replica}), so the
 * rebuilt replica applies exactly the log after it. SQLite only: {@code VACUUM INTO} writes a consistent copy of the
 * database as one read transaction sees it, while the source keeps serving.
 */
public final class Snapshot {

    private Snapshot() {}

    /**
     * Copies {@code source} (replica {@code from} of {@code spec}'s group, running) into {@code target} as replica
     * {@code to}'s database, and returns the log index the copy holds.
     *
     * @throws SQLException when a database is not SQLite, or the copy fails
     * @throws IOException  when {@code target} exists
     */
    public static long copy(Database source, GroupSpec spec, int from, Path target, int to)
            throws SQLException, IOException {
        if (!(source.dialect() instanceof SqliteDialect))
            throw new SQLException("a snapshot copies a SQLite database; " + source.dialect().name()
                    + " replicas are rebuilt from a dump of a live replica's database (not built in yet)");
        if (Files.exists(target)) throw new IOException(target + " exists: a snapshot is written to a new file");
        Files.createDirectories(target.toAbsolutePath().getParent());
        // A connection of its own, in auto-commit: VACUUM INTO runs outside any transaction, as one read of its own.
        try (Connection c = java.sql.DriverManager.getConnection(source.jdbcUrl());
             Statement st = c.createStatement()) {
            st.execute("VACUUM INTO '" + target.toString().replace("'", "''") + "'");
        }
        Dialect dialect = Dialect.forTarget(target.toString());
        try (Database copy = Database.open(dialect, target.toString())) {
            return copy.inTransaction(false, c -> ReplicaProgress.restamp(c, spec.name(), from, to)).appliedIndex();
        }
    }
}
