package dev.gyro.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code gyro bench} is registered and refuses what it cannot run with the reason (the scenario itself is tested
 * end to end in gyro-bench, LocalRatioScenarioTest).
 */
class BenchCommandTest {

    @Test
    void unknownScenarioFailsNamingTheKnownOnes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        int exit;
        try {
            System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            exit = Gyro.commandLine().execute("bench", "scale-lan", "--quick");
        } finally {
            System.setOut(saved);
        }
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(exit).isEqualTo(2);
        assertThat(out).startsWith("bench: FAILED: unknown scenario 'scale-lan'").contains("local-ratio");
    }
}
