package dev.gyro.agent;

import dev.gyro.agent.fixtures.Amalgamate;
import dev.gyro.agent.fixtures.App;
import dev.gyro.agent.fixtures.Bank;
import dev.gyro.agent.fixtures.BankApp;
import dev.gyro.agent.fixtures.OrderService;
import dev.gyro.app.Classification;
import dev.gyro.app.Kind;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent attached to an application that knows nothing of Gyro, in a JVM of its own started as a user would
 * ({@code java -javaagent:...=classification=FILE -cp ... Main}): each call of a classified method is counted as a
 * request of its transaction, other methods are left alone, and a classification that does not match the classes stops
 * the application before its main, with the reason.
 */
@Tag("processes")
class GyroAgentTest {

    @TempDir
    Path dir;

    /** The agent's jar, as {@code gyro attach} writes it: Gyro's classes are those the test runs with. */
    private Path agentJar() throws IOException {
        return AgentJar.write(dir, System.getProperty("java.class.path"));
    }

    /**
     * The application's class path: its own classes (the fixtures) and its JDBC driver, nothing of Gyro's, as an
     * application that has never heard of Gyro has.
     */
    static String applicationClassPath() {
        List<String> out = new java.util.ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator))
            if (entry.endsWith("test-classes") || entry.endsWith("test-classes/") || entry.contains("sqlite-jdbc"))
                out.add(entry);
        return String.join(java.io.File.pathSeparator, out);
    }

    private record Run(int status, String out, String err) {}

    private Run run(Classification classification) throws Exception {
        return run(classification, "", App.class.getName());
    }

    private Run run(Classification classification, String moreOptions, String... main) throws Exception {
        Path file = dir.resolve("classification.json");
        classification.write(file);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new java.util.ArrayList<>(List.of(java.toString(), "-javaagent:" + agentJar()
                + "=classification=" + file + moreOptions, "-cp", applicationClassPath()));
        command.addAll(List.of(main));
        Process p = new ProcessBuilder(command)
                .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile())
                .start();
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("the application exits").isTrue();
        return new Run(p.exitValue(), Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8),
                Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8));
    }

    private static Classification.Rule rule(String name, Kind kind, List<String> by, Classification.Method method) {
        return new Classification.Rule(name, kind, false, by, "", method);
    }

    private static final Classification.Method AMALGAMATE = new Classification.Method(Amalgamate.class.getName(), "run",
            List.of(new Classification.Parameter("conn", "java.sql.Connection"),
                    new Classification.Parameter("custId0", "long"), new Classification.Parameter("custId1", "long")));

    @Test
    void eachCallOfAClassifiedMethodIsARequestOfItsTransaction() throws Exception {
        Classification c = new Classification(List.of(
                rule("Amalgamate", Kind.LOCAL_OR_GLOBAL, List.of("custId0", "custId1"), AMALGAMATE),
                rule("placeOrder", Kind.LOCAL, List.of("req.customer.id"), new Classification.Method(
                        OrderService.class.getName(), "placeOrder", List.of(new Classification.Parameter("req",
                        OrderService.class.getName() + "$OrderRequest"))))));
        Run r = run(c);
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("refused: a call of " + OrderService.class.getName() + ".placeOrder(")
                .contains("has no partitioning value req.customer.id").contains("app done");
        assertThat(r.err()).contains("gyro agent: attached to 2 transaction method(s)")
                .contains("gyro agent: Amalgamate: 3 call(s)") // run(conn, String) is another method
                .contains("gyro agent: placeOrder: 1 call(s)") // the refused one never began
                .contains("gyro agent: a local call's method passed through, entry to exit, mean of 1: "); // placeOrder
    }

    /**
     * {@code capacity=} without instances: the calls pass through to the application's own database, each holding a slot
     * of one emulated server (docs/decisions/36-attached-benchmark.md); a capacity that is not CxMms stops the
     * application before its main.
     */
    @Test
    void aCapacityWithoutInstancesPassesTheCallsThroughAnEmulatedServer() throws Exception {
        Classification c = new Classification(List.of(
                rule("Amalgamate", Kind.LOCAL_OR_GLOBAL, List.of("custId0", "custId1"), AMALGAMATE)));
        Run r = run(c, ",capacity=2x1ms", App.class.getName());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.err()).contains("gyro agent: attached to 1 transaction method(s); capacity emulation: each database"
                + " instance serves 2 transaction(s) at a time, 1 ms service time each")
                .contains("gyro agent: Amalgamate: 3 call(s)");
        Run wrong = run(c, ",capacity=fast", App.class.getName());
        assertThat(wrong.status()).isEqualTo(2);
        assertThat(wrong.err()).contains("gyro agent: capacity=fast: CxMms, C transactions at a time (at least 1) for M"
                + " ms each, e.g. capacity=2x20ms");
        assertThat(wrong.out()).doesNotContain("app done");
    }

    private static Classification.Method bank(String name, String... parameters) {
        List<Classification.Parameter> ps = new java.util.ArrayList<>();
        for (int i = 0; i < parameters.length; i += 2) ps.add(new Classification.Parameter(parameters[i + 1], parameters[i]));
        return new Classification.Method(Bank.class.getName(), name, ps);
    }

    private static java.util.Map<Long, Long> table(Path db, String sql) throws Exception {
        java.util.Map<Long, Long> rows = new java.util.TreeMap<>();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + db);
             java.sql.Statement st = c.createStatement(); java.sql.ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) rows.put(rs.getLong(1), rs.getLong(2));
        }
        return rows;
    }

    @Test
    void anUnmodifiedApplicationRunsOverThreeInstancesItsConnectionsTakenOver() throws Exception {
        Classification c = new Classification(List.of(
                rule("transfer", Kind.GLOBAL, List.of("from"),
                        bank("transfer", "java.sql.Connection", "c", "long", "from", "long", "to", "long", "amount")),
                rule("visit", Kind.LOCAL, List.of("account"), bank("visit", "java.sql.Connection", "c", "long", "account"))));
        Path instances = dir.resolve("instances"), own = dir.resolve("own");
        Files.createDirectories(own);
        int calls = 15;
        // Audits ask the database as a whole: the visits are local writes, each on its account's instance only.
        Path audits = dir.resolve("audits.json");
        Files.writeString(audits, "[{\"name\": \"money\", \"sql\": \"SELECT SUM(balance) FROM accounts\", \"expect\": \""
                + 100 * BankApp.ACCOUNTS + "\"}, {\"name\": \"visits\", \"sql\": \"SELECT SUM(n) FROM visits\", \"expect\": \""
                + 2 * calls + "\"}, {\"name\": \"visits logged\", \"sql\": \"SELECT SUM(n) * 1000 + COUNT(*) FROM visit_log\","
                + " \"expect\": \"" + (2 * calls * 1000 + BankApp.ACCOUNTS) + "\"}, {\"name\": \"ledger\", \"sql\":"
                + " \"SELECT SUM(amount) + 1000 * COUNT(*) FROM ledger\", \"expect\": \"" + 1000 * 4 * calls + "\"},"
                + " {\"name\": \"a wrong expectation\", \"sql\": \"SELECT COUNT(*) FROM accounts\", \"expect\": \"1\"}]");
        Run r = run(c, ",dir=" + instances + ",audits=" + audits, BankApp.class.getName(),
                "jdbc:sqlite:" + own.resolve("bank.db"), "" + calls);
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("app done").contains("Gyro's classes: not visible");
        assertThat(r.err()).contains("gyro agent: 3 instances serve from " + instances)
                .contains("gyro agent: transfer: " + 2 * calls + " call(s)")
                .contains("gyro agent: visit: " + 2 * calls + " call(s)");
        java.util.Map<Long, Long> balances = null;
        java.util.Map<Long, Long> visits = new java.util.TreeMap<>();
        java.util.Set<Integer> visitedAt = new java.util.HashSet<>();
        for (int i = 0; i < 3; i++) {
            Path db = dev.gyro.cluster.LocalCluster.databaseFile(instances, i);
            java.util.Map<Long, Long> b = table(db, "SELECT id, balance FROM accounts");
            if (balances == null) balances = b;
            assertThat(b).as("instance %d: every transfer applied", i).isEqualTo(balances);
            int at = i;
            table(db, "SELECT account, n FROM visits").forEach((a, n) -> {
                visits.merge(a, n, Long::sum);
                if (n > 0) visitedAt.add(at);
            });
        }
        assertThat(balances).hasSize(BankApp.ACCOUNTS);
        assertThat(balances.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(100L * BankApp.ACCOUNTS);
        assertThat(balances).as("the transfers moved money").containsValue(93L);
        for (int i = 0; i < 3; i++) {
            Path db = dev.gyro.cluster.LocalCluster.databaseFile(instances, i);
            assertThat(table(db, "SELECT 0, total FROM moved")).as("instance %d: one row, every transfer's amount", i)
                    .containsExactly(java.util.Map.entry(0L, 7L * 2 * calls));
            assertThat(table(db, "SELECT 0, COUNT(*) FROM ledger")).as("instance %d: two rows per transfer", i)
                    .containsExactly(java.util.Map.entry(0L, 4L * calls));
        }
        assertThat(visits.values().stream().mapToLong(Long::longValue).sum()).as("each visit once").isEqualTo(2L * calls);
        assertThat(visitedAt).as("visits ran at their accounts' instances").hasSizeGreaterThan(1);
        assertThat(own.resolve("bank.db")).as("the application's own database is never opened").doesNotExist();
        assertThat(Files.readAllLines(instances.resolve(GyroAgent.OUTCOME))).containsExactly(
                "FAILED: audit a wrong expectation is " + BankApp.ACCOUNTS + " at exit, not 1 [SELECT COUNT(*) FROM accounts]",
                "audit money: " + 100 * BankApp.ACCOUNTS + " before the first call, " + 100 * BankApp.ACCOUNTS
                        + " at exit (expected " + 100 * BankApp.ACCOUNTS + ")",
                "audit visits: 0 before the first call, " + 2 * calls + " at exit (expected " + 2 * calls + ")",
                "audit visits logged: " + BankApp.ACCOUNTS + " before the first call, " + (2 * calls * 1000
                        + BankApp.ACCOUNTS) + " at exit (expected " + (2 * calls * 1000 + BankApp.ACCOUNTS) + ")",
                "audit ledger: NULL before the first call, " + 1000 * 4 * calls + " at exit (expected " + 1000 * 4 * calls + ")",
                "audit a wrong expectation: " + BankApp.ACCOUNTS + " before the first call, " + BankApp.ACCOUNTS
                        + " at exit (expected 1)");
        assertThat(r.err()).contains("gyro agent: visit: " + 2 * calls + " call(s): " + 2 * calls
                + " committed as local requests, 0 as global requests, 0 not committed");
    }

    /**
     * An application whose data-access object prepares its statements once, before Gyro serves, and keeps them in
     * fields: each call runs them in its own request, on its counter's instance; a write outside any call is refused.
     */
    @Test
    void statementsKeptInFieldsRunInEachCallsRequestAndAWriteOutsideCallsIsRefused() throws Exception {
        Classification c = new Classification(List.of(rule("bump", Kind.LOCAL, List.of("id"),
                new Classification.Method(dev.gyro.agent.fixtures.Counters.class.getName(), "bump",
                        List.of(new Classification.Parameter("id", "long")))),
                new Classification.Rule("peek", Kind.LOCAL, true, List.of("id"), "", new Classification.Method(
                        dev.gyro.agent.fixtures.Counters.class.getName(), "peek",
                        List.of(new Classification.Parameter("id", "long"))))));
        Path instances = dir.resolve("instances");
        Path audits = dir.resolve("audits.json");
        int rounds = 5;
        Files.writeString(audits, "[{\"name\": \"bumps\", \"sql\": \"SELECT SUM(n) FROM counters\", \"expect\": \""
                + 12 * rounds + "\"}]");
        Run r = run(c, ",dir=" + instances + ",audits=" + audits, dev.gyro.agent.fixtures.Counters.class.getName(),
                "jdbc:sqlite:" + dir.resolve("own.db"), "" + rounds);
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("last count read: " + rounds).contains("app done")
                .contains("second call refused: gyro: bump began in the transaction of peek, whose method returned")
                .contains("outside write refused: gyro: " + dev.gyro.agent.fixtures.Counters.class.getName() + ".main may"
                        + " write outside any transaction method");
        assertThat(r.err()).contains("gyro agent: bump: " + 12 * rounds + " call(s): " + 12 * rounds
                + " committed as local requests");
        assertThat(Files.readAllLines(instances.resolve(GyroAgent.OUTCOME)).get(0)).startsWith("OK");
        java.util.Set<Integer> bumpedAt = new java.util.HashSet<>();
        for (int i = 0; i < 3; i++) {
            int at = i;
            table(dev.gyro.cluster.LocalCluster.databaseFile(instances, i), "SELECT id, n FROM counters")
                    .forEach((id, n) -> {
                        assertThat(n).as("counter %d at instance %d: all its bumps or none", id, at).isIn(0L, (long) rounds);
                        if (n > 0) bumpedAt.add(at);
                    });
        }
        assertThat(bumpedAt).as("each counter bumped at its own instance").hasSizeGreaterThan(1);
    }

    /**
     * A driver whose {@code connect} returns its own connection class (MariaDB's does) is reached through the bridge
     * method the compiler made for {@code Driver.connect}: Gyro takes the connection over there.
     */
    @Test
    void aDriverThatNarrowsConnectsReturnTypeIsTakenOverToo() throws Exception {
        Classification c = new Classification(List.of(rule("noop", Kind.LOCAL, List.of("id"),
                new Classification.Method(dev.gyro.agent.fixtures.NarrowDriverApp.class.getName(), "noop",
                        List.of(new Classification.Parameter("id", "long"))))));
        Path instances = dir.resolve("instances");
        Run r = run(c, ",dir=" + instances, dev.gyro.agent.fixtures.NarrowDriverApp.class.getName());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("read through Gyro: 7").contains("app done");
        for (int i = 0; i < 3; i++)
            assertThat(table(dev.gyro.cluster.LocalCluster.databaseFile(instances, i), "SELECT id, id FROM t"))
                    .as("instance %d", i).containsOnlyKeys(7L);
    }

    /**
     * An application that takes its connections from SQLite's own {@code DataSource} (which opens them without the
     * driver's {@code connect}), one per method, closed before the method returns: its connections are Gyro's all the
     * same (its own database is never created), an auto-commit write closed in the method stands, a classified method
     * that does no database work ends its call as it returns, and the data source's method typed with the driver's own
     * connection class is refused with a message saying how to call it.
     */
    @Test
    void connectionsFromTheDriversOwnDataSourceAreTakenOverToo() throws Exception {
        String app = dev.gyro.agent.fixtures.StockApp.class.getName();
        Classification.Method reserve = new Classification.Method(app, "reserve",
                List.of(new Classification.Parameter("r", app + "$Reserve")));
        Classification c = new Classification(List.of(
                rule("reserve", Kind.LOCAL, List.of("r.warehouse"), reserve),
                rule("restock", Kind.LOCAL, List.of("warehouse"), new Classification.Method(app, "restock",
                        List.of(new Classification.Parameter("warehouse", "long")))),
                rule("label", Kind.LOCAL, List.of("warehouse"), new Classification.Method(app, "label",
                        List.of(new Classification.Parameter("warehouse", "long")))),
                new Classification.Rule("total", Kind.LOCAL, true, List.of("warehouse"), "", new Classification.Method(
                        app, "total", List.of(new Classification.Parameter("warehouse", "long"))))));
        Path instances = dir.resolve("instances");
        int rounds = 5, w = dev.gyro.agent.fixtures.StockApp.WAREHOUSES;
        Run r = run(c, ",dir=" + instances, app, "jdbc:sqlite:" + dir.resolve("own.db"), "" + rounds);
        assertThat(r.status()).as(r.err()).isZero();
        int stock = w * dev.gyro.agent.fixtures.StockApp.SKUS * dev.gyro.agent.fixtures.StockApp.STOCK;
        assertThat(r.out()).contains("reserved " + rounds * w).contains("stock left " + (stock - rounds * w))
                .contains("narrow connection refused: gyro: " + app + ".main asks org.sqlite.SQLiteDataSource for a"
                        + " connection of the driver's own type").contains("app done");
        assertThat(r.err()).contains("gyro agent: reserve: " + rounds * w + " call(s): " + rounds * w
                        + " committed as local requests")
                .contains("gyro agent: restock: " + rounds * w + " call(s): " + rounds * w + " committed as local requests")
                .contains("gyro agent: label: " + rounds * w + " call(s): " + rounds * w + " committed as local requests")
                .contains("gyro agent: keys the database generates (notes.id) come from each instance's own generator");
        assertThat(dir.resolve("own.db")).as("the application's own database is never opened").doesNotExist();
        java.util.Map<Long, Long> restocks = new java.util.TreeMap<>(), left = new java.util.TreeMap<>();
        for (int i = 0; i < 3; i++) {
            Path db = dev.gyro.cluster.LocalCluster.databaseFile(instances, i);
            table(db, "SELECT warehouse, n FROM restocks").forEach((k, n) -> restocks.merge(k, n, Long::sum));
            table(db, "SELECT warehouse, SUM(qty) FROM stock GROUP BY warehouse").forEach((k, q) ->
                    left.merge(k, (long) dev.gyro.agent.fixtures.StockApp.SKUS * dev.gyro.agent.fixtures.StockApp.STOCK
                            - q, Long::sum));
        }
        assertThat(restocks).as("each auto-commit write once, at its warehouse's instance").hasSize(w)
                .allSatisfy((k, n) -> assertThat(n).isEqualTo(rounds));
        assertThat(left).as("each reservation once, at its warehouse's instance")
                .allSatisfy((k, n) -> assertThat(n).isIn(0L, (long) rounds));
        assertThat(left.values().stream().mapToLong(Long::longValue).sum()).isEqualTo((long) rounds * w);
        assertThat(Files.readAllLines(instances.resolve(GyroAgent.OUTCOME)).get(0)).startsWith("OK");
    }

    /**
     * A method that rolls back and tries again before it returns runs its second attempt as a new request of the same
     * call (each bump applied once, at its counter's instance); one that commits and then runs more SQL is refused at
     * that SQL, naming it, its first commit standing.
     */
    @Test
    void aRetryInsideTheMethodIsANewRequestAndASecondCommitIsRefused() throws Exception {
        String app = dev.gyro.agent.fixtures.RetryApp.class.getName();
        Classification c = new Classification(List.of(
                rule("bumpWithRetry", Kind.LOCAL, List.of("id"), new Classification.Method(app, "bumpWithRetry",
                        List.of(new Classification.Parameter("id", "long")))),
                rule("commitTwice", Kind.LOCAL, List.of("id"), new Classification.Method(app, "commitTwice",
                        List.of(new Classification.Parameter("id", "long"))))));
        Path instances = dir.resolve("instances");
        int rounds = 3, n = dev.gyro.agent.fixtures.RetryApp.COUNTERS;
        Run r = run(c, ",dir=" + instances, app, "jdbc:sqlite:" + dir.resolve("own.db"), "" + rounds);
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("attempts " + 2 * rounds * n)
                .contains("second commit refused: gyro: commitTwice committed its transaction and runs more SQL before"
                        + " its method returns").contains("app done");
        assertThat(r.err()).contains("gyro agent: bumpWithRetry: " + rounds * n + " call(s): " + rounds * n
                + " committed as local requests, 0 as global requests, " + rounds * n + " not committed")
                .contains("gyro agent: " + app + ".main reads outside any transaction method while Gyro serves (SELECT"
                        + " SUM(n) FROM counters): answered from instance 0's database");
        java.util.Map<Long, Long> bumps = new java.util.TreeMap<>(), twice = new java.util.TreeMap<>();
        for (int i = 0; i < 3; i++) {
            Path db = dev.gyro.cluster.LocalCluster.databaseFile(instances, i);
            table(db, "SELECT id, n FROM counters").forEach((k, v) -> bumps.merge(k, v, Long::sum));
            table(db, "SELECT id, twice FROM counters").forEach((k, v) -> twice.merge(k, v, Long::sum));
        }
        assertThat(bumps).as("each call's bump once, though its first attempt ran too").hasSize(n)
                .allSatisfy((k, v) -> assertThat(v).isEqualTo(rounds));
        assertThat(twice).as("the first commit stands, the second write never ran").containsEntry(1L, 1L)
                .containsEntry(2L, 0L);
        assertThat(Files.readAllLines(instances.resolve(GyroAgent.OUTCOME)).get(0)).startsWith("OK");
    }

    @Test
    void aClassificationThatDoesNotMatchStopsTheApplicationBeforeItsMain() throws Exception {
        Classification c = new Classification(List.of(rule("Amalgamate", Kind.LOCAL, List.of("custId"),
                new Classification.Method(Amalgamate.class.getName(), "run",
                        List.of(new Classification.Parameter("custId", "int"))))));
        Run r = run(c);
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("gyro agent: the classification does not match the application's classes")
                .contains("transaction Amalgamate: " + Amalgamate.class.getName() + " has no method run(int)")
                .contains("not attached; the application does not start");
        assertThat(r.out()).doesNotContain("app done");
    }
}
