package dev.gyro.bench;

import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.rubis.Rubis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** RUBiS's bidding mix on 3 instances over SQLite, partitioned by item and user (the paper's double key). */
class RubisClusterTest {

    @Test
    void biddingMixRunsConvergesAndKeepsTheInvariants(@TempDir Path dir) throws Exception {
        ClusterBenchmark.Report report = ClusterBenchmark.run((new ClusterBenchmark.Spec(
                new Rubis(new Rubis.Size(300, 200, 100)), dir, 3, 1, 17, 10, Bounded.AT_MOST,
                WorkloadOptions.NONE)).bounded(Bounded.CALLS), new ClusterBenchmark.Listener() {});
        Reports.print(report, System.out);
        assertThat(report.problems()).isEmpty();
        assertThat(report.run().count("local")).isPositive();
        assertThat(report.run().count("global")).isPositive();
        assertThat(report.run().byTransaction().get("storeBid").ok()).isPositive();
        assertThat(report.checks().replicas()).hasSize(4);
    }
}
