package dev.gyro.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code gyro bench faults} (FaultsBenchmark): refuses what it cannot run before starting anything, and its quick run
 * (two groups of three replica processes on SQLite, a leader killed and a leader frozen under load) ends with the
 * check passed and its figures written. What the figures are depends on the machine; that they are there does not.
 */
class FaultsBenchmarkTest {

    @TempDir
    Path dir;

    @Test
    void refusesWhatItCannotRun() {
        BenchCommandTest.Run db = BenchCommandTest.bench("faults", "--quick", "--db-kills", "1", "--out",
                dir.resolve("a").toString());
        assertThat(db.exit()).isEqualTo(2);
        assertThat(db.out()).startsWith("bench: FAILED: --db-kills kills PostgreSQL servers: give --backend postgres");
        BenchCommandTest.Run none = BenchCommandTest.bench("faults", "--kills", "0", "--freezes", "0");
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.out()).startsWith("bench: FAILED: no fault to inject");
        BenchCommandTest.Run other = BenchCommandTest.bench("tpcc", "--quick", "--kills", "3");
        assertThat(other.exit()).isEqualTo(2);
        assertThat(other.out()).startsWith("bench: FAILED: --kills, --freezes, --freeze-seconds and --db-kills go with"
                + " the faults scenario");
        BenchCommandTest.Run clients = BenchCommandTest.bench("faults", "--quick", "--clients", "8");
        assertThat(clients.exit()).isEqualTo(2);
        assertThat(clients.out()).startsWith("bench: FAILED: faults runs the online store on groups of three");
        assertThat(dir.resolve("a")).doesNotExist();
    }

    /** On request (docs/testing.md): 90 s of 6 replica processes, more than the suite's time allows beside the rest. */
    @Test
    @Tag("processes")
    @org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "gyro.test.faults", matches = "true",
            disabledReason = "on request: -Dgyro.test.faults=true (docs/testing.md)")
    void quickRunChecksEveryAcknowledgedRequestAndWritesItsFigures() throws Exception {
        Path out = dir.resolve("faults");
        BenchCommandTest.Run r = BenchCommandTest.bench("faults", "--quick", "--out", out.toString());
        List<String> lines = r.out().lines().toList();
        assertThat(lines.get(lines.size() - 1)).as(r.out()).startsWith("bench: OK (faults, 2 injected");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("leader kill 1: group 0's leader", "leader freeze 2: group 0's leader")
                .containsPattern("check: [\\d,]+ carts, [\\d,]+ cart lines and [\\d,]+ orders acknowledged; 0 lost, 0"
                        + " applied twice, on each of 6 replicas");
        String summary = Files.readString(out.resolve("summary.md"));
        assertThat(summary).contains("- command: `./gyro bench faults --quick --out ", "- machine: ", "load average",
                "replicas equal, audit holds: OK", "| leader kill | 1 | ", "| leader freeze | 1 | ");
        List<String> csv = Files.readAllLines(out.resolve("results.csv"));
        assertThat(csv).hasSize(3);
        assertThat(csv.get(1)).startsWith("1,kill,0,");
        assertThat(csv.get(2)).startsWith("2,freeze,0,");
        assertThat(Files.size(out.resolve("unavailability.png"))).isPositive();
        assertThat(out.resolve(".work")).doesNotExist();
    }
}
