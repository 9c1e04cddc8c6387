package dev.gyro.runtime.db;

import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;

import java.sql.Connection;
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
 * <p>A bucket move is two global requests' state updates like any other, so every instance applies them at the same
 * points of the gsn order. The copy: a row of the metadata table {@code gyro_bucket_copies} per bucket
 * ({@link #copyRows}), then every row of the buckets as the old owner had it ({@link #rowsOf}, UPSERT images). An
 * instance that applies it first deletes its own rows of those buckets ({@link #applyAll}): only the old owner's are
 * current (local requests wrote them there alone), and a row the old owner deleted must not survive elsewhere. The
 * cutover: the new owners, as rows of {@code gyro_buckets} ({@link #mapRows}), then what changed since the copy
 * ({@link BucketCopy#catchUp}): DELETEs, which a receiver applies only to its rows of the moving buckets, and images.
 * The rows of a bucket are those whose value in the column the classification names for their table
 * ({@code partitionedTables}) hashes to it, by the same function requests are routed with.
 *
 * <pre>
 * gyro_buckets (bucket PRIMARY KEY, owner, map_version, gsn)   -- the buckets moved since the ring started
 * gyro_bucket_copies (bucket PRIMARY KEY, owner, gsn)          -- the buckets copied to a new owner, not yet cut over
 * </pre>
 */
public final class BucketRows {

    /** The metadata table of the partition map's changes. */
    public static final String MAP_TABLE = "gyro_buckets";
    private static final List<String> MAP_COLUMNS = List.of("bucket", "owner", "map_version", "gsn");
    /** The metadata table of the copies shipped and not cut over yet (the copy's marker at its receivers). */
    public static final String COPY_TABLE = "gyro_bucket_copies";
    private static final List<String> COPY_COLUMNS = List.of("bucket", "owner", "gsn");

    private BucketRows() {}

    static void createTable(Statement st, Dialect d) throws SQLException {
        String bigint = d.sqlType(Dialect.SqlType.BIGINT);
        st.executeUpdate("CREATE TABLE IF NOT EXISTS " + MAP_TABLE + " (bucket " + bigint + " PRIMARY KEY, owner "
                + bigint + " NOT NULL, map_version " + bigint + " NOT NULL, gsn " + bigint + " NOT NULL)");
        st.executeUpdate("CREATE TABLE IF NOT EXISTS " + COPY_TABLE + " (bucket " + bigint + " PRIMARY KEY, owner "
                + bigint + " NOT NULL, gsn " + bigint + " NOT NULL)");
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

    /** The rows of {@link #COPY_TABLE} that say {@code buckets} were copied to instance {@code to} at {@code gsn}. */
    public static List<RowChange> copyRows(int[] buckets, int to, long gsn) {
        List<RowChange> out = new ArrayList<>();
        for (int b : buckets)
            out.add(new RowChange(COPY_TABLE, RowChange.Kind.UPSERT, COPY_COLUMNS, List.of(new Value.Int(b),
                    new Value.Int(to), new Value.Int(gsn)), List.of("bucket")));
        return out;
    }

    /** The deletes of the rows of {@link #COPY_TABLE} of {@code buckets}: their cutover. */
    public static List<RowChange> copiesDone(int[] buckets) {
        List<RowChange> out = new ArrayList<>();
        for (int b : buckets)
            out.add(new RowChange(COPY_TABLE, RowChange.Kind.DELETE, List.of("bucket"), List.of(new Value.Int(b)),
                    List.of("bucket")));
        return out;
    }

    /** Whether {@code update} is a move's copy (writes rows of {@link #COPY_TABLE}). */
    public static boolean copies(StateUpdate update) {
        for (RowChange c : update.changes())
            if (c.table().equals(COPY_TABLE) && c.kind() == RowChange.Kind.UPSERT) return true;
        return false;
    }

    /** Whether {@code update} copies or moves buckets: its receivers apply it as {@link #applyAll} says. */
    public static boolean copiesOrMoves(StateUpdate update) {
        return copies(update) || moves(update);
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

    /** The buckets {@code update} moves, or with {@code copies} those it copies. */
    static BitSet buckets(StateUpdate update, boolean copies) {
        BitSet out = new BitSet();
        for (RowChange c : update.changes())
            if (copies ? c.table().equals(COPY_TABLE) && c.kind() == RowChange.Kind.UPSERT : c.table().equals(MAP_TABLE))
                out.set((int) ((Value.Int) c.value("bucket")).value());
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
        return rowsOf(c, d, catalog, tables, map, buckets, delete, new java.util.concurrent.atomic.AtomicLong());
    }

    /** As {@link #rowsOf(Connection, Dialect, TableCatalog, Map, PartitionMap, BitSet, boolean)}, counting in {@code read}. */
    public static List<RowChange> rowsOf(Connection c, Dialect d, TableCatalog catalog, Map<String, String> tables,
                                         PartitionMap map, BitSet buckets, boolean delete,
                                         java.util.concurrent.atomic.AtomicLong read) throws SQLException {
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
            TableRows.scan(c, d, info, values -> {
                if (!buckets.get(map.bucketOf(values.get(at)))) return;
                read.incrementAndGet();
                if (!delete) {
                    out.add(TableRows.image(info, values));
                } else if (!keyed) {
                    out.add(new RowChange(info.name(), RowChange.Kind.REMOVE, columns, values, List.of()));
                } else {
                    List<Value> key = new ArrayList<>();
                    for (String k : info.keyColumns()) key.add(values.get(columns.indexOf(k)));
                    out.add(new RowChange(info.name(), RowChange.Kind.DELETE, info.keyColumns(), key,
                            info.keyColumns()));
                }
            });
        }
        return out;
    }

    /**
     * Applies other instances' updates in order ({@link UpdateApplier#applyAll}), a bucket move's copy and cutover as
     * their receivers must, in the caller's transaction: the updates before it applied first; then for a copy, this
     * database's own rows of the buckets deleted and the copy's changes applied; for a cutover, its own rows of the
     * buckets in tables without a key removed (the cutover ships those whole), and the cutover's changes applied, of
     * its DELETEs of partitioned rows only those of rows this database holds in the moving buckets.
     *
     * @param map the map in force before these updates
     * @return the map after them
     */
    public static PartitionMap applyAll(Connection c, Dialect d, TableCatalog catalog, Map<String, String> tables,
                                        PartitionMap map, List<StateUpdate> updates) throws SQLException {
        int from = 0;
        for (int i = 0; i < updates.size(); i++) {
            StateUpdate u = updates.get(i);
            boolean copy = copies(u);
            if (!copy && !moves(u)) continue;
            if (i > from) UpdateApplier.applyAll(c, d, updates.subList(from, i));
            List<RowChange> own = rowsOf(c, d, catalog, tables, map, buckets(u, copy), true);
            List<RowChange> changes = new ArrayList<>();
            if (copy) {
                changes.addAll(own);
                changes.addAll(u.changes());
            } else {
                java.util.Set<List<Object>> held = new java.util.HashSet<>();
                for (RowChange r : own) {
                    if (r.kind() == RowChange.Kind.REMOVE) changes.add(r);
                    else held.add(BucketCopy.key(r));
                }
                java.util.Set<String> partitioned = new java.util.HashSet<>();
                for (String t : tables.keySet()) partitioned.add(t.toLowerCase(java.util.Locale.ROOT));
                for (RowChange r : u.changes())
                    if (r.kind() != RowChange.Kind.DELETE || !partitioned.contains(r.table().toLowerCase(
                            java.util.Locale.ROOT)) || held.contains(BucketCopy.key(r))) changes.add(r);
                map = after(map, u);
            }
            UpdateApplier.apply(c, d, changes);
            from = i + 1;
        }
        if (from < updates.size()) UpdateApplier.applyAll(c, d, from == 0 ? updates : updates.subList(from,
                updates.size()));
        return map;
    }
}
