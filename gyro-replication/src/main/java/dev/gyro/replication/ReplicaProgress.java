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
 * gyro_replica (id = 1, group_name, replica, applied_term, applied_index, data_index,
 *               data_session, data_number)                                              -- one row
 * </pre>
 * {@code applied_index} is the last log entry applied (its rows, or nothing when it was stale), {@code data_index} the
 * last one whose rows were applied and {@code (data_session, data_number)} that entry's request id: the state the next
 * entry must have been computed on ({@link GroupEntry#holdsOn}; docs/decisions/42-group-commit.md). The row also
 * stamps the database with its group and replica, and a database of another is refused.
 *
 * <p>Every method runs on the caller's connection and transaction; none commits.
 */
final class ReplicaProgress {

    /** Where a replica's database stands in its group's log. */
    record Position(long appliedTerm, long appliedIndex, long dataIndex, GroupEntry.RequestId dataEntry) {
        static final Position START = new Position(0, 0, 0, GroupEntry.RequestId.NONE);

        /** Entry {@code id} at {@code index} applied with its rows. */
        static Position data(long term, long index, GroupEntry.RequestId id) {
            return new Position(term, index, index, id);
        }

        /** A stale entry at {@code index} recorded without its rows: the data stays where it was. */
        Position skipping(long term, long index) {
            return new Position(term, index, dataIndex, dataEntry);
        }
    }

    static final String TABLE = "gyro_replica";

    private ReplicaProgress() {}

    /**
     * Creates the table if needed and stamps the database with {@code group} and {@code replica} on first use.
     *
     * @throws SQLException naming both when the database belongs to another group or replica
     */
    static Position claim(Connection c, String group, int replica) throws SQLException {
        createTable(c);
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT group_name, replica, applied_term, applied_index, data_index,"
                     + " data_session, data_number FROM " + TABLE + " WHERE id = 1")) {
            if (rs.next()) {
                String stampedGroup = rs.getString(1);
                int stampedReplica = rs.getInt(2);
                if (!stampedGroup.equals(group) || stampedReplica != replica)
                    throw new SQLException("this database belongs to replica " + stampedReplica + " of " + stampedGroup
                            + ", not to replica " + replica + " of " + group
                            + ": each replica runs only on its own database");
                return new Position(rs.getLong(3), rs.getLong(4), rs.getLong(5),
                        new GroupEntry.RequestId(rs.getLong(6), rs.getLong(7)));
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

    /** Creates the table if needed, without its row (a copy of another replica's fills it). */
    static void createTable(Connection c) throws SQLException {
        Dialect d = Dialect.of(c);
        String bigint = d.sqlType(Dialect.SqlType.BIGINT);
        try (Statement st = c.createStatement()) {
            st.executeUpdate("CREATE TABLE IF NOT EXISTS " + TABLE + " (id " + bigint + " PRIMARY KEY, group_name "
                    + d.sqlType(Dialect.SqlType.TEXT) + " NOT NULL, replica " + bigint + " NOT NULL, applied_term "
                    + bigint + " NOT NULL, applied_index " + bigint + " NOT NULL, data_index " + bigint + " NOT NULL,"
                    + " data_session " + bigint + " NOT NULL DEFAULT 0, data_number " + bigint + " NOT NULL DEFAULT 0)");
        }
        addEntryColumns(c, bigint);
    }

    /**
     * A table made before entries were named (docs/decisions/42-group-commit.md) gets the columns, 0 for "not known":
     * every replica of a group meets the same, so the first entry after it is judged alike everywhere.
     */
    private static void addEntryColumns(Connection c, String bigint) throws SQLException {
        boolean has = false;
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT * FROM " + TABLE + " WHERE 1 = 0")) {
            var md = rs.getMetaData();
            for (int i = 1; i <= md.getColumnCount(); i++) has |= md.getColumnName(i).equalsIgnoreCase("data_session");
        }
        if (has) return;
        try (Statement st = c.createStatement()) {
            st.executeUpdate("ALTER TABLE " + TABLE + " ADD COLUMN data_session " + bigint + " NOT NULL DEFAULT 0");
            st.executeUpdate("ALTER TABLE " + TABLE + " ADD COLUMN data_number " + bigint + " NOT NULL DEFAULT 0");
        }
    }

    /**
     * Records {@code to} as applied. Call in the transaction that applies the entry's rows.
     *
     * @throws SQLException when the database already records that entry or a later one (it would be applied twice)
     */
    static void record(Connection c, Position to) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + TABLE
                + " SET applied_term = ?, applied_index = ?, data_index = ?, data_session = ?, data_number = ?"
                + " WHERE id = 1 AND applied_index < ?")) {
            ps.setLong(1, to.appliedTerm());
            ps.setLong(2, to.appliedIndex());
            ps.setLong(3, to.dataIndex());
            ps.setLong(4, to.dataEntry().session());
            ps.setLong(5, to.dataEntry().number());
            ps.setLong(6, to.appliedIndex());
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

    /** Whether {@code c}'s database is claimed by replica {@code replica} of {@code group}. */
    static boolean isClaimedBy(Connection c, String group, int replica) throws SQLException {
        if (!stamped(c)) return false;
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT group_name, replica FROM " + TABLE + " WHERE id = 1")) {
            return rs.next() && rs.getString(1).equals(group) && rs.getInt(2) == replica;
        }
    }

    /**
     * Restamps a copy of any replica of {@code group}'s database, copied into this one's, as replica {@code to}'s.
     *
     * @throws SQLException when the copy is of another group's replica
     */
    static Position restampCopy(Connection c, String group, int to) throws SQLException {
        int from;
        if (!stamped(c)) throw new SQLException("the copy has no " + TABLE + " table: it is no replica's database");
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT group_name, replica FROM " + TABLE + " WHERE id = 1")) {
            if (!rs.next()) throw new SQLException("the copy holds no " + TABLE + " row: it is no replica's database");
            if (!rs.getString(1).equals(group))
                throw new SQLException("the copy is of a replica of " + rs.getString(1) + ", not of " + group);
            from = rs.getInt(2);
        }
        return restamp(c, group, from, to);
    }

    /** Whether {@code c}'s database has the {@value #TABLE} table. */
    private static boolean stamped(Connection c) throws SQLException {
        // this database's own tables (a server's other databases may have one)
        try (ResultSet tables = c.getMetaData().getTables(c.getCatalog(), null, null, new String[] {"TABLE"})) {
            while (tables.next()) if (tables.getString("TABLE_NAME").equalsIgnoreCase(TABLE)) return true;
        }
        return false;
    }

    /**
     * Takes the stamp off the database {@code target}, a copy of another group's replica's made for a group that joins
     * the ring (docs/decisions/44-ring-changes.md): it starts that group's log from its first entry.
     */
    static void forget(String target) throws SQLException {
        Dialect d = Dialect.forTarget(target);
        try (Connection c = java.sql.DriverManager.getConnection(d.jdbcUrl(target)); Statement st = c.createStatement()) {
            st.executeUpdate("DROP TABLE IF EXISTS " + TABLE);
        }
    }
}
