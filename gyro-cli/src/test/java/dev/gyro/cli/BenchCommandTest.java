package dev.gyro.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code gyro bench} is registered and refuses what it cannot run with the reason, before running anything (the
 * scenarios themselves are tested end to end in gyro-bench: ScenarioRunnerTest, LocalRatioScenarioTest).
 */
class BenchCommandTest {

    record Run(int exit, String out) {}

    static Run bench(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        int exit;
        try {
            System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            String[] all = new String[args.length + 1];
            all[0] = "bench";
            System.arraycopy(args, 0, all, 1, args.length);
            exit = Gyro.commandLine().execute(all);
        } finally {
            System.setOut(saved);
        }
        return new Run(exit, bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void unknownScenarioFailsNamingTheKnownOnes() {
        Run r = bench("scale-wan", "--quick");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).startsWith("bench: FAILED: unknown scenario 'scale-wan'")
                .contains("local-ratio", "scale-lan", "wan-latency", "wan-scale", "tpcc");
    }

    @Test
    void unknownBackendFailsNamingTheKnownOnes() {
        Run r = bench("scale-lan", "--quick", "--backend", "oracle");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).startsWith("bench: FAILED: unknown backend 'oracle'").contains("sqlite, postgres, mariadb");
    }

    @Test
    void openLoopOptionsAreChecked() {
        Run arrivals = bench("tpcc", "--quick", "--rates", "50,100", "--arrivals", "bursty");
        assertThat(arrivals.exit()).isEqualTo(2);
        assertThat(arrivals.out()).startsWith("bench: FAILED: unknown arrival schedule 'bursty'").contains("fixed, poisson");
        Run rate = bench("tpcc", "--quick", "--rates", "0");
        assertThat(rate.exit()).isEqualTo(2);
        assertThat(rate.out()).startsWith("bench: FAILED: rates must be positive");
    }

    @Test
    void aWorkloadOptionTheApplicationLacksFailsBeforeAnythingRuns(@TempDir Path dir) {
        // local-ratio's micro-benchmark takes a think time; a negative one is refused by the workload itself
        Run r = bench("local-ratio", "--quick", "--think-ms", "-5", "--out", dir.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).contains("bench: FAILED: workload option think-ms=-5 is outside");
        assertThat(dir.resolve("results.json")).doesNotExist();
    }
}
