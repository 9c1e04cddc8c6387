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
}
