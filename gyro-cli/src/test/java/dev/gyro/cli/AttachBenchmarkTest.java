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
}
