package dev.gyro.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code gyro bench attach} reads from BenchBase's own report (docs/decisions/36-attached-benchmark.md). */
class AttachBenchmarkTest {

    private static final String REPORT = """
            \u001B[0;1mRejected Transactions (Server Retry):\u001B[0;0m
            com.oltpbenchmark.benchmarks.tatp.procedures.UpdateLocation/06                   [   2] ****
            com.oltpbenchmark.benchmarks.tatp.procedures.GetAccessData/02                    [  13] ********
            \u001B[0;1mRejected Transactions (Retry Different):\u001B[0;0m
            <EMPTY>
            \u001B[0;1mUnexpected SQL Errors:\u001B[0;0m
            <EMPTY>
            \u001B[0;1mUnknown Status Transactions:\u001B[0;0m
            <EMPTY>
            """;

    @Test
    void theEntriesUnderAHeadingOfBenchBasesReportAreSummed() {
        assertThat(AttachBenchmark.section(REPORT, "Rejected Transactions (Server Retry):")).isEqualTo(15);
        assertThat(AttachBenchmark.section(REPORT, "Unexpected SQL Errors:")).isZero();
        assertThat(AttachBenchmark.section(REPORT, "No such heading:")).isZero();
    }

    private static AttachBenchmark.Point run(double p50) {
        return new AttachBenchmark.Point("voter", "agent", 1, 1, "100", 100, 100, p50, 2 * p50, p50, 1000, 0, 0, "OK",
                null, 0.1, 30, null, 0, null);
    }

    /** The agent's cost is the median of its rounds' p50s: one run far off (the machine busy for a moment) moves it not. */
    @Test
    void theRoundsOfAConfigurationAreTakenAtTheirMedian() {
        assertThat(AttachBenchmark.median(java.util.List.of(run(0.30), run(0.21), run(0.95)),
                AttachBenchmark.Point::p50Ms)).isEqualTo(0.30);
        assertThat(AttachBenchmark.median(java.util.List.of(run(0.20), run(0.30)), AttachBenchmark.Point::p50Ms))
                .isEqualTo(0.25);
        assertThat(AttachBenchmark.median(java.util.List.of(), AttachBenchmark.Point::p50Ms)).isNaN();
    }
}
