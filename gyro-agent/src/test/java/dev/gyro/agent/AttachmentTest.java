package dev.gyro.agent;

import dev.gyro.agent.fixtures.Bank;
import dev.gyro.app.Classification;
import dev.gyro.app.Kind;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.wire.Reply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calls of an application's own methods run as Gyro requests over three SQLite instances, the application's thread
 * doing the work on the connection Gyro hands it and committing itself (docs/decisions/34-attaching.md): a local call
 * runs at its account's instance only; a global call waits for the token and its update reaches every instance; a call
 * the application rolls back leaves nothing anywhere.
 */
class AttachmentTest {

    private static final int ACCOUNTS = 12;

    @TempDir
    Path dir;

    private static Classification.Method method(String name, String... parameters) {
        List<Classification.Parameter> ps = new ArrayList<>();
        for (int i = 0; i < parameters.length; i += 2) ps.add(new Classification.Parameter(parameters[i + 1], parameters[i]));
        return new Classification.Method(Bank.class.getName(), name, ps);
    }

    private static Map<Long, Long> table(Connection c, String sql) throws Exception {
        Map<Long, Long> rows = new TreeMap<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) rows.put(rs.getLong(1), rs.getLong(2));
        }
        return rows;
    }

    @Test
    void callsRunAsRequestsOnTheApplicationsThreadAndGlobalsReachEveryInstance() throws Exception {
        Classification c = new Classification(List.of(
                new Classification.Rule("transfer", Kind.GLOBAL, false, List.of("from"), "",
                        method("transfer", "java.sql.Connection", "c", "long", "from", "long", "to", "long", "amount")),
                new Classification.Rule("visit", Kind.LOCAL, false, List.of("account"), "",
                        method("visit", "java.sql.Connection", "c", "long", "account"))));
        List<AttachedMethod> methods = AttachedMethods.resolve(c, getClass().getClassLoader());
        AttachedMethod transfer = methods.get(0), visit = methods.get(1);
        Bank bank = new Bank();
        try (LocalCluster cluster = LocalCluster.create(dir, new AttachedApplication("bank", methods), 3, 1, 1, n -> {})) {
            for (int i = 0; i < 3; i++)
                try (Connection db = cluster.connect(i)) { // the application loads every instance (as gyro load does)
                    db.setAutoCommit(false);
                    Bank.createSchema(db, ACCOUNTS);
                    db.commit();
                }
            cluster.startAll();
            ExecutorService app = Executors.newFixedThreadPool(4);
            try (Attachment gyro = new Attachment(IntStream.range(0, 3).mapToObj(cluster::instance).toList())) {
                List<Future<Reply>> calls = new ArrayList<>();
                for (int k = 0; k < 40; k++) {
                    long from = k % ACCOUNTS, to = (k * 5 + 1) % ACCOUNTS;
                    calls.add(app.submit(() -> {
                        Attachment.Call call = gyro.begin(transfer, new Object[] {null, from, to, 7L});
                        bank.transfer(call.connection(), from, to, 7);
                        return call.commit();
                    }));
                    calls.add(app.submit(() -> {
                        Attachment.Call call = gyro.begin(visit, new Object[] {null, from});
                        bank.visit(call.connection(), from);
                        return call.commit();
                    }));
                }
                Attachment.Call undone = gyro.begin(transfer, new Object[] {null, 0L, 1L, 1000L});
                bank.transfer(undone.connection(), 0, 1, 1000);
                undone.rollback();
                long lastGsn = 0;
                for (int k = 0; k < calls.size(); k++) {
                    Reply r = calls.get(k).get();
                    assertThat(r.ok()).as(r.message()).isTrue();
                    assertThat(r.executedAs()).isEqualTo(k % 2 == 0 ? "global" : "local");
                    lastGsn = Math.max(lastGsn, r.gsn());
                }
                assertThat(lastGsn).as("one gsn per transfer").isEqualTo(40);
            } finally {
                app.shutdownNow();
            }
            assertThat(cluster.awaitQuiet(60_000)).as("the ring is quiet").isTrue();
            Map<Long, Long> balances = null;
            Map<Long, Long> visits = new TreeMap<>();
            Map<Long, Integer> visitedAt = new TreeMap<>();
            for (int i = 0; i < 3; i++)
                try (Connection db = cluster.connect(i)) {
                    Map<Long, Long> b = table(db, "SELECT id, balance FROM accounts");
                    if (balances == null) balances = b;
                    assertThat(b).as("instance %d's balances: every transfer, applied everywhere", i).isEqualTo(balances);
                    int at = i;
                    table(db, "SELECT account, n FROM visits").forEach((a, n) -> {
                        visits.merge(a, n, Long::sum);
                        if (n > 0) assertThat(visitedAt.put(a, at)).as("account %d visited at one instance", a).isNull();
                    });
                }
            assertThat(new java.util.HashSet<>(visitedAt.values())).as("the accounts' instances").hasSizeGreaterThan(1);
            assertThat(balances.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(100L * ACCOUNTS);
            assertThat(balances.get(0L)).as("the transfer rolled back left nothing").isLessThan(200);
            // each visit counted once, at its account's instance only (a local request ships nothing)
            for (long a = 0; a < ACCOUNTS; a++) {
                long expected = 0;
                for (int k = 0; k < 40; k++) if (k % ACCOUNTS == a) expected++;
                assertThat(visits.getOrDefault(a, 0L)).as("visits of account %d over all instances", a).isEqualTo(expected);
            }
        }
    }
}
