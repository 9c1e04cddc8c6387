package dev.gyro.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code --log-level} on the gyro command and on any subcommand: Gyro's loggers' level, or a clear refusal. */
class LogLevelTest {

    @AfterEach
    void reset() {
        Logging.level("info"); // the default, so later tests' background clusters get nothing else passed on
        System.clearProperty("org.slf4j.simpleLogger.log.dev.gyro");
    }

    record Run(int exit, String err) {}

    static Run gyro(String... args) {
        CommandLine cl = Gyro.commandLine();
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter(), true));
        return new Run(cl.execute(args), err.toString());
    }

    @Test
    void anUnknownLevelIsRefusedNamingTheLevelsThereAre() {
        Run r = gyro("--log-level", "loud", "status", "--ring", "127.0.0.1:1", "--insecure");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("unknown log level 'loud'").contains("error, warn, info, debug, trace, off");
    }

    @Test
    void aLevelGivenOnASubcommandSetsGyrosLoggersAndIsPassedOn() {
        Run r = gyro("status", "--log-level", "DEBUG", "--ring", "127.0.0.1:1", "--insecure");
        assertThat(r.exit()).as(r.err()).isEqualTo(StatusCommand.SOME_UNREACHABLE); // nothing listens there
        assertThat(System.getProperty("org.slf4j.simpleLogger.log.dev.gyro")).isEqualTo("debug");
        assertThat(Logging.level()).isEqualTo("debug");
    }
}
