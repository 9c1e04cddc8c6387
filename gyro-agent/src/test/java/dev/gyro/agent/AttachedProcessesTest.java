package dev.gyro.agent;

import dev.gyro.agent.fixtures.Refused;
import dev.gyro.agent.fixtures.Wallets;
import dev.gyro.agent.fixtures.WalletsApp;
import dev.gyro.app.Classification;
import dev.gyro.app.Kind;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several processes of one application, each beside its instance of a ring, in JVMs of their own started with the same
 * command line (docs/decisions/38-attached-processes.md): a call another instance owns runs there and its result or
 * exception comes back; a global call runs where it arrived and reaches every instance; what cannot cross processes is
 * refused, naming the method.
 */
@Tag("processes")
class AttachedProcessesTest {

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS) // a failed run's outputs stay for a look
    Path dir;

    private static Classification.Rule rule(String name, Kind kind, List<String> by, Class<?> owner, String method,
                                            String... parameters) {
        List<Classification.Parameter> ps = new ArrayList<>();
        for (int i = 0; i < parameters.length; i += 2)
            ps.add(new Classification.Parameter(parameters[i + 1], parameters[i]));
        return new Classification.Rule(name, kind, false, by, "", new Classification.Method(owner.getName(), method, ps));
    }

    private static final Classification WALLETS = new Classification(List.of(
            rule("deposit", Kind.LOCAL, List.of("d.wallet"), Wallets.class, "deposit", "java.sql.Connection", "c",
                    Wallets.Deposit.class.getName(), "d"),
            rule("withdrawTooMuch", Kind.LOCAL, List.of("wallet"), Wallets.class, "withdrawTooMuch",
                    "java.sql.Connection", "c", "long", "wallet"),
            rule("tag", Kind.LOCAL, List.of("t.wallet"), Wallets.class, "tag", "java.sql.Connection", "c",
                    Wallets.Tagged.class.getName(), "t"),
            rule("collectFee", Kind.GLOBAL, List.of(), Wallets.class, "collectFee", "java.sql.Connection", "c",
                    "long", "amount")));

    private Path agentJar;

    private Process start(Path classification, String options, Path out, Path err, String... main) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        if (agentJar == null) agentJar = AgentJar.write(dir, System.getProperty("java.class.path")); // one for all
        List<String> command = new ArrayList<>(List.of(java.toString(), "-javaagent:" + agentJar
                + "=classification=" + classification + options, "-cp",
                GyroAgentTest.applicationClassPath()));
        command.addAll(List.of(main));
        return new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    }

    private static Map<Long, Long> rows(Path db, String sql) throws Exception {
        Map<Long, Long> rows = new TreeMap<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) rows.put(rs.getLong(1), rs.getLong(2));
        }
        return rows;
    }

    @Test
    void threeProcessesEachBesideItsInstanceForwardWhatAnotherOwns() throws Exception {
        int n = 3;
        Path classification = dir.resolve("classification.json");
        WALLETS.write(classification);
        Path instances = dir.resolve("instances");
        ProcessRing ring = ProcessRing.create(dir, n, "wallets");
        List<Process> processes = new ArrayList<>();
        for (int p = 0; p < n; p++)
            processes.add(start(classification, ",dir=" + instances + ring.options(p), dir.resolve("out-" + p + ".txt"),
                    dir.resolve("err-" + p + ".txt"), WalletsApp.class.getName(),
                    "jdbc:sqlite:" + dir.resolve("own-" + p + ".db")));
        int forwarded = 0;
        try {
            for (Process p : processes) assertThat(p.waitFor(3, TimeUnit.MINUTES)).as("%s exits", p).isTrue();
        } finally {
            processes.forEach(Process::destroyForcibly);
        }
        for (int p = 0; p < n; p++) {
            String out = Files.readString(dir.resolve("out-" + p + ".txt"), StandardCharsets.UTF_8);
            String err = Files.readString(dir.resolve("err-" + p + ".txt"), StandardCharsets.UTF_8);
            assertThat(processes.get(p).exitValue()).as(out + err).isZero();
            assertThat(out).contains("app done", "withdrawals refused with 45000: " + Wallets.WALLETS,
                    "tags not sent: " + (Wallets.WALLETS - localWallets(out)))
                    .contains("refused elsewhere: java.sql.SQLException 45000 wallet ")
                    .contains("tag refused: gyro: a call of " + Wallets.class.getName() + ".tag(")
                    .contains("its arguments do not serialize: java.io.NotSerializableException: java.lang.Object");
            forwarded += localWallets(out) < Wallets.WALLETS ? 1 : 0;
            assertThat(err).contains("gyro agent: instance " + p + " of 3 serves on " + ring.addresses().get(p))
                    .contains("gyro agent: deposit: " + 2 * Wallets.WALLETS + " call(s): " + Wallets.WALLETS
                            + " committed as local requests (")
                    .contains("gyro agent: collectFee: 1 call(s): 0 committed as local requests, 1 as global requests")
                    .containsPattern("gyro agent: [1-9][0-9]* call\\(s\\) of other processes committed here");
        }
        assertThat(forwarded).as("every process had deposits answered by other processes' instances").isEqualTo(n);
        assertThat(Files.readAllLines(instances.resolve(GyroAgent.OUTCOME)).get(0))
                .isEqualTo("OK: every instance applied global requests 1 to 3 (3 processes, each beside its instance)");
        Map<Long, Long> balances = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            Path db = dev.gyro.cluster.LocalCluster.databaseFile(instances, i);
            assertThat(rows(db, "SELECT id, collected FROM fees")).as("instance %d: every process's fee, a replicated row",
                    i).containsExactly(Map.entry(0L, 15L));
            rows(db, "SELECT id, balance FROM wallets").forEach((w, b) -> {
                if (b != 100) assertThat(balances.put(w, b)).as("wallet %d written at one instance only", w).isNull();
            });
        }
        assertThat(balances).as("each wallet at its owner: 100, one deposit of 1 from each process, nothing rolled back")
                .hasSize(Wallets.WALLETS).allSatisfy((w, b) -> assertThat(b).isEqualTo(100L + n));
    }

    /** Wallets whose deposit ran on the process's own thread (its own instance's). */
    private static int localWallets(String out) {
        for (String line : out.lines().toList())
            if (line.startsWith("deposits answered by other processes' instances: "))
                return Wallets.WALLETS - Integer.parseInt(line.substring(line.lastIndexOf(' ') + 1));
        return -1;
    }

    /** A start-up that wrote other data at one instance than at the others: every call is refused, and the exit says so. */
    @Test
    void startUpsThatLeaveTheInstancesWithOtherDataAreRefused() throws Exception {
        Path classification = dir.resolve("classification.json");
        WALLETS.write(classification);
        Path instances = dir.resolve("instances");
        ProcessRing ring = ProcessRing.create(dir, 2, "skewed");
        List<Process> processes = new ArrayList<>();
        for (int p = 0; p < 2; p++)
            processes.add(start(classification, ",dir=" + instances + ring.options(p), dir.resolve("out-" + p + ".txt"),
                    dir.resolve("err-" + p + ".txt"), WalletsApp.class.getName(),
                    "jdbc:sqlite:" + dir.resolve("own-" + p + ".db"), p == 1 ? "skew" : "even"));
        try {
            for (Process p : processes) assertThat(p.waitFor(3, TimeUnit.MINUTES)).as("%s exits", p).isTrue();
        } finally {
            processes.forEach(Process::destroyForcibly);
        }
        for (int p = 0; p < 2; p++) {
            String err = Files.readString(dir.resolve("err-" + p + ".txt"), StandardCharsets.UTF_8);
            assertThat(processes.get(p).exitValue()).as(err).isEqualTo(1);
            assertThat(err).contains("java.sql.SQLException: gyro: deposit is refused: the application's start-up left"
                    + " instance " + (1 - p) + " with other data than instance " + p + " (here wallets: " + (12 + p)
                    + " rows, ");
        }
        assertThat(Files.readAllLines(instances.resolve(GyroAgent.OUTCOME)).get(0)).startsWith("FAILED: the application's"
                + " start-up left instance 1 with other data than instance 0 (here wallets: 12 rows, ")
                .contains("there wallets: 13 rows, ");
    }

    @Test
    void whatCannotCrossProcessesIsRefusedNamingTheMethod() throws Exception {
        Classification c = new Classification(List.of(
                rule("serve", Kind.LOCAL, List.of("account"), Refused.class, "serve", "java.sql.Connection", "c",
                        "long", "account"),
                rule("note", Kind.LOCAL, List.of("h.id"), Refused.class, "note", "java.sql.Connection", "c",
                        Refused.Holder.class.getName(), "h"),
                rule("find", Kind.LOCAL, List.of("account"), Refused.class, "find", "java.sql.Connection", "c",
                        "long", "account")));
        Path classification = dir.resolve("refused.json");
        c.write(classification);
        ProcessRing ring = ProcessRing.create(dir, 2, "refused");
        Process p = start(classification, ",dir=" + dir.resolve("instances") + ring.options(0), dir.resolve("out.txt"),
                dir.resolve("err.txt"), WalletsApp.class.getName(), "jdbc:sqlite:" + dir.resolve("own.db"));
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
        String err = Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(err).isEqualTo(2);
        String holder = Refused.Holder.class.getName(), owner = Refused.class.getName();
        assertThat(err).contains("gyro agent: the classification's methods cannot run in several processes, each beside"
                        + " its instance:")
                .contains("transaction serve (" + owner + ".serve): an instance method whose class has no no-argument"
                        + " constructor, so the instance that owns a call cannot make the object to call it on")
                .contains("transaction note (" + owner + ".note): parameter 2 of type " + holder + " is not serializable,"
                        + " so a call cannot be sent to the instance that owns it")
                .contains("transaction note (" + owner + ".note): partitioning value h.id passes through a value of type "
                        + holder + ", which is not serializable")
                .contains("transaction find (" + owner + ".find): its return type " + holder + " is not serializable, so"
                        + " its result cannot come back from the instance that owns it")
                .contains("not attached; the application does not start");
        assertThat(Files.readString(dir.resolve("out.txt"))).doesNotContain("app done");
    }
}
