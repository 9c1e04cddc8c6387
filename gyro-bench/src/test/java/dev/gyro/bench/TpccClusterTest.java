package dev.gyro.bench;

import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.tpcc.Tpcc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * TPC-C over 6 warehouses on 3 instances over SQLite, partitioned by warehouse. Remote rates are raised (20% of
 * lines, 40% of payments) so that a short run has many global requests and pending rows to fold.
 */
class TpccClusterTest {

    @Test
    void standardMixWithRemoteWarehousesKeepsConditionsOneToFour(@TempDir Path dir) throws Exception {
        ClusterBenchmark.Report report = ClusterBenchmark.run(new ClusterBenchmark.Spec(
                new Tpcc(new Tpcc.Size(500, 20)), dir, 3, 6, 13, 12, Duration.ofSeconds(6),
                WorkloadOptions.of(Map.of("remote-lines", "20", "remote-payments", "40"))), new ClusterBenchmark.Listener() {});
        Reports.print(report, System.out);
        assertThat(report.problems()).isEmpty();
        assertThat(report.run().count("local")).isPositive();
        assertThat(report.run().count("global")).isPositive();
        assertThat(report.run().byTransaction().get("newOrder").aborted()).isPositive();
    }
}
