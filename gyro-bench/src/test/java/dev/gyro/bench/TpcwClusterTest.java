package dev.gyro.bench;

import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.tpcw.Tpcw;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.gyro.protocol.PartitionMap;
import dev.gyro.cluster.LocalCluster;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** TPC-W's ordering mix (the one with the most global requests) on 3 instances over SQLite. */
class TpcwClusterTest {

    @Test
    void orderingMixRunsConvergesAndKeepsTheInvariants(@TempDir Path dir) throws Exception {
        ClusterBenchmark.Report report = ClusterBenchmark.run((new ClusterBenchmark.Spec(
                new Tpcw(new Tpcw.Size(300, 400)), dir, 3, 1, 11, 8, Bounded.AT_MOST,
                WorkloadOptions.of(Map.of("mix", "ordering")))).bounded(Bounded.CALLS), new ClusterBenchmark.Listener() {});
        Reports.print(report, System.out);
        assertThat(report.problems()).isEmpty();
        assertThat(report.run().count("local")).isPositive();
        assertThat(report.run().count("global")).isPositive();
        assertThat(report.run().byTransaction().get("doBuyConfirm").ok()).isPositive();
        assertThat(report.checks().replicas()).hasSize(7);

        // One corrupted row on one instance: replica convergence and the audit both fail, naming it.
        Tpcw app = (Tpcw) report.spec().app();
        List<Connection> conns = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++)
                conns.add(DriverManager.getConnection("jdbc:sqlite:" + LocalCluster.databaseFile(dir, i)));
            try (Statement s = conns.get(1).createStatement()) {
                s.executeUpdate("UPDATE ITEM SET I_STOCK = -4 WHERE I_ID = 42");
            }
            Checks.Result after = Checks.run(app, app.audit(1, 11), conns, PartitionMap.uniform(3));
            assertThat(after.violations()).anySatisfy(v -> assertThat(v).contains("replicated table ITEM differs"));
            assertThat(after.violations()).anySatisfy(v -> assertThat(v).startsWith("instance 1: violated: stock is never negative")
                    .contains("I_ID=42"));
        } finally {
            for (Connection c : conns) c.close();
        }
    }
}
