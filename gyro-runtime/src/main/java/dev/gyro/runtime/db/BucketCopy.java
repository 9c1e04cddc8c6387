package dev.gyro.runtime.db;

import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a bucket move's copy shipped, kept by the old owner until its cutover (docs/decisions/43-bucket-moves.md): a
 * digest of each row image, by table and key, and the keys that an update applied here since touched. Between the copy
 * and the cutover every instance applies the same updates in gsn order, and only the old owner runs the buckets'
 * local requests, so a receiver holds the copy with those updates; the cutover ships what the old owner holds
 * otherwise ({@link #catchUp}). A row an update touched may since have been written back by a local request to what
 * the copy shipped, so it goes again whatever its digest says.
 *
 * <p>Tables without a primary key are not copied: their rows are a multiset without a key to compare by, so the
 * cutover ships them whole, and the receivers first remove theirs ({@link BucketRows#applyAll}).
 *
 * <p>Threads: any; {@link #touched} is called from the belt loop and the global threads.
 */
public final class BucketCopy {

    private final Set<String> tables; // the partitioned tables, lower case
    /** Per shipped row (table and key, {@link #key}): a digest of its image. */
    private final Map<List<Object>, Long> shipped = new HashMap<>(); // guarded by this
    /** The keys of partitioned rows an update applied here touched since the copy. */
    private final Set<List<Object>> touched = new LinkedHashSet<>(); // guarded by this

    /** A copy about to be read: from now on, {@link #touched} notes the updates applied. */
    public BucketCopy(Set<String> partitionedTables) {
        Set<String> lower = new HashSet<>();
        for (String t : partitionedTables) lower.add(t.toLowerCase(Locale.ROOT));
        this.tables = lower;
    }

    /** The copy ships {@code images}, the rows as {@link #copied} takes them of {@link BucketRows#rowsOf}. */
    public synchronized void ship(List<RowChange> images) {
        for (RowChange r : images) shipped.put(key(r), digest(r.values()));
    }

    /** The copy's rows of {@code rows}: those with a key (a table without one goes whole at the cutover). */
    public static List<RowChange> copied(List<RowChange> rows) {
        return rows.stream().filter(r -> r.kind() == RowChange.Kind.UPSERT).toList();
    }

    /** How many rows the copy shipped. */
    public synchronized int rows() {
        return shipped.size();
    }

    /** {@code update} was applied here (or is about to commit here) after the copy: its partitioned rows go again. */
    public synchronized void touched(StateUpdate update) {
        for (RowChange c : update.changes()) {
            if (c.kind().keyless() || !tables.contains(c.table().toLowerCase(Locale.ROOT))) continue;
            touched.add(key(c));
        }
    }

    /**
     * The cutover's rows: from {@code now}, the buckets' rows as the old owner holds them with the buckets closed
     * ({@link BucketRows#rowsOf}), first a DELETE of each row shipped or touched that is gone, then the image of each
     * row that is new, differs from its copy, or was touched, then every row of the tables without a key. A DELETE of a
     * touched row may name a row that is not of these buckets at a receiver: it applies only to the moving buckets'.
     */
    public synchronized List<RowChange> catchUp(List<RowChange> now) {
        List<RowChange> images = new ArrayList<>(), keyless = new ArrayList<>();
        Set<List<Object>> present = new HashSet<>();
        for (RowChange r : now) {
            if (r.kind() != RowChange.Kind.UPSERT) {
                keyless.add(r);
                continue;
            }
            List<Object> k = key(r);
            present.add(k);
            Long was = shipped.get(k);
            if (was == null || was != digest(r.values()) || touched.contains(k)) images.add(r);
        }
        List<RowChange> out = new ArrayList<>();
        Set<List<Object>> gone = new LinkedHashSet<>(shipped.keySet());
        gone.addAll(touched);
        gone.removeAll(present);
        for (List<Object> k : gone) out.add(deleteOf(k));
        out.addAll(images);
        out.addAll(keyless);
        return out;
    }

    /**
     * A row's table and key, the key's columns in the order of their lower-case names (an update's change may name
     * them in another order, or case, than the table's catalog): {@code [table, [column, ...], [value, ...]]}, the
     * columns kept as named so that a DELETE can be made of it.
     */
    static List<Object> key(RowChange r) {
        List<String> columns = new ArrayList<>(r.keyColumns());
        columns.sort(Comparator.comparing(c -> c.toLowerCase(Locale.ROOT)));
        List<Value> values = new ArrayList<>(columns.size());
        List<String> lower = new ArrayList<>(columns.size());
        for (String c : columns) {
            values.add(r.value(c));
            lower.add(c.toLowerCase(Locale.ROOT));
        }
        return List.of(r.table().toLowerCase(Locale.ROOT), new Named(r.table(), columns, lower), values);
    }

    /** A key's table and columns as named, equal by their lower-case names. */
    private record Named(String table, List<String> columns, List<String> lower) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Named n && lower.equals(n.lower);
        }

        @Override
        public int hashCode() {
            return lower.hashCode();
        }
    }

    @SuppressWarnings("unchecked")
    private static RowChange deleteOf(List<Object> key) {
        Named n = (Named) key.get(1);
        return new RowChange(n.table(), RowChange.Kind.DELETE, n.columns(), (List<Value>) key.get(2), n.columns());
    }

    /** A 64-bit digest of a row image's values. */
    static long digest(List<Value> values) {
        long h = 0xcbf29ce484222325L;
        for (Value v : values) h = (h ^ digest(v)) * 0x100000001b3L + 0x9E3779B97F4A7C15L;
        return h;
    }

    private static long digest(Value v) {
        if (v instanceof Value.Int i) return mix(i.value());
        if (v instanceof Value.Real r) return mix(Double.doubleToLongBits(r.value()) ^ 0x5245414cL);
        if (v instanceof Value.Text t) {
            long h = 0x54455854L;
            for (int k = 0; k < t.value().length(); k++) h = (h ^ t.value().charAt(k)) * 0x100000001b3L;
            return mix(h);
        }
        if (v instanceof Value.Blob b) {
            long h = 0x424c4f42L;
            for (byte x : (byte[]) b.toJava()) h = (h ^ (x & 0xff)) * 0x100000001b3L;
            return mix(h);
        }
        return 0x6e756c6cL; // NULL
    }

    /** SplitMix64's finalizer. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
