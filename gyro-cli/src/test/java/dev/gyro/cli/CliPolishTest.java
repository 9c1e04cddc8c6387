package dev.gyro.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What a user types wrong gets one line that helps; what a script reads is clean. */
class CliPolishTest {

    record Run(int exit, String out, String err) {}

    static Run run(String... args) {
        java.io.ByteArrayOutputStream stdout = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream stderr = new java.io.ByteArrayOutputStream();
        java.io.PrintStream savedOut = System.out;
        java.io.PrintStream savedErr = System.err;
        int exit;
        try {
            System.setOut(new java.io.PrintStream(stdout, true, java.nio.charset.StandardCharsets.UTF_8));
            System.setErr(new java.io.PrintStream(stderr, true, java.nio.charset.StandardCharsets.UTF_8));
            exit = Gyro.commandLine().execute(args); // made after the redirection: picocli writes to System.out/err
        } finally {
            System.setOut(savedOut);
            System.setErr(savedErr);
        }
        return new Run(exit, stdout.toString(java.nio.charset.StandardCharsets.UTF_8),
                stderr.toString(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void aMisspeltCommandGetsTheNearestOne() {
        Run r = run("dmeo");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().strip()).isEqualTo("gyro: 'dmeo' is not a command; did you mean 'demo'? ('gyro --help' lists"
                + " the commands)");
        assertThat(run("cluster", "strat").err()).contains("did you mean 'start'?");
        assertThat(run("xyzzy").err()).contains("'xyzzy' is not a command").doesNotContain("did you mean");
    }

    @Test
    void aBadOptionNamesItselfWithoutTheWholeHelp() {
        Run r = run("demo", "--bogus");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().strip()).isEqualTo("gyro demo: Unknown option: '--bogus' ('gyro demo --help' lists the options)");
    }

    @Test
    void helpTextsFormatWithoutWarnings() {
        for (String command : Gyro.commandLine().getSubcommands().keySet()) {
            Run r = run(command, "--help");
            assertThat(r.err()).as(command).doesNotContain("WARN");
            assertThat(r.out()).as(command).contains("Usage: gyro " + command);
        }
    }

    @Test
    void analyzeWritesTheClassificationToStandardOutputWithJsonDash() throws Exception {
        Run r = run("analyze", "../gyro-apps/src/main/java/dev/gyro/apps/store", "--json", "-");
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertThat(json.get("summary").get("total").asInt()).isEqualTo(4);
        assertThat(r.err()).as("the report goes to standard error").contains("Request classification");
        assertThat(new java.io.File("-")).as("no file named -").doesNotExist();
    }
}
