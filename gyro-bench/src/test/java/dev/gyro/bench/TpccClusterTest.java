package dev.gyro.bench;

import dev.gyro.app.Call;
import dev.gyro.app.Workload;
import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.tpcc.Tpcc;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * TPC-C over 6 warehouses on 3 instances over SQLite, partitioned by warehouse. Remote rates are raised (20% of
 * lines, 40% of payments) so that a short run has many global requests and pending rows to fold.
 */
@Tag("slow")
class TpccClusterTest {

    static final Tpcc APP = new Tpcc(new Tpcc.Size(500, 20));
    static final int WAREHOUSES = 6, SESSIONS = 12;
    static final WorkloadOptions REMOTE = WorkloadOptions.of(Map.of("remote-lines", "20", "remote-payments", "40"));

    /**
     * A seed whose run is sure to roll a New-Order back: 1% of New-Orders name an unused item on their last line,
     * and a loaded machine runs only about 80 New-Orders in this test, so a seed chosen blindly missed one about
     * half the time. With seed 5, session 9's very first call is such a New-Order (to warehouse 4, with lines
     * supplied by warehouse 6), and every session's first call completes within the run. A TPC-C terminal ignores
     * outcomes, so its calls depend on the seed alone: {@link #theSeedStartsWithANewOrderThatMustRollBack} checks it.
     */
    static final long SEED = 5;

    @Test
    void theSeedStartsWithANewOrderThatMustRollBack() {
        Workload w = APP.workload(WAREHOUSES, REMOTE);
        Call first = w.newSession(9, WorkloadRunner.sessionRandom(SEED, 9)).next(null);
        assertThat(first.transaction()).isEqualTo("newOrder");
        String lines = (String) first.parameters().get(4);
        int unused = APP.size().items() + 1; // items are numbered 1..items
        assertThat(lines.substring(lines.lastIndexOf(';') + 1)).startsWith(unused + ":");
    }

    @Test
    void standardMixWithRemoteWarehousesKeepsConditionsOneToFour(@TempDir Path dir) throws Exception {
        ClusterBenchmark.Report report = ClusterBenchmark.run((new ClusterBenchmark.Spec(
                APP, dir, 3, WAREHOUSES, SEED, SESSIONS, Bounded.AT_MOST, REMOTE)).bounded(Bounded.CALLS), new ClusterBenchmark.Listener() {});
        Reports.print(report, System.out);
        assertThat(report.problems()).isEmpty();
        assertThat(report.run().count("local")).isPositive();
        assertThat(report.run().count("global")).isPositive();
        assertThat(report.run().byTransaction().get("newOrder").aborted()).isPositive();
    }
}
