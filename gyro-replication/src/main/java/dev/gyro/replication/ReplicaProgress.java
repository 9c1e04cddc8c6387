package dev.gyro.replication;

import dev.gyro.runtime.db.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * How far a replica's database has applied its group's log, kept in the database itself
 * (docs/decisions/22-group-log.md), in the same DBMS transaction as the rows of the entry it records, so that after any
 * crash the replica skips exactly the entries its database holds: nothing applied twice, nothing skipped (decision 5,
 * for the log).
 *
 * <pre>
 * gyro_replica (id = 1, group_name, replica, applied_term, applied_index, data_index)   -- one row
 * </pre>
 * {@code applied_index} is the last log entry applied (its rows, or nothing when it was stale), {@code data_index} the
 * last one whose rows were applied: the basis the next entry must have been computed on. The row also stamps the
 * database with its group and replica, and a database of another is refused.
 *
 * <p>Every method runs on the caller's connection and transaction; none commits.
 */
final class ReplicaProgress {

    /** Where a replica's database stands in its group's log. */
    record Position(long appliedTerm, long appliedIndex, long dataIndex) {
        static final Position START = new Position(0, 0, 0);
    }

    static final String TABLE = "gyro_replica";

    private ReplicaProgress() {}

    /**
     * Creates the table if needed and stamps the database with {@code group} and {@code replica} on first use.
     *
     * @throws SQLException naming both when the database belongs to another group or replica
     */
    static Position claim(Connection c, String group, int replica) throws SQLException {
        Dialect d = Dialect.of(c);
        String bigint = d.sqlType(Dialect.SqlType.BIGINT);
        try (Statement st = c.createStatement()) {
            st.executeUpdate("CREATE TABLE IF NOT EXISTS " + TABLE + " (id " + bigint + " PRIMARY KEY, group_name "
                    + d.sqlType(Dialect.SqlType.TEXT) + " NOT NULL, replica " + bigint + " NOT NULL, applied_term "
                    + bigint + " NOT NULL, applied_index " + bigint + " NOT NULL, data_index " + bigint + " NOT NULL)");
        }
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT group_name, replica, applied_term, applied_index, data_index FROM "
                     + TABLE + " WHERE id = 1")) {
            if (rs.next()) {
                String stampedGroup = rs.getString(1);
                int stampedReplica = rs.getInt(2);
                if (!stampedGroup.equals(group) || stampedReplica != replica)
                    throw new SQLException("this database belongs to replica " + stampedReplica + " of " + stampedGroup
                            + ", not to replica " + replica + " of " + group
                            + ": each replica runs only on its own database");
                return new Position(rs.getLong(3), rs.getLong(4), rs.getLong(5));
            }
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE
                + " (id, group_name, replica, applied_term, applied_index, data_index) VALUES (1, ?, ?, 0, 0, 0)")) {
            ps.setString(1, group);
            ps.setInt(2, replica);
            ps.executeUpdate();
        }
        return Position.START;
    }

    /**
     * Records {@code to} as applied. Call in the transaction that applies the entry's rows.
     *
     * @throws SQLException when the database already records that entry or a later one (it would be applied twice)
     */
    static void record(Connection c, Position to) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + TABLE
                + " SET applied_term = ?, applied_index = ?, data_index = ? WHERE id = 1 AND applied_index < ?")) {
            ps.setLong(1, to.appliedTerm());
            ps.setLong(2, to.appliedIndex());
            ps.setLong(3, to.dataIndex());
            ps.setLong(4, to.appliedIndex());
            if (ps.executeUpdate() != 1)
                throw new SQLException("cannot record log entry " + to.appliedIndex() + " as applied: " + TABLE
                        + " already records it or a later one (or was never claimed)");
        }
    }

    /**
     * Restamps a copy of replica {@code from}'s database as replica {@code to}'s (a snapshot taken to rebuild a replica,
     * docs/decisions/24-ring-on-groups.md); where it stands in the log is the copy's.
     *
     * @throws SQLException when the copy is not of {@code group}'s replica {@code from}
     */
    static Position restamp(Connection c, String group, int from, int to) throws SQLException {
        Position at = claim(c, group, from);
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + TABLE + " SET replica = ? WHERE id = 1")) {
            ps.setInt(1, to);
            ps.executeUpdate();
        }
        return at;
    }
}
