package dev.gyro.apps.tpcw;

import dev.gyro.app.Classification;
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
class TpcwTest {

    static final Tpcw SMALL = new Tpcw(new Tpcw.Size(200, 300));
    static final List<String> TABLES = List.of("COUNTRY", "AUTHOR", "ITEM", "CUSTOMER", "ADDRESS", "ORDERS",
            "ORDER_LINE", "CC_XACTS");

    @Test
    void classificationMatchesTableOneOfThePaper() {
        Classification c = SMALL.classification();
        c.validateAgainst(new TransactionCatalog(SMALL.transactions()));
        List<Classification.Rule> rules = c.rules();
        assertThat(rules).hasSize(20);
        assertThat(rules.stream().filter(r -> r.kind() == Kind.LOCAL)).hasSize(15);
        assertThat(rules.stream().filter(r -> r.kind() == Kind.GLOBAL)).hasSize(5);
        assertThat(rules.stream().filter(r -> r.kind() == Kind.LOCAL_OR_GLOBAL)).isEmpty();
        assertThat(rules.stream().filter(Classification.Rule::readOnly)).hasSize(13);
        assertThat(rules).allSatisfy(r -> assertThat(r.reason()).isNotBlank());
    }

    @Test
    void theGeneratorIsDeterministicAndScales(@TempDir Path dir) throws Exception {
        try (Connection a = Databases.sqlite(dir.resolve("a.db")); Connection b = Databases.sqlite(dir.resolve("b.db"));
             Connection other = Databases.sqlite(dir.resolve("c.db")); Connection big = Databases.sqlite(dir.resolve("d.db"))) {
            Driver.load(SMALL, a, 1, 42);
            Driver.load(SMALL, b, 1, 42);
            Driver.load(SMALL, other, 1, 43);
            Driver.load(SMALL, big, 2, 42);
            for (String t : TABLES) assertThat(Databases.digest(b, t)).as(t).isEqualTo(Databases.digest(a, t));
            assertThat(Databases.digest(other, "ITEM")).isNotEqualTo(Databases.digest(a, "ITEM"));
            assertThat(count(a, "ITEM")).isEqualTo(200);
            assertThat(count(a, "CUSTOMER")).isEqualTo(300);
            assertThat(count(a, "ADDRESS")).isEqualTo(600);
            assertThat(count(a, "ORDERS")).isEqualTo(270);
            assertThat(count(a, "AUTHOR")).isEqualTo(50);
            assertThat(count(big, "ITEM")).isEqualTo(400);
            assertThat(count(big, "CUSTOMER")).isEqualTo(600);
        }
    }

    @Test
    void everyMixRunsOnSqliteAndTheInvariantsHold(@TempDir Path dir) throws Exception {
        try (Connection c = Databases.sqlite(dir.resolve("tpcw.db"))) {
            Driver.load(SMALL, c, 1, 42);
            long orders = count(c, "ORDERS");
            for (String mix : List.of("browsing", "shopping", "ordering")) {
                Driver.Counts counts = Driver.drive(SMALL, c, 1, WorkloadOptions.of(Map.of("mix", mix)), 10, 1500, 7);
                assertThat(counts.failures()).as(mix).isEmpty();
                assertThat(counts.total(Outcome.Status.OK)).as(mix).isGreaterThan(1400);
            }
            Driver.Counts ordering = Driver.drive(SMALL, c, 1, WorkloadOptions.of(Map.of("mix", "ordering")), 10, 3000, 9);
            assertThat(ordering.byTransaction()).containsKeys("createEmptyCart", "doCart", "getCart", "createNewCustomer",
                    "refreshSession", "getCustomer", "doBuyConfirm", "doSubjectSearch", "doTitleSearch",
                    "doAuthorSearch", "getBook", "getRelated", "getName");
            assertThat(count(c, "ORDERS")).isGreaterThan(orders);
            assertThat(SMALL.audit(1, 42).check(List.of(c), PartitionMap.uniform(1))).isEmpty();
        }
    }

    @Test
    void theAuditNamesACorruptedRow(@TempDir Path dir) throws Exception {
        try (Connection c = Databases.sqlite(dir.resolve("tpcw.db"))) {
            Driver.load(SMALL, c, 1, 42);
            Driver.drive(SMALL, c, 1, WorkloadOptions.of(Map.of("mix", "ordering")), 5, 800, 3);
            assertThat(SMALL.audit(1, 42).check(List.of(c), PartitionMap.uniform(1))).isEmpty();
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE ITEM SET I_STOCK = -3 WHERE I_ID = 17");
                s.executeUpdate("DELETE FROM ORDERS WHERE O_ID = 5");
                s.executeUpdate("UPDATE ORDERS SET O_TOTAL = O_TOTAL + 1 WHERE O_ID = 9");
            }
            c.commit();
            List<String> violations = SMALL.audit(1, 42).check(List.of(c), PartitionMap.uniform(1));
            assertThat(violations).anySatisfy(v -> assertThat(v).contains("stock is never negative").contains("I_ID=17"));
            assertThat(violations).anySatisfy(v -> assertThat(v).contains("every order line has its order").contains("OL_O_ID=5"));
            assertThat(violations).anySatisfy(v -> assertThat(v).contains("subtotal + tax + shipping").contains("O_ID=9"));
        }
    }

    @Test
    void theSqlRunsUnchangedOnPostgres() throws Exception {
        try (Connection c = Databases.postgres("gyro_apps_tpcw")) {
            runsUnchanged(c);
        }
    }

    @Test
    void theSqlRunsUnchangedOnMariaDb() throws Exception {
        try (Connection c = Databases.mariadb("gyro_apps_tpcw")) {
            runsUnchanged(c);
        }
    }

    /** Loads the same data as SQLite does, runs the ordering mix (every transaction) without an error, audits. */
    static void runsUnchanged(Connection c) throws Exception {
        Driver.load(SMALL, c, 1, 42);
        Path tmp = java.nio.file.Files.createTempFile("tpcw", ".db");
        try (Connection lite = Databases.sqlite(tmp)) {
            Driver.load(SMALL, lite, 1, 42);
            for (String t : TABLES) assertThat(Databases.digest(c, t)).as(t).isEqualTo(Databases.digest(lite, t));
        } finally {
            java.nio.file.Files.deleteIfExists(tmp);
        }
        Driver.Counts counts = Driver.drive(SMALL, c, 1, WorkloadOptions.of(Map.of("mix", "ordering")), 8, 2500, 5);
        assertThat(counts.failures()).isEmpty();
        Driver.Counts admin = Driver.drive(SMALL, c, 1, WorkloadOptions.of(Map.of("mix", "browsing")), 4, 400, 6);
        assertThat(admin.failures()).isEmpty();
        assertThat(SMALL.audit(1, 42).check(List.of(c), PartitionMap.uniform(1))).isEmpty();
    }

    static long count(Connection c, String table) throws Exception {
        try (Statement s = c.createStatement(); var rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
