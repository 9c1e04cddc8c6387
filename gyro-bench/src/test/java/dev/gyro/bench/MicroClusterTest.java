package dev.gyro.bench;

import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.micro.Micro;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The micro-benchmark on 3 instances over SQLite: both modes run, converge and keep their counts. */
class MicroClusterTest {

    @Test
    void halfLocalMixRunsConvergesAndCountsEveryOperationOnce(@TempDir Path dir) throws Exception {
        ClusterBenchmark.Report report = ClusterBenchmark.run((new ClusterBenchmark.Spec(new Micro(), dir, 3, 1, 7, 6,
                Bounded.AT_MOST, WorkloadOptions.of(Map.of("local", "50", "service-ms", "1")))).bounded(Bounded.CALLS),
                new ClusterBenchmark.Listener() {});
        assertThat(report.problems()).isEmpty();
        assertThat(report.run().count("local")).isPositive();
        assertThat(report.run().count("global")).isPositive();
        assertThat(report.run().byTransaction()).containsOnlyKeys("localOp", "globalOp");
    }

    @Test
    void voidModeSendsNoSqlButIsStillOrdered(@TempDir Path dir) throws Exception {
        ClusterBenchmark.Report report = ClusterBenchmark.run((new ClusterBenchmark.Spec(new Micro(), dir, 3, 1, 7, 4,
                Bounded.AT_MOST, WorkloadOptions.parse(List.of("local=80", "void", "service-ms=0")))).bounded(Bounded.CALLS),
                new ClusterBenchmark.Listener() {});
        assertThat(report.problems()).isEmpty();
        assertThat(report.run().byTransaction()).containsOnlyKeys("voidLocal", "voidGlobal");
        assertThat(report.run().count("global")).isPositive();
        // nothing was written: the shared rows are as loaded
        assertThat(report.checks().replicas().get(0).get(0).rows()).isEqualTo(Micro.SHARED_PER_SCALE + 1);
    }
}
