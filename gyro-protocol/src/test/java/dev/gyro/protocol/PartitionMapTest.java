package dev.gyro.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Routing must be the same function everywhere and forever: every client and instance computes it alone. */
class PartitionMapTest {

    @Test
    void hashesArePinned() {
        // These numbers are part of the on-disk and on-the-wire contract: if they change, data lands on the
        // wrong instance after an upgrade. Change them only together with a migration.
        PartitionMap map = PartitionMap.uniform(4);
        assertThat(map.bucketOf(new Value.Int(0))).isEqualTo(bucket(PartitionMap.hash(new Value.Int(0)), 256));
        assertThat(PartitionMap.hash(new Value.Int(0))).isEqualTo(0L);
        assertThat(PartitionMap.hash(new Value.Int(1))).isEqualTo(0x5692161d100b05e5L);
        assertThat(PartitionMap.hash(new Value.Text("alice"))).isEqualTo(0xc5d1556d66774a5cL);
        assertThat(map.instanceOf(new Value.Int(1))).isEqualTo(1);
        assertThat(map.instanceOf(new Value.Int(42))).isEqualTo(2);
        assertThat(map.instanceOf(new Value.Text("alice"))).isEqualTo(0);
    }

    @Test
    void sameValueAlwaysRoutesToTheSameInstance() {
        PartitionMap a = PartitionMap.uniform(5);
        PartitionMap b = PartitionMap.uniform(5);
        for (long k = -1000; k < 1000; k++) {
            assertThat(a.instanceOf(new Value.Int(k))).isEqualTo(b.instanceOf(new Value.Int(k)))
                    .isEqualTo(a.instanceOf(new Value.Int(k)));
            assertThat(a.instanceOf(new Value.Text("user-" + k))).isEqualTo(b.instanceOf(new Value.Text("user-" + k)));
        }
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    }

    @Test
    void integralRealsRouteLikeIntegers() {
        PartitionMap map = PartitionMap.uniform(7);
        for (long k = -50; k < 50; k++)
            assertThat(map.bucketOf(new Value.Real(k))).isEqualTo(map.bucketOf(new Value.Int(k)));
        assertThat(map.bucketOf(new Value.Real(-0.0))).isEqualTo(map.bucketOf(new Value.Int(0)));
        // non-integral, NaN and infinite reals still route somewhere, deterministically
        for (double d : new double[] {0.5, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1e300})
            assertThat(map.bucketOf(new Value.Real(d))).isEqualTo(map.bucketOf(new Value.Real(d))).isBetween(0, 255);
        assertThat(map.bucketOf(Value.NULL)).isBetween(0, 255);
        assertThat(map.bucketOf(new Value.Blob(new byte[] {1, 2}))).isBetween(0, 255);
    }

    @Test
    void uniformMapsCoverEveryInstanceAndSpreadValuesEvenly() {
        for (int n = 1; n <= 16; n++) {
            PartitionMap map = PartitionMap.uniform(n);
            assertThat(map.instances()).isEqualTo(n);
            assertThat(map.buckets()).isEqualTo(Math.max(256, n));
            int[] perInstance = new int[n];
            for (long k = 0; k < 10_000; k++) perInstance[map.instanceOf(new Value.Int(k))]++;
            for (int i = 0; i < n; i++) {
                double share = perInstance[i] / 10_000.0;
                assertThat(share).as("share of instance %d of %d", i, n).isBetween(0.6 / n, 1.4 / n);
            }
        }
        // more instances than default buckets: every instance still owns a bucket
        PartitionMap big = PartitionMap.uniform(300);
        assertThat(big.buckets()).isEqualTo(300);
        Set<Integer> owners = new HashSet<>();
        for (long k = 0; k < 100_000; k++) owners.add(big.instanceOf(new Value.Int(k)));
        assertThat(owners).hasSize(300);
    }

    @Test
    void explicitMapsRouteByTheirTable() {
        PartitionMap map = new PartitionMap(3, new int[] {2, 0, 1, 0});
        assertThat(map.version()).isEqualTo(3);
        assertThat(map.instances()).isEqualTo(3);
        for (long k = 0; k < 100; k++) {
            Value v = new Value.Int(k);
            assertThat(map.instanceOf(v)).isEqualTo(new int[] {2, 0, 1, 0}[map.bucketOf(v)]);
        }
        assertThat(map).isNotEqualTo(new PartitionMap(4, new int[] {2, 0, 1, 0}));
        assertThat(map).isNotEqualTo(new PartitionMap(3, new int[] {2, 0, 1, 1}));
    }

    @Test
    void theMapIsCopiedNotShared() {
        int[] owners = {0, 1};
        PartitionMap map = new PartitionMap(1, owners);
        int before = map.instanceOf(new Value.Int(9));
        owners[0] = 5;
        owners[1] = 5;
        assertThat(map.instanceOf(new Value.Int(9))).isEqualTo(before);
        assertThat(map.instances()).isEqualTo(2);
    }

    @Test
    void badMapsAreRejected() {
        assertThatThrownBy(() -> new PartitionMap(1, new int[0])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("without buckets");
        assertThatThrownBy(() -> new PartitionMap(1, new int[] {0, -1})).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bucket 1 has no owner");
        assertThatThrownBy(() -> PartitionMap.uniform(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one instance");
        assertThatThrownBy(() -> PartitionMap.uniform(5, 4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot cover");
    }

    private static int bucket(long hash, int buckets) {
        return (int) Long.remainderUnsigned(hash, buckets);
    }
}
