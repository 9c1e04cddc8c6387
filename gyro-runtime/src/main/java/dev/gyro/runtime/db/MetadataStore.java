package dev.gyro.runtime.db;

import dev.gyro.protocol.Codec;
import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.Ring;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Token;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Gyro's metadata tables inside each instance's own database (docs/decisions/05-exactly-once.md): the protocol state
 * that must survive a crash is written in the SAME DBMS transaction as the data change it describes, so after any
 * crash the instance resumes exactly where its database says it is -- nothing applied twice, nothing skipped.
 *
 * <pre>
 * gyro_state  (id = 1, self, last_gsn, token_status NONE|HELD|PASSED, token BLOB)   -- one row
 * gyro_outbox (gsn PRIMARY KEY, body BLOB)   -- own state updates since the token was last received
 * gyro_requests (hi, lo PRIMARY KEY, reply BLOB, at)  -- the reply of each request with an id that wrote, for
 *                                                       REPLY_KEPT_MILLIS (docs/decisions/37-request-ids.md)
 * gyro_buckets (bucket PRIMARY KEY, owner, map_version, gsn)  -- the buckets moved ({@link BucketRows})
 * gyro_ring (id = 1, epoch, hop, holder, members)  -- the ring's membership once it changed ({@link Ring#change})
 * gyro_members (id PRIMARY KEY, address)  -- the instances that joined the ring since it started
 * </pre>
 * Tokens and updates are stored in the wire encoding of {@link Codec}.
 *
 * <p>Every method runs on the caller's connection, inside the caller's transaction, and neither commits nor
 * rolls back. Which transaction each belongs in (the contract of {@link dev.gyro.protocol.Action}):
 * <ul>
 *   <li>{@link #recordReceived}: the transaction that applies the token's updates (Action.ApplyUpdates);</li>
 *   <li>{@link #recordAppliedAhead}: the transaction that applies updates sent ahead of the token
 *       (Action.ApplyAhead);</li>
 *   <li>{@link #recordGlobal}: the global request's own transaction, after its writes (Action.ExecuteGlobal; with
 *       Action.ExecuteGlobals under the runtime's commit lock, so gsns are recorded in commit order);</li>
 *   <li>{@link #recordPassed}: its own transaction, committed before the token is sent (Action.PassToken).</li>
 * </ul>
 * An {@link SQLException} from any of them means the transaction must roll back.
 */
public final class MetadataStore {

    /** Prefix of Gyro's own tables; write capture refuses to touch them. */
    public static final String PREFIX = "gyro_";

    static final String STATE = "gyro_state";
    private static final String OUTBOX = "gyro_outbox";
    private static final String IDENTITY = "gyro_identity";
    private static final String REQUESTS = "gyro_requests";
    /** The instances that joined the ring since it started, with their addresses (docs/decisions/44-ring-changes.md). */
    public static final String MEMBERS = "gyro_members";
    /**
     * How long a request's recorded reply is kept for a client's retry (docs/decisions/37-request-ids.md): a retry of
     * the same id within this time is answered from the record; one later may run again.
     */
    public static final long REPLY_KEPT_MILLIS = 10 * 60_000;
    /** One recorded reply in this many also drops the replies older than {@link #REPLY_KEPT_MILLIS}. */
    static final int FORGET_EVERY = 1024;
    /** Replies recorded by this process, which paces {@link #forgetReplies} (not the ids: a client chooses those). */
    private static final java.util.concurrent.atomic.AtomicLong RECORDED = new java.util.concurrent.atomic.AtomicLong();

    private MetadataStore() {}

    /**
     * Creates the metadata tables if they do not exist. Transactional on SQLite and PostgreSQL; on MariaDB DDL
     * commits implicitly, so run it in a transaction of its own there.
     */
    public static void createTables(Connection c) throws SQLException {
        Dialect d = Dialect.of(c);
        String bigint = d.sqlType(Dialect.SqlType.BIGINT);
        try (Statement st = c.createStatement()) {
            st.executeUpdate("CREATE TABLE IF NOT EXISTS " + STATE + " (id " + bigint + " PRIMARY KEY, self_id "
                    + bigint + " NOT NULL, last_gsn " + bigint + " NOT NULL, token_status "
                    + d.sqlType(Dialect.SqlType.TEXT) + " NOT NULL, token " + d.sqlType(Dialect.SqlType.BLOB) + ")");
            st.executeUpdate("CREATE TABLE IF NOT EXISTS " + OUTBOX + " (gsn " + bigint + " PRIMARY KEY, body "
                    + d.sqlType(Dialect.SqlType.BLOB) + " NOT NULL)");
            st.executeUpdate("CREATE TABLE IF NOT EXISTS " + IDENTITY + " (id " + bigint + " PRIMARY KEY, cluster_id "
                    + d.sqlType(Dialect.SqlType.TEXT) + " NOT NULL)");
            st.executeUpdate("CREATE TABLE IF NOT EXISTS " + REQUESTS + " (hi " + bigint + " NOT NULL, lo " + bigint
                    + " NOT NULL, reply " + d.sqlType(Dialect.SqlType.BLOB) + " NOT NULL, at " + bigint
                    + " NOT NULL, PRIMARY KEY (hi, lo))");
            BucketRows.createTable(st, d);
            st.executeUpdate("CREATE TABLE IF NOT EXISTS " + Ring.TABLE + " (id " + bigint + " PRIMARY KEY, epoch "
                    + bigint + " NOT NULL, hop " + bigint + " NOT NULL, holder " + bigint + " NOT NULL, members "
                    + d.sqlType(Dialect.SqlType.TEXT) + " NOT NULL)");
            st.executeUpdate("CREATE TABLE IF NOT EXISTS " + MEMBERS + " (id " + bigint + " PRIMARY KEY, address "
                    + d.sqlType(Dialect.SqlType.TEXT) + " NOT NULL)");
        }
    }

    /**
     * Records the reply of the request with client id {@code id} in the transaction that ran it
     * (docs/decisions/37-request-ids.md, docs/decisions/24-ring-on-groups.md): a client that sends it again, after an
     * unknown outcome or a failover, is given this reply instead of running it again. Every {@link #FORGET_EVERY}th
     * reply recorded also drops, in the same transaction, those older than {@link #REPLY_KEPT_MILLIS}
     * ({@link #forgetReplies}), so the table holds about the replies of that long.
     *
     * @throws SQLException when a reply is recorded for {@code id} already (the request ran twice: a bug), or when
     *                      {@code id} is no UUID
     */
    public static void recordReply(Connection c, String id, byte[] reply, long nowMillis) throws SQLException {
        java.util.UUID u = uuid(id);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + REQUESTS + " (hi, lo, reply, at) VALUES (?, ?, ?, ?)")) {
            ps.setLong(1, u.getMostSignificantBits());
            ps.setLong(2, u.getLeastSignificantBits());
            ps.setBytes(3, reply);
            ps.setLong(4, nowMillis);
            ps.executeUpdate();
        }
        if (RECORDED.incrementAndGet() % FORGET_EVERY == 0) forgetReplies(c, nowMillis);
    }

    /**
     * Drops the replies recorded before {@code nowMillis - REPLY_KEPT_MILLIS}; a retry of one of their ids may run
     * again. Returns how many were dropped.
     */
    public static int forgetReplies(Connection c, long nowMillis) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + REQUESTS + " WHERE at < ?")) {
            ps.setLong(1, nowMillis - REPLY_KEPT_MILLIS);
            return ps.executeUpdate();
        }
    }

    private static java.util.UUID uuid(String id) throws SQLException {
        try {
            return java.util.UUID.fromString(id);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new SQLException("a request id is a UUID, not '" + id + "'");
        }
    }

    /** The reply recorded for the request with client id {@code id} ({@link #recordReply}), or null. */
    public static byte[] recordedReply(Connection c, String id) throws SQLException {
        java.util.UUID u = uuid(id);
        try (PreparedStatement ps = c.prepareStatement("SELECT reply FROM " + REQUESTS + " WHERE hi = ? AND lo = ?")) {
            ps.setLong(1, u.getMostSignificantBits());
            ps.setLong(2, u.getLeastSignificantBits());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getBytes(1) : null;
            }
        }
    }

    /**
     * Stamps the database with the cluster it belongs to on first use, and refuses it afterwards to an instance of
     * another cluster (docs/decisions/13-secure-by-default.md): a database holds one ring's history, and an instance
     * started on another cluster's database would serve that history as its own.
     *
     * @throws SQLException naming both clusters when the database is another cluster's
     */
    public static void claim(Connection c, String clusterId) throws SQLException {
        String stamped = null;
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT cluster_id FROM " + IDENTITY + " WHERE id = 1")) {
            if (rs.next()) stamped = rs.getString(1);
        }
        if (stamped == null) {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + IDENTITY + " (id, cluster_id) VALUES (1, ?)")) {
                ps.setString(1, clusterId);
                ps.executeUpdate();
            }
        } else if (!stamped.equals(clusterId)) {
            throw new SQLException("this database belongs to cluster " + stamped + ", not to cluster " + clusterId
                    + ": an instance runs only on its own cluster's database");
        }
    }

    /**
     * The durable protocol state of instance {@code self}. On a fresh database (no state row yet) this is
     * {@link DurableState#initial(int)}, which is recorded before it is returned.
     *
     * @throws SQLException when the tables are missing ({@link #createTables} first), when the database belongs to
     *                      another instance, or when the stored state cannot be decoded
     */
    public static DurableState load(Connection c, int self) throws SQLException {
        Long storedSelf = null;
        long lastGsn = 0;
        String status = null;
        byte[] token = null;
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT self_id, last_gsn, token_status, token FROM " + STATE
                     + " WHERE id = 1")) {
            if (rs.next()) {
                storedSelf = rs.getLong(1);
                lastGsn = rs.getLong(2);
                status = rs.getString(3);
                token = rs.getBytes(4);
            }
        } catch (SQLException e) {
            throw new SQLException("cannot read Gyro's metadata table " + STATE + " (created by"
                    + " MetadataStore.createTables?): " + e.getMessage(), e.getSQLState(), e.getErrorCode(), e);
        }
        if (storedSelf == null) {
            DurableState initial = DurableState.initial(self);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + STATE
                    + " (id, self_id, last_gsn, token_status, token) VALUES (1, ?, ?, ?, ?)")) {
                ps.setLong(1, self);
                ps.setLong(2, initial.lastGsn());
                ps.setString(3, initial.tokenStatus().name());
                if (initial.token() == null) ps.setNull(4, java.sql.Types.VARBINARY); // BLOB would mean an oid to pgjdbc
                else ps.setBytes(4, Codec.encodeToken(initial.token()));
                ps.executeUpdate();
            }
            return initial;
        }
        if (storedSelf != self)
            throw new SQLException("this database holds the state of instance " + storedSelf + ", not of instance "
                    + self + ": wrong database file for this instance?");
        try {
            DurableState.TokenStatus ts = DurableState.TokenStatus.valueOf(status);
            Token t = token == null ? null : Codec.decodeToken(token);
            List<StateUpdate> outbox = new ArrayList<>();
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT gsn, body FROM " + OUTBOX + " ORDER BY gsn")) {
                while (rs.next()) {
                    StateUpdate u = Codec.decodeUpdate(rs.getBytes(2));
                    if (u.gsn() != rs.getLong(1))
                        throw new SQLException(OUTBOX + " row " + rs.getLong(1) + " holds the update of gsn " + u.gsn());
                    outbox.add(u);
                }
            }
            return new DurableState(lastGsn, ts, t, outbox, ring(c));
        } catch (RuntimeException e) {
            throw new SQLException("Gyro's metadata in " + STATE + "/" + OUTBOX + " is corrupt: " + e.getMessage(), e);
        }
    }

    /**
     * Makes a copy of another instance's database the database of instance {@code self}, which joins the ring
     * (docs/decisions/44-ring-changes.md): the copy keeps the rows and the gsn it was taken at, the map and the ring it
     * applied; it has not received the token, and has no updates of its own. Call in a transaction of its own on the
     * copy, before the instance starts on it.
     */
    public static void becomeJoiner(Connection c, int self) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + STATE
                + " SET self_id = ?, token_status = 'NONE', token = NULL WHERE id = 1")) {
            ps.setLong(1, self);
            if (ps.executeUpdate() != 1) throw new SQLException("the copy holds no " + STATE + " row: not a Gyro database");
        }
        try (Statement st = c.createStatement()) {
            st.executeUpdate("DELETE FROM " + OUTBOX);
        }
        if (ring(c) == null || !ring(c).contains(self))
            throw new SQLException("the copy was taken before instance " + self + " joined the ring (its ring: "
                    + (ring(c) == null ? "the first one" : ring(c).members()) + "): copy a database that applied the join");
    }

    /**
     * The ring's membership this database applied last (docs/decisions/44-ring-changes.md): the row of {@link Ring#TABLE}
     * that a ring change's update wrote, or null while the ring is the one the cluster started with.
     */
    static Ring ring(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT epoch, hop, holder, members FROM "
                + Ring.TABLE + " WHERE id = 1")) {
            if (!rs.next()) return null;
            List<Integer> members = new ArrayList<>();
            for (String m : rs.getString(4).split(",")) members.add(Integer.parseInt(m.trim()));
            return new Ring(rs.getLong(1), members, rs.getLong(2), (int) rs.getLong(3));
        }
    }

    /**
     * Algorithm 1, lines 8-12, with Action.ApplyUpdates: the token is now held ({@code heldToken}: as received,
     * minus this instance's own updates), every update up to {@code lastGsn} is in this database, and the outbox
     * is emptied (its updates came back around the ring). Call in the transaction that applied the updates.
     *
     * @throws SQLException when {@code lastGsn} is below the recorded one (updates would be lost), or there is no
     *                      state row ({@link #load} first)
     */
    public static void recordReceived(Connection c, Token heldToken, long lastGsn) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + STATE
                + " SET last_gsn = ?, token_status = 'HELD', token = ? WHERE id = 1 AND last_gsn <= ?")) {
            ps.setLong(1, lastGsn);
            ps.setBytes(2, Codec.encodeToken(heldToken));
            ps.setLong(3, lastGsn);
            if (ps.executeUpdate() != 1)
                throw new SQLException("cannot record token of hop " + heldToken.hop() + " with last gsn " + lastGsn
                        + ": " + describeState(c));
        }
        try (Statement st = c.createStatement()) {
            st.executeUpdate("DELETE FROM " + OUTBOX);
        }
    }

    /**
     * With Action.ApplyAhead (docs/decisions/25-updates-ahead.md): the updates after gsn {@code after} up to
     * {@code lastGsn} are in this database, applied ahead of the token; the token's record stays as it is. Call in the
     * transaction that applied them.
     *
     * @throws SQLException when the recorded last gsn is not {@code after} (a gap, or applied twice) or the token is
     *                      held here (only the holder makes gsns: none can come ahead of it)
     */
    public static void recordAppliedAhead(Connection c, long after, long lastGsn) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + STATE
                + " SET last_gsn = ? WHERE id = 1 AND last_gsn = ? AND token_status <> 'HELD'")) {
            ps.setLong(1, lastGsn);
            ps.setLong(2, after);
            if (ps.executeUpdate() != 1)
                throw new SQLException("cannot record gsns " + (after + 1) + " to " + lastGsn + " as applied ahead of"
                        + " the token: " + describeState(c) + " (expected last gsn " + after + " and the token not"
                        + " held)");
        }
    }

    /**
     * Algorithm 1, lines 15-16, with Action.ExecuteGlobal: the global request that produced {@code update} wrote
     * its rows in this transaction; its gsn becomes the last gsn and the update joins the outbox, so a restart
     * rebuilds the token with it. Call in the global request's own transaction, after its writes.
     *
     * @throws SQLException when the token is not held or {@code update.gsn()} does not directly follow the last
     *                      recorded gsn (gsns are dense: that would be a protocol bug)
     */
    public static void recordGlobal(Connection c, StateUpdate update) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + STATE
                + " SET last_gsn = ? WHERE id = 1 AND last_gsn = ? AND token_status = 'HELD'")) {
            ps.setLong(1, update.gsn());
            ps.setLong(2, update.gsn() - 1);
            if (ps.executeUpdate() != 1)
                throw new SQLException("cannot record the global update of gsn " + update.gsn() + ": "
                        + describeState(c) + " (expected last gsn " + (update.gsn() - 1) + " and the token held)");
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + OUTBOX + " (gsn, body) VALUES (?, ?)")) {
            ps.setLong(1, update.gsn());
            ps.setBytes(2, Codec.encodeUpdate(update));
            ps.executeUpdate();
        }
    }

    /**
     * Algorithm 1, line 19, with Action.PassToken: the token, as passed on, is no longer held here. Commit this
     * before sending the token, so a restart resends it instead of acting as primary. The outbox stays: its
     * updates are still on their way around the ring.
     */
    public static void recordPassed(Connection c, Token token) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + STATE
                + " SET token_status = 'PASSED', token = ? WHERE id = 1")) {
            ps.setBytes(1, Codec.encodeToken(token));
            if (ps.executeUpdate() != 1)
                throw new SQLException("cannot record token of hop " + token.hop() + " as passed: " + describeState(c));
        }
    }

    /**
     * This instance's own state update of {@code gsn} if the transaction that executed it committed, else null: how
     * the runtime learns the outcome of a global request whose commit failed with the connection (a server backend
     * may have committed it anyway). Reliable while the token is held: the outbox is only emptied when it comes back.
     */
    public static StateUpdate outboxUpdate(Connection c, long gsn) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT body FROM " + OUTBOX + " WHERE gsn = ?")) {
            ps.setLong(1, gsn);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) return null;
                try {
                    return Codec.decodeUpdate(rs.getBytes(1));
                } catch (RuntimeException e) {
                    throw new SQLException(OUTBOX + " row " + gsn + " is corrupt: " + e.getMessage(), e);
                }
            }
        }
    }

    /**
     * The last gsn whose writes are in this database.
     *
     * @throws SQLException when there is no state row ({@link #load} first)
     */
    public static long lastGsn(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT last_gsn FROM " + STATE + " WHERE id = 1")) {
            if (!rs.next()) throw new SQLException("no Gyro state recorded yet (MetadataStore.load first)");
            return rs.getLong(1);
        }
    }

    private static String describeState(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT last_gsn, token_status FROM " + STATE + " WHERE id = 1")) {
            if (!rs.next()) return "no Gyro state recorded yet (MetadataStore.load first)";
            return "recorded last gsn is " + rs.getLong(1) + ", token " + rs.getString(2);
        }
    }
}
