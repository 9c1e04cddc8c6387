package dev.gyro.cli;

import dev.gyro.agent.fixtures.Bank;
import dev.gyro.agent.fixtures.BankApp;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code gyro attach} as a user runs it: an application that knows nothing of Gyro (a bank on plain JDBC, with its own
 * database URL) run by its own command line over three instances; the last line says whether the instances agree.
 */
@Tag("processes")
class AttachCommandTest {

    @TempDir
    Path dir;

    private static final String CLASSIFICATION = """
            {"transactions": [
             {"name": "transfer", "class": "global", "partitionBy": ["from"], "method": {"class": "%1$s",
              "name": "transfer", "parameters": [{"name": "c", "type": "java.sql.Connection"},
              {"name": "from", "type": "long"}, {"name": "to", "type": "long"}, {"name": "amount", "type": "long"}]}},
             {"name": "visit", "class": "local", "partitionBy": ["account"], "method": {"class": "%1$s",
              "name": "visit", "parameters": [{"name": "c", "type": "java.sql.Connection"},
              {"name": "account", "type": "long"}]}},
             {"name": "balance", "class": "local", "readOnly": true, "partitionBy": ["account"], "method": {"class":
              "%1$s", "name": "balance", "parameters": [{"name": "c", "type": "java.sql.Connection"},
              {"name": "account", "type": "long"}]}}]}
            """;

    private record Run(int status, String out) {}

    private Run attach(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("attach", "--config", dir.resolve("attach.yaml").toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(GyroProcesses.command(cmd)).redirectErrorStream(true)
                .redirectOutput(dir.resolve("out.txt").toFile()).start();
        assertThat(p.waitFor(3, TimeUnit.MINUTES)).as("gyro attach exits").isTrue();
        return new Run(p.exitValue(), Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8));
    }

    @Test
    void anUnmodifiedApplicationRunsAttachedAndTheInstancesAgree() throws Exception {
        Files.writeString(dir.resolve("classification.json"), CLASSIFICATION.formatted(Bank.class.getName()));
        Files.writeString(dir.resolve("attach.yaml"), "backend: sqlite\ninstances: 3\nclassification: classification.json\n"
                + "check: true\n");
        Path own = Files.createDirectories(dir.resolve("own"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));

        Run agent = attach("--agent");
        assertThat(agent.status()).isZero();
        assertThat(agent.out().strip()).startsWith("-javaagent:" + dir.resolve("gyro-attach").resolve("gyro-agent.jar"))
                .contains("classification=" + dir.resolve("classification.json"));

        Run r = attach("--", java, "-cp", cp, BankApp.class.getName(), "jdbc:sqlite:" + own.resolve("bank.db"), "20");
        assertThat(r.status()).as(r.out()).isZero();
        assertThat(r.out()).contains("app done", "gyro agent: transfer: 40 call(s)", "gyro agent: visit: 40 call(s)");
        assertThat(r.out().strip().lines().reduce((a, b) -> b).orElse("")).isEqualTo("attach: OK");
        assertThat(r.out()).contains("gyro attach: every instance applied global requests 1 to 40; the accesses of 120"
                + " requests checked: none read from a local request of another partition (Definition 1)");

        Run again = attach("--", java, "-cp", cp, BankApp.class.getName(), "jdbc:sqlite:" + own.resolve("bank.db"), "1");
        assertThat(again.status()).isEqualTo(2);
        assertThat(again.out()).contains("holds the instances of an earlier run");
    }

    private static final String WALLETS = """
            {"transactions": [
             {"name": "deposit", "class": "local", "partitionBy": ["d.wallet"], "method": {"class": "%1$s",
              "name": "deposit", "parameters": [{"name": "c", "type": "java.sql.Connection"},
              {"name": "d", "type": "%1$s$Deposit"}]}},
             {"name": "withdrawTooMuch", "class": "local", "partitionBy": ["wallet"], "method": {"class": "%1$s",
              "name": "withdrawTooMuch", "parameters": [{"name": "c", "type": "java.sql.Connection"},
              {"name": "wallet", "type": "long"}]}},
             {"name": "tag", "class": "local", "partitionBy": ["t.wallet"], "method": {"class": "%1$s",
              "name": "tag", "parameters": [{"name": "c", "type": "java.sql.Connection"},
              {"name": "t", "type": "%1$s$Tagged"}]}},
             {"name": "collectFee", "class": "global", "partitionBy": [], "method": {"class": "%1$s",
              "name": "collectFee", "parameters": [{"name": "c", "type": "java.sql.Connection"},
              {"name": "amount", "type": "long"}]}}]}
            """;

    /**
     * {@code --processes 2}: two processes of the same command line, each beside its own instance; deposits another
     * instance owns are answered there, and position 0 says whether the ring agrees.
     */
    @Test
    void severalProcessesOfTheCommandEachBesideItsInstance() throws Exception {
        // the agent's lines here; the application's run in several processes on SQLite is gyro-agent's
        // AttachedProcessesTest, on PostgreSQL below (on request): the suite's time bound
        agentLines("sqlite");

        Files.writeString(dir.resolve("attach.yaml"), "classification: classification.json\ncheck: true\n");
        Run check = attach("--processes", "2", "--agent");
        assertThat(check.status()).isEqualTo(2);
        assertThat(check.out()).contains("gyro attach: check and audits are not built for several processes");
    }

    /**
     * The same on PostgreSQL: each process's instance on a throwaway server of its own. On request
     * ({@code -Dgyro.test.long=true}, docs/testing.md): the suite's time bound; gyro-agent's AttachedProcessesTest runs
     * three processes of an application on SQLite in the suite.
     */
    @Test
    @org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "gyro.test.long", matches = "true",
            disabledReason = "on request: -Dgyro.test.long=true (docs/testing.md): the suite's time bound")
    void severalProcessesOnPostgreSql() throws Exception {
        ClusterCommandTest.require(dev.gyro.cluster.Backend.POSTGRES);
        // JUnit's folder is rwx------: the servers run as the postgres user when the tests run as root
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        runsInSeveralProcesses("postgres", "jdbc:postgresql://127.0.0.1:1/never_reached?user=app");
    }

    private void runsInSeveralProcesses(String backend, String url) throws Exception {
        agentLines(backend);

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Run r = attach("--processes", "2", "--", java, "-cp", cp, dev.gyro.agent.fixtures.WalletsApp.class.getName(), url);
        assertThat(r.status()).as(r.out()).isZero();
        assertThat(r.out()).contains("[0] app done", "[1] app done", "[0] withdrawals refused with 45000: 12",
                "[1] withdrawals refused with 45000: 12", "at other processes' instances)",
                "gyro attach: every instance applied global requests 1 to 2 (2 processes, each beside its instance)");
        assertThat(r.out().strip().lines().reduce((a, b) -> b).orElse("")).isEqualTo("attach: OK");
    }

    /** {@code gyro attach --processes 2 --agent}: one agent line per process, each naming the ring and its position. */
    private void agentLines(String backend) throws Exception {
        Files.writeString(dir.resolve("classification.json"), WALLETS.formatted(
                dev.gyro.agent.fixtures.Wallets.class.getName()));
        Files.writeString(dir.resolve("attach.yaml"), "backend: " + backend + "\nclassification: classification.json\n");
        Run agent = attach("--processes", "2", "--agent");
        assertThat(agent.status()).as(agent.out()).isZero();
        assertThat(agent.out().strip().lines()).hasSize(2).allSatisfy(line -> assertThat(line).startsWith("-javaagent:")
                .contains(",ring=127.0.0.1:").contains(",tls=" + dir.resolve("gyro-attach").resolve("tls")));
        assertThat(agent.out()).contains(",position=0,", ",position=1,");
    }

    @Test
    void aClassificationThatIsNotSoundIsCaughtByTheCheck() throws Exception {
        // transfer classified local by its first account: it writes the second account at its own instance only, and
        // a balance read of that account runs at the account's own instance, which never saw the write
        Files.writeString(dir.resolve("classification.json"), CLASSIFICATION.formatted(Bank.class.getName())
                .replace("\"name\": \"transfer\", \"class\": \"global\"", "\"name\": \"transfer\", \"class\": \"local\""));
        Files.writeString(dir.resolve("attach.yaml"), "classification: classification.json\ncheck: true\n");
        Path own = Files.createDirectories(dir.resolve("own"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Run r = attach("--", java, "-cp", cp, BankApp.class.getName(), "jdbc:sqlite:" + own.resolve("bank.db"), "20");
        assertThat(r.status()).as(r.out()).isEqualTo(1);
        assertThat(r.out().strip().lines().reduce((a, b) -> b).orElse(""))
                .startsWith("attach: FAILED: ").contains("read(s) from a local request of another partition (Definition 1)");
    }

    @Test
    void aFailingApplicationOrAWrongFileSaysSo() throws Exception {
        Files.writeString(dir.resolve("attach.yaml"), "backend: oracle\nclassification: none.json\n");
        Run wrong = attach("--", "java", "-version");
        assertThat(wrong.status()).isEqualTo(2);
        assertThat(wrong.out()).contains("backend: unknown backend 'oracle' (known: sqlite, postgres, mariadb)");

        Files.writeString(dir.resolve("classification.json"), CLASSIFICATION.formatted(Bank.class.getName()));
        Files.writeString(dir.resolve("attach.yaml"), "classification: classification.json\ncapacity: fast\n");
        Run capacity = attach("--agent");
        assertThat(capacity.status()).isEqualTo(2);
        assertThat(capacity.out()).contains("capacity: CxMms (C transactions at a time, M ms each, e.g. 2x20ms), not fast");
        Files.writeString(dir.resolve("attach.yaml"), "classification: classification.json\ncapacity: 2x20ms\n");
        assertThat(attach("--agent").out()).contains(",capacity=2x20ms");

        Files.writeString(dir.resolve("attach.yaml"), "classification: classification.json\ninstances: 2\n");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Run failing = attach("--", java, "-cp", System.getProperty("surefire.test.class.path",
                System.getProperty("java.class.path")), "no.such.Main");
        assertThat(failing.status()).isEqualTo(1);
        assertThat(failing.out().strip()).endsWith("attach: FAILED: the command exited with status 1");
    }
}
