package dev.gyro.replication;

/**
 * How much of its log a group keeps (docs/decisions/45-database-as-snapshot.md): every {@code snapshotEvery} applied
 * entries a replica takes a snapshot (its database's index, nothing written) and purges the closed log segments before
 * it that every member has committed; segments close at {@code segmentBytes}. What a healthy group's log directory
 * holds is then about two segments and {@code snapshotEvery} entries, whatever runs through it. A member that is down
 * keeps the log from being purged past where it stopped, up to {@code maxBehind} entries: one that returns from further
 * behind is rebuilt from a copy of a live replica's database.
 *
 * @param snapshotEvery applied entries between two snapshots, at least 1
 * @param segmentBytes  the largest log segment, at least 64 KiB
 * @param maxBehind     how many entries a member that is down may fall behind before the log is purged past it
 */
public record LogRetention(long snapshotEvery, long segmentBytes, long maxBehind) {

    /**
     * A snapshot every 1,024 entries, segments of 4 MiB, and a down member's log kept for 262,144 entries (about 200 MB
     * a replica at the 748 bytes an entry of the group benchmark's writes).
     */
    public static final LogRetention DEFAULT = new LogRetention(1024, 4L << 20, 262_144);

    public LogRetention {
        if (maxBehind < snapshotEvery)
            throw new IllegalArgumentException("a down member's log kept for " + maxBehind + " entries: at least the "
                    + snapshotEvery + " between two snapshots");
        if (snapshotEvery < 1) throw new IllegalArgumentException("a snapshot every " + snapshotEvery + " entries");
        if (segmentBytes < 64 << 10)
            throw new IllegalArgumentException("log segments of " + segmentBytes + " bytes: at least 64 KiB");
    }
}
