package dev.gyro.sim;

import dev.gyro.protocol.Ring;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.Value;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NavigableMap;

/**
 * The simulated application's one global transaction over the replicated table {@code kv(k PRIMARY KEY, v)}:
 * it reads some rows and writes (or deletes) others with values computed from what it read, so its effect
 * depends on which global requests ran before it. Sometimes what it reads makes it write nothing (a read-only
 * outcome: no state update, no gsn).
 *
 * @param id       the request id the client gave it
 * @param instance the instance the client sent it to
 * @param reads    keys it reads
 * @param writes   keys it writes
 */
record GlobalRequest(long id, int instance, long[] reads, long[] writes) {

    static final String TABLE = "kv";
    private static final List<String> COLUMNS = List.of("k", "v");
    private static final List<String> KEY = List.of("k");

    /**
     * Runs the transaction against {@code rows} (not modifying them) and returns its writes as row images, in the
     * order it makes them; empty if it writes nothing. Deterministic: equal rows give equal writes.
     */
    List<RowChange> execute(NavigableMap<Long, Long> rows) {
        long seen = id;
        for (long k : reads) seen = mix(seen * 31 + rows.getOrDefault(k, -1L));
        if (Math.floorMod(seen, 7) == 0) return List.of(); // what it read says there is nothing to do
        List<RowChange> changes = new ArrayList<>();
        for (long k : writes) {
            seen = mix(seen + k);
            if (Math.floorMod(seen, 5) == 0) {
                changes.add(new RowChange(TABLE, RowChange.Kind.DELETE, KEY, List.of(new Value.Int(k)), KEY));
            } else {
                changes.add(new RowChange(TABLE, RowChange.Kind.UPSERT, COLUMNS,
                        List.of(new Value.Int(k), new Value.Int(Math.floorMod(seen, 1000))), KEY));
            }
        }
        return changes;
    }

    /**
     * Applies row images to {@code rows}: an idempotent upsert or delete by key (docs/decisions/04-row-images.md). The
     * row of {@link Ring#TABLE} is Gyro's metadata, which the database records itself ({@link SimDatabase}).
     */
    static void apply(List<RowChange> changes, NavigableMap<Long, Long> rows) {
        for (RowChange c : changes) {
            if (c.table().equals(Ring.TABLE)) continue;
            if (!c.table().equals(TABLE)) throw new IllegalStateException("unknown table " + c.table());
            long k = ((Value.Int) c.value("k")).value();
            if (c.kind() == RowChange.Kind.DELETE) rows.remove(k);
            else rows.put(k, ((Value.Int) c.value("v")).value());
        }
    }

    /** The keys that {@code changes} write. */
    static List<Long> keys(List<RowChange> changes) {
        List<Long> keys = new ArrayList<>(changes.size());
        for (RowChange c : changes) if (!c.table().equals(Ring.TABLE)) keys.add(((Value.Int) c.value("k")).value());
        return keys;
    }

    /** {@code changes} without the row of {@link Ring#TABLE}: what the application wrote. */
    static List<RowChange> applicationWrites(List<RowChange> changes) {
        return changes.stream().filter(c -> !c.table().equals(Ring.TABLE)).toList();
    }

    /** Every key the transaction reads or writes: what a snapshot-isolated DBMS checks for conflicts. */
    long[] touched() {
        long[] all = Arrays.copyOf(reads, reads.length + writes.length);
        System.arraycopy(writes, 0, all, reads.length, writes.length);
        return all;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    @Override
    public String toString() {
        return "r" + id + "@" + instance + " reads " + Arrays.toString(reads) + " writes " + Arrays.toString(writes);
    }
}
