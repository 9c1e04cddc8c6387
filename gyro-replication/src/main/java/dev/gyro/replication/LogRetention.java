package dev.gyro.replication;

/**
 * How much of its log a group keeps (docs/decisions/45-database-as-snapshot.md): every {@code snapshotEvery} applied
 * entries a replica takes a snapshot (its database's index, nothing written) and purges the closed log segments before
 * it that every member has committed; segments close at {@code segmentBytes}. What a healthy group's log directory
 * holds is then about two segments and {@code snapshotEvery} entries, whatever runs through it.
 *
 * @param snapshotEvery applied entries between two snapshots, at least 1
 * @param segmentBytes  the largest log segment, at least 64 KiB
 */
public record LogRetention(long snapshotEvery, long segmentBytes) {

    /** A snapshot every 1,024 entries, segments of 4 MiB. */
    public static final LogRetention DEFAULT = new LogRetention(1024, 4L << 20);

    public LogRetention {
        if (snapshotEvery < 1) throw new IllegalArgumentException("a snapshot every " + snapshotEvery + " entries");
        if (segmentBytes < 64 << 10)
            throw new IllegalArgumentException("log segments of " + segmentBytes + " bytes: at least 64 KiB");
    }
}
