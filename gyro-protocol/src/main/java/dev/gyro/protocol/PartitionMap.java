package dev.gyro.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Routing (docs/decisions/07-partition-map.md): a request's partitioning value hashes to one of a fixed number of
 * buckets, and a versioned table maps every bucket to an instance. Moving buckets, or adding instances, is a new
 * map with a higher version; the hash of a value never changes. Every client and instance uses this same
 * deterministic function, so requests with equal partitioning values always meet at one instance (the
 * premise of the paper's partitioning, Section VI).
 */
public final class PartitionMap {

    public static final int DEFAULT_BUCKETS = 256;

    private final long version;
    private final int[] owner;
    private final int instances;

    public PartitionMap(long version, int[] bucketOwner) {
        if (bucketOwner.length == 0) throw new IllegalArgumentException("partition map without buckets");
        int max = -1;
        for (int i = 0; i < bucketOwner.length; i++) {
            if (bucketOwner[i] < 0)
                throw new IllegalArgumentException("bucket " + i + " has no owner (" + bucketOwner[i] + ")");
            max = Math.max(max, bucketOwner[i]);
        }
        this.version = version;
        this.owner = bucketOwner.clone();
        this.instances = max + 1;
    }

    /** Buckets dealt round-robin over {@code instances} instances. */
    public static PartitionMap uniform(int instances, int buckets) {
        if (instances < 1) throw new IllegalArgumentException("need at least one instance, got " + instances);
        if (buckets < instances)
            throw new IllegalArgumentException(buckets + " buckets cannot cover " + instances + " instances");
        int[] owner = new int[buckets];
        for (int b = 0; b < buckets; b++) owner[b] = b % instances;
        return new PartitionMap(1, owner);
    }

    public static PartitionMap uniform(int instances) {
        return uniform(instances, Math.max(DEFAULT_BUCKETS, instances));
    }

    public long version() { return version; }

    public int buckets() { return owner.length; }

    /** The highest instance id the map routes to, plus one. */
    public int instances() { return instances; }

    /**
     * This map with {@code buckets} given to instance {@code to}, as version {@code version} (higher than this one's):
     * a bucket move (docs/decisions/43-bucket-moves.md).
     */
    public PartitionMap moved(int[] buckets, int to, long version) {
        if (version <= this.version)
            throw new IllegalArgumentException("map version " + version + " does not follow " + this.version);
        int[] next = owner.clone();
        for (int b : buckets) {
            if (b < 0 || b >= owner.length)
                throw new IllegalArgumentException("no bucket " + b + " (the map has buckets 0 to " + (owner.length - 1)
                        + ")");
            next[b] = to;
        }
        return new PartitionMap(version, next);
    }

    /** The buckets instance {@code instance} owns, in order. */
    public int[] bucketsOf(int instance) {
        return java.util.stream.IntStream.range(0, owner.length).filter(b -> owner[b] == instance).toArray();
    }

    /** The instance a bucket is assigned to. */
    public int ownerOfBucket(int bucket) {
        return owner[bucket];
    }

    public int bucketOf(Value partitioningValue) {
        return (int) Long.remainderUnsigned(hash(partitioningValue), owner.length);
    }

    /** The instance that owns the partition of this value. */
    public int instanceOf(Value partitioningValue) {
        return owner[bucketOf(partitioningValue)];
    }

    /** A stable 64-bit hash: the same on every JVM, platform and release. */
    static long hash(Value v) {
        if (v instanceof Value.Int i) return mix(i.value());
        if (v instanceof Value.Real r) {
            // Integral reals hash like the integer so 5 and 5.0 share a partition.
            double d = r.value();
            return d == Math.rint(d) && Math.abs(d) < 0x1p62 ? mix((long) d) : mix(Double.doubleToLongBits(d));
        }
        if (v instanceof Value.Text t) return mix(fnv1a(t.value().getBytes(StandardCharsets.UTF_8)));
        if (v instanceof Value.Blob b) return mix(fnv1a((byte[]) b.toJava()));
        return mix(0); // NULL
    }

    private static long fnv1a(byte[] bytes) {
        long h = 0xcbf29ce484222325L;
        for (byte b : bytes) {
            h ^= (b & 0xff);
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** The SplitMix64 finalizer: spreads consecutive ids evenly over buckets. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PartitionMap m && m.version == version && Arrays.equals(m.owner, owner);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(version) * 31 + Arrays.hashCode(owner);
    }

    @Override
    public String toString() {
        return "PartitionMap{version=" + version + ", buckets=" + owner.length + ", instances=" + instances + "}";
    }
}
