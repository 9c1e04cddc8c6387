package dev.gyro.runtime;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The local requests each bucket this instance owned has taken since it started (docs/decisions/43-bucket-moves.md):
 * what {@code gyro cluster rebalance --by load} reads from every instance, twice, to even out the load instead of the
 * bucket count. One add per local request, without a lock.
 */
final class BucketLoad {

    private final AtomicLongArray requests;

    BucketLoad(int buckets) {
        this.requests = new AtomicLongArray(buckets);
    }

    /** A local request of {@code bucket} entered it here. */
    void count(int bucket) {
        requests.incrementAndGet(bucket);
    }

    /** Per bucket: the local requests it took here (the {@code bucketRequests} of the instance's status). */
    long[] counts() {
        long[] out = new long[requests.length()];
        for (int b = 0; b < out.length; b++) out[b] = requests.get(b);
        return out;
    }
}
