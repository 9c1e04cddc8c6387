package dev.gyro.apps.tpcc;

import dev.gyro.app.Kind;
import dev.gyro.app.Outcome;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.Databases;
import dev.gyro.apps.Driver;
import dev.gyro.protocol.PartitionMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

@Tag("servers")
class TpccTest {

    static final Tpcc SMALL = new Tpcc(new Tpcc.Size(500, 20));
    static final int W = 3;
    static final List<String> TABLES = List.of("WAREHOUSE", "DISTRICT", "CUSTOMER", "HISTORY", "NEW_ORDER", "ORDERS",
            "ORDER_LINE", "ITEM", "STOCK");
    /** High remote rates, so the pending tables are exercised in a short run. */
    static final WorkloadOptions REMOTE = WorkloadOptions.of(Map.of("remote-lines", "20", "remote-payments", "40"));

    @Test
    void classificationIsPartitionedByWarehouse() {
        SMALL.classification().validateAgainst(new TransactionCatalog(SMALL.transactions()));
        assertThat(SMALL.classification().rule("newOrder").kind()).isEqualTo(Kind.LOCAL_OR_GLOBAL);
        assertThat(SMALL.classification().rule("payment").partitionBy()).containsExactly("customerWarehouse", "warehouse");
        assertThat(SMALL.classification().rule("delivery").kind()).isEqualTo(Kind.LOCAL);
    }

    @Test
    void theLoaderIsDeterministicAndFollowsTheStandardRatios(@TempDir Path dir) throws Exception {
        try (Connection a = Databases.sqlite(dir.resolve("a.db")); Connection b = Databases.sqlite(dir.resolve("b.db"));
             Connection other = Databases.sqlite(dir.resolve("c.db"))) {
            Driver.load(SMALL, a, W, 42);
            Driver.load(SMALL, b, W, 42);
            Driver.load(SMALL, other, W, 43);
            for (String t : TABLES) assertThat(Databases.digest(b, t)).as(t).isEqualTo(Databases.digest(a, t));
            assertThat(Databases.digest(other, "STOCK")).isNotEqualTo(Databases.digest(a, "STOCK"));
            assertThat(count(a, "WAREHOUSE")).isEqualTo(W);
            assertThat(count(a, "DISTRICT")).isEqualTo(10 * W);
            assertThat(count(a, "CUSTOMER")).isEqualTo(200 * W);
            assertThat(count(a, "ORDERS")).isEqualTo(200 * W);
            assertThat(count(a, "NEW_ORDER")).isEqualTo(60 * W);
            assertThat(count(a, "STOCK")).isEqualTo(500 * W);
            assertThat(SMALL.audit(W, 42).check(List.of(a), PartitionMap.uniform(1))).isEmpty();
        }
    }

    @Test
    void theMixRunsWithItsRollbacksAndTheConditionsHold(@TempDir Path dir) throws Exception {
        try (Connection c = Databases.sqlite(dir.resolve("tpcc.db"))) {
            Driver.load(SMALL, c, W, 42);
            Driver.Counts counts = Driver.drive(SMALL, c, W, REMOTE, 9, 3000, 5);
            assertThat(counts.failures()).isEmpty();
            assertThat(counts.byTransaction()).containsOnlyKeys("newOrder", "payment", "orderStatus", "delivery", "stockLevel");
            assertThat(counts.byTransaction().get("newOrder")[Outcome.Status.ABORTED.ordinal()]).isPositive(); // the 1%
            assertThat(count(c, "STOCK_PENDING")).isPositive();
            assertThat(SMALL.audit(W, 42).check(List.of(c), PartitionMap.uniform(1))).isEmpty();
            Driver.Counts standard = Driver.drive(SMALL, c, W, WorkloadOptions.NONE, 9, 1500, 6);
            assertThat(standard.failures()).isEmpty();
            assertThat(SMALL.audit(W, 42).check(List.of(c), PartitionMap.uniform(1))).isEmpty();
        }
    }

    @Test
    void theAuditNamesCorruptedRows(@TempDir Path dir) throws Exception {
        try (Connection c = Databases.sqlite(dir.resolve("tpcc.db"))) {
            Driver.load(SMALL, c, W, 42);
            Driver.drive(SMALL, c, W, REMOTE, 6, 800, 5);
            assertThat(SMALL.audit(W, 42).check(List.of(c), PartitionMap.uniform(1))).isEmpty();
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE DISTRICT SET D_NEXT_O_ID = D_NEXT_O_ID + 1 WHERE D_W_ID = 2 AND D_ID = 7");
                s.executeUpdate("UPDATE DISTRICT SET D_YTD = D_YTD + 1 WHERE D_W_ID = 3 AND D_ID = 1");
                s.executeUpdate("DELETE FROM NEW_ORDER WHERE NO_W_ID = 1 AND NO_D_ID = 4 AND NO_O_ID = "
                        + "(SELECT MIN(NO_O_ID) + 1 FROM NEW_ORDER WHERE NO_W_ID = 1 AND NO_D_ID = 4)");
                s.executeUpdate("UPDATE STOCK SET S_YTD = S_YTD + 5 WHERE S_W_ID = 2 AND S_I_ID = 33");
            }
            c.commit();
            List<String> v = SMALL.audit(W, 42).check(List.of(c), PartitionMap.uniform(1));
            assertThat(v).anySatisfy(s -> assertThat(s).contains("condition 2").contains("warehouse 2").contains("D_ID=7"));
            assertThat(v).anySatisfy(s -> assertThat(s).contains("condition 1").contains("warehouse 3"));
            assertThat(v).anySatisfy(s -> assertThat(s).contains("condition 3").contains("warehouse 1").contains("D_ID=4"));
            assertThat(v).anySatisfy(s -> assertThat(s).contains("S_I_ID=33").contains("warehouse 2"));
        }
    }

    @Test
    void theSqlRunsUnchangedOnPostgres() throws Exception {
        try (Connection c = Databases.postgres("gyro_apps_tpcc")) {
            runsUnchanged(c);
        }
    }

    @Test
    void theSqlRunsUnchangedOnMariaDb() throws Exception {
        try (Connection c = Databases.mariadb("gyro_apps_tpcc")) {
            runsUnchanged(c);
        }
    }

    static void runsUnchanged(Connection c) throws Exception {
        Driver.load(SMALL, c, W, 42);
        Path tmp = java.nio.file.Files.createTempFile("tpcc", ".db");
        try (Connection lite = Databases.sqlite(tmp)) {
            Driver.load(SMALL, lite, W, 42);
            for (String t : TABLES) assertThat(Databases.digest(c, t)).as(t).isEqualTo(Databases.digest(lite, t));
        } finally {
            java.nio.file.Files.deleteIfExists(tmp);
        }
        Driver.Counts counts = Driver.drive(SMALL, c, W, REMOTE, 9, 800, 5);
        assertThat(counts.failures()).isEmpty();
        assertThat(SMALL.audit(W, 42).check(List.of(c), PartitionMap.uniform(1))).isEmpty();
    }

    static long count(Connection c, String table) throws Exception {
        try (Statement s = c.createStatement(); var rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
