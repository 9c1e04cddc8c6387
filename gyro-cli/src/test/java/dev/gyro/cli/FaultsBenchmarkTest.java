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
        refused("bench: FAILED: --db-kills kills PostgreSQL servers: give --backend postgres",
                "faults", "--quick", "--db-kills", "1", "--out", dir.resolve("a").toString());
        refused("bench: FAILED: no fault to inject", "faults", "--kills", "0", "--freezes", "0");
        refused("bench: FAILED: --freezes, --freeze-seconds and --db-kills go with the faults scenario, --kills with"
                + " faults and replicas", "tpcc", "--quick", "--kills", "3");
        refused("bench: FAILED: --freezes", "replicas", "--quick", "--freezes", "1");
        refused("bench: FAILED: --kills must be 1 or more, not 0", "replicas", "--quick", "--kills", "0");
        refused("bench: FAILED: unknown backend 'oracle'", "replicas", "--quick", "--backend", "oracle");
        refused("bench: FAILED: faults runs the online store on groups of three", "faults", "--quick", "--clients", "8");
        assertThat(dir.resolve("a")).doesNotExist();
    }

    /** {@code gyro bench ARGS} exits 2 with a first line that starts with {@code message}. */
    /** The line Ratis logs when a replica takes up leading, as the replicas' logs have it, is the one counted. */
    @Test
    void aReplicaTakingUpLeadingIsReadFromItsLog() {
        String line = "2026-12-04T03:03:53.012+0000 [replica-1-127.0.0.1-27618@group-D869BDB8A7CE-LeaderElection2] INFO"
                + " RoleInfo - replica-1-127.0.0.1-27618: start replica-1-127.0.0.1-27618@group-D869BDB8A7CE-LeaderStateImpl";
        var m = FaultsBenchmark.BECAME_LEADER.matcher(line + "\nanother line\n");
        assertThat(m.find()).isTrue();
        assertThat(m.group(1)).isEqualTo("2026-12-04T03:03:53.012+0000");
        assertThat(FaultsBenchmark.BECAME_LEADER.matcher(line.replace("LeaderStateImpl", "FollowerState")).find())
                .isFalse();
    }

    private static void refused(String message, String... args) {
        BenchCommandTest.Run run = BenchCommandTest.bench(args);
        assertThat(run.exit()).as(String.join(" ", args)).isEqualTo(2);
        assertThat(run.out()).as(String.join(" ", args)).startsWith(message);
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
