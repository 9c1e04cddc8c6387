package dev.gyro.cli;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code gyro bench grow} reads of a cluster's moves: each moved bucket's hold at its cutover. */
class GrowBenchmarkTest {

    @Test
    void everyBucketOfAMoveWasHeldAsLongAsItsMoveHadItClosed() {
        List<Long> holds = GrowBenchmark.holds(List.of(
                "instance 3 joins the ring ...",
                "moved buckets [1, 4, 7] (12 rows) from instance 1 to instance 3 at gsn 7: map version 2, 40 ms closed",
                "moved buckets [2] (0 rows) from instance 2 to instance 3 at gsn 9: map version 3, 900 ms closed",
                "OK after 2000 ms: map version 3: instance 0 64 buckets"));
        assertThat(holds).containsExactly(40L, 40L, 40L, 900L);
        assertThat(GrowBenchmark.percentile(holds, 50)).isEqualTo(40);
        assertThat(GrowBenchmark.percentile(holds, 99)).isEqualTo(900);
        assertThat(GrowBenchmark.percentile(List.of(), 99)).isEqualTo(-1);
    }
}
