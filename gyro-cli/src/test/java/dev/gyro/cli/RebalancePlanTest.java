package dev.gyro.cli;

import dev.gyro.protocol.PartitionMap;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The moves {@code gyro cluster rebalance} plans: the fewest that leave the buckets even. */
class RebalancePlanTest {

    /** The map after the plan's steps. */
    static PartitionMap after(PartitionMap map, List<ClusterMoves.Step> plan) {
        for (ClusterMoves.Step s : plan) {
            for (int b : s.buckets()) assertThat(map.ownerOfBucket(b)).isEqualTo(s.from());
            map = map.moved(s.buckets(), s.to(), map.version() + 1);
        }
        return map;
    }

    @Test
    void anEvenMapNeedsNoMove() {
        assertThat(ClusterMoves.plan(PartitionMap.uniform(3), 3)).isEmpty();
    }

    @Test
    void aNewInstanceGetsAFairShareFromEveryOther() {
        // three instances' map over a ring of four: the fourth owns nothing yet
        List<ClusterMoves.Step> plan = ClusterMoves.plan(PartitionMap.uniform(3), 4);
        PartitionMap even = after(PartitionMap.uniform(3), plan);
        for (int i = 0; i < 4; i++) assertThat(even.bucketsOf(i).length).isBetween(64, 64);
        assertThat(plan).allMatch(s -> s.to() == 3);
        assertThat(plan.stream().mapToInt(s -> s.buckets().length).sum()).isEqualTo(64);
    }

    @Test
    void bucketsPiledOnOneInstanceAreSpreadAgain() {
        PartitionMap piled = PartitionMap.uniform(3).moved(PartitionMap.uniform(3).bucketsOf(1), 0, 2);
        List<ClusterMoves.Step> plan = ClusterMoves.plan(piled, 3);
        PartitionMap even = after(piled, plan);
        for (int i = 0; i < 3; i++) assertThat(even.bucketsOf(i).length).isBetween(85, 86);
        assertThat(plan.stream().mapToInt(s -> s.buckets().length).sum()).isEqualTo(85);
    }

    /** Per instance of {@code members}: the load its buckets took under {@code map}. */
    static long[] loadOf(PartitionMap map, List<Integer> members, long[] load) {
        long[] out = new long[members.size()];
        for (int k = 0; k < members.size(); k++) for (int b : map.bucketsOf(members.get(k))) out[k] += load[b];
        return out;
    }

    @Test
    void aHotInstanceGivesItsBusiestBucketsToTheCoolestUntilTheLoadIsEven() {
        PartitionMap map = PartitionMap.uniform(3);
        long[] load = new long[map.buckets()];
        for (int b = 0; b < load.length; b++) load[b] = 10;
        int[] zeros = map.bucketsOf(0);
        for (int k = 0; k < 8; k++) load[zeros[k]] = 200; // eight hot buckets on instance 0
        List<Integer> members = List.of(0, 1, 2);
        long[] before = loadOf(map, members, load);
        assertThat(before[0]).isGreaterThan(2 * before[1]);
        List<ClusterMoves.Step> plan = ClusterMoves.planByLoad(map, members, load);
        assertThat(plan).isNotEmpty().allMatch(s -> s.from() == 0);
        long[] after = loadOf(after(map, plan), members, load);
        double mean = java.util.Arrays.stream(after).sum() / 3.0;
        for (long l : after) assertThat((double) l).as("load after %s", java.util.Arrays.toString(after))
                .isBetween(mean * 0.8, mean * 1.1);
        // even already: nothing moves; no load at all: nothing moves
        assertThat(ClusterMoves.planByLoad(after(map, plan), members, load)).isEmpty();
        assertThat(ClusterMoves.planByLoad(map, members, new long[map.buckets()])).isEmpty();
    }

    @Test
    void oneBucketHotterThanTheGapStaysWhereItIs() {
        // all load in one bucket: moving it only moves the hot spot, so the plan leaves it
        PartitionMap map = PartitionMap.uniform(2);
        long[] load = new long[map.buckets()];
        load[map.bucketsOf(0)[0]] = 1000;
        assertThat(ClusterMoves.planByLoad(map, List.of(0, 1), load)).isEmpty();
    }
}
