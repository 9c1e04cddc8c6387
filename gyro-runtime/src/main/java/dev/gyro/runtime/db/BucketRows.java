package dev.gyro.runtime.db;

import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;

/**
 * The rows of a bucket, and the partition map's changes as rows (docs/decisions/43-bucket-moves.md).
 *
 * <p>A bucket move is a global request's state update like any other, so every instance applies it at the same point
 * of the gsn order: its changes are the new owners, as rows of the metadata table {@code gyro_buckets}
 * ({@link #mapRows}), then every row of the moving buckets as the old owner has it ({@link #rowsOf}, UPSERT images).
 * An instance that applies it first deletes its own rows of those buckets ({@link #applyAll}): only the old owner's
 * are current (local requests wrote them there alone), and a row the old owner deleted must not survive elsewhere.
 * The rows of a bucket are those whose value in the column the classification names for their table
 * ({@code partitionedTables}) hashes to it, by the same function requests are routed with.
 *
 * <pre>
 * gyro_buckets (bucket PRIMARY KEY, owner, map_version, gsn)   -- the buckets moved since the ring started
 * </pre>
 */
public final class BucketRows {

    /** The metadata table of the partition map's changes. */
    public static final String MAP_TABLE = "gyro_buckets";
    private static final List<String> MAP_COLUMNS = List.of("bucket", "owner", "map_version", "gsn");

    private BucketRows() {}

    static void createTable(Statement st, Dialect d) throws SQLException {
        String bigint = d.sqlType(Dialect.SqlType.BIGINT);
        st.executeUpdate("CREATE TABLE IF NOT EXISTS " + MAP_TABLE + " (bucket " + bigint + " PRIMARY KEY, owner "
                + bigint + " NOT NULL, map_version " + bigint + " NOT NULL, gsn " + bigint + " NOT NULL)");
    }

    /** The partition map in force: {@code configured} with the buckets moved since, and the gsn of the last move. */
    public record Loaded(PartitionMap map, long gsn) {}

    /** The map this database holds: {@code configured}, with every move it applied. */
    public static Loaded load(Connection c, PartitionMap configured) throws SQLException {
        int[] owners = new int[configured.buckets()];
        for (int b = 0; b < owners.length; b++) owners[b] = configured.ownerOfBucket(b);
        long version = configured.version(), gsn = 0;
        boolean any = false;
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT bucket, owner, map_version, gsn FROM " + MAP_TABLE)) {
            while (rs.next()) {
                int b = (int) rs.getLong(1);
                if (b < 0 || b >= owners.length)
                    throw new SQLException(MAP_TABLE + " moves bucket " + b + ", but the map has " + owners.length
                            + " buckets: this database belongs to a ring of another shape");
                owners[b] = (int) rs.getLong(2);
                version = Math.max(version, rs.getLong(3));
                gsn = Math.max(gsn, rs.getLong(4));
                any = true;
            }
        }
        return any ? new Loaded(new PartitionMap(version, owners), gsn) : new Loaded(configured, 0);
    }

    /** The rows of {@link #MAP_TABLE} that say {@code buckets} belong to their owners in {@code newer}, as of {@code gsn}. */
    public static List<RowChange> mapRows(PartitionMap newer, int[] buckets, long gsn) {
        List<RowChange> out = new ArrayList<>();
        for (int b : buckets)
            out.add(new RowChange(MAP_TABLE, RowChange.Kind.UPSERT, MAP_COLUMNS, List.of(new Value.Int(b),
                    new Value.Int(newer.ownerOfBucket(b)), new Value.Int(newer.version()), new Value.Int(gsn)),
                    List.of("bucket")));
        return out;
    }

    /** Whether {@code update} moves buckets (writes {@link #MAP_TABLE}). */
    public static boolean moves(StateUpdate update) {
        for (RowChange c : update.changes()) if (c.table().equals(MAP_TABLE)) return true;
        return false;
    }

    /** {@code map} as {@code update} leaves it: its buckets' new owners, its version. */
    public static PartitionMap after(PartitionMap map, StateUpdate update) {
        int[] owners = new int[map.buckets()];
        for (int b = 0; b < owners.length; b++) owners[b] = map.ownerOfBucket(b);
        long version = map.version();
        for (RowChange c : update.changes()) {
            if (!c.table().equals(MAP_TABLE)) continue;
            owners[(int) ((Value.Int) c.value("bucket")).value()] = (int) ((Value.Int) c.value("owner")).value();
            version = Math.max(version, ((Value.Int) c.value("map_version")).value());
        }
        return new PartitionMap(version, owners);
    }

    /** The buckets {@code update} moves. */
    static BitSet moved(StateUpdate update) {
        BitSet out = new BitSet();
        for (RowChange c : update.changes())
            if (c.table().equals(MAP_TABLE)) out.set((int) ((Value.Int) c.value("bucket")).value());
        return out;
    }

    /**
     * Every row of {@code buckets} in the partitioned tables, as this database holds it: an UPSERT image of each (an
     * APPEND in a table without a primary key), or with {@code delete} a DELETE of each (a REMOVE).
     *
     * @param tables table to the column holding its rows' partitioning value (the classification's)
     */
    public static List<RowChange> rowsOf(Connection c, Dialect d, TableCatalog catalog, Map<String, String> tables,
                                         PartitionMap map, BitSet buckets, boolean delete) throws SQLException {
        List<RowChange> out = new ArrayList<>();
        for (Map.Entry<String, String> t : tables.entrySet()) {
            TableInfo info = catalog.table(c, null, t.getKey());
            String column = info.column(t.getValue());
            if (column == null)
                throw new SQLException("the classification says the rows of table " + t.getKey() + " belong to the"
                        + " bucket of column " + t.getValue() + ", which the table does not have (its columns: "
                        + info.columns() + ")");
            List<String> columns = info.columns();
            int at = columns.indexOf(column);
            boolean keyed = info.hasPrimaryKey();
            StringBuilder select = new StringBuilder("SELECT ");
            for (int i = 0; i < columns.size(); i++) select.append(i == 0 ? "" : ", ").append(d.quote(columns.get(i)));
            select.append(" FROM ").append(d.quote(info.name()));
            try (PreparedStatement ps = c.prepareStatement(select.toString()); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    List<Value> values = new ArrayList<>(columns.size());
                    for (int i = 1; i <= columns.size(); i++) values.add(d.toValue(rs.getObject(i)));
                    if (!buckets.get(map.bucketOf(values.get(at)))) continue;
                    if (!keyed) {
                        out.add(new RowChange(info.name(), delete ? RowChange.Kind.REMOVE : RowChange.Kind.APPEND,
                                columns, values, List.of()));
                    } else if (delete) {
                        List<Value> key = new ArrayList<>();
                        for (String k : info.keyColumns()) key.add(values.get(columns.indexOf(k)));
                        out.add(new RowChange(info.name(), RowChange.Kind.DELETE, info.keyColumns(), key,
                                info.keyColumns()));
                    } else {
                        out.add(new RowChange(info.name(), RowChange.Kind.UPSERT, columns, values, info.keyColumns()));
                    }
                }
            }
        }
        return out;
    }

    /**
     * Applies other instances' updates in order ({@link UpdateApplier#applyAll}), a bucket move as its receivers must:
     * the updates before it applied first, then this database's own rows of the moving buckets deleted, then the
     * move's changes (its new owners and the old owner's rows), all in the caller's transaction.
     *
     * @param map the map in force before these updates
     * @return the map after them
     */
    public static PartitionMap applyAll(Connection c, Dialect d, TableCatalog catalog, Map<String, String> tables,
                                        PartitionMap map, List<StateUpdate> updates) throws SQLException {
        int from = 0;
        for (int i = 0; i < updates.size(); i++) {
            StateUpdate u = updates.get(i);
            if (!moves(u)) continue;
            if (i > from) UpdateApplier.applyAll(c, d, updates.subList(from, i));
            List<RowChange> changes = new ArrayList<>(rowsOf(c, d, catalog, tables, map, moved(u), true));
            changes.addAll(u.changes());
            UpdateApplier.apply(c, d, changes);
            map = after(map, u);
            from = i + 1;
        }
        if (from < updates.size()) UpdateApplier.applyAll(c, d, from == 0 ? updates : updates.subList(from,
                updates.size()));
        return map;
    }
}
