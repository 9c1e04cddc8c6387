package dev.gyro.apps.rubis;

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

import static org.assertj.core.api.Assertions.assertThat;

@Tag("servers")
class RubisTest {

    static final Rubis SMALL = new Rubis(new Rubis.Size(200, 150, 100));
    static final List<String> TABLES = List.of("CATEGORIES", "REGIONS", "USERS", "ITEMS", "OLD_ITEMS", "BIDS",
            "BUY_NOW", "COMMENTS", "IDS");

    @Test
    void classificationMatchesTableOneOfThePaper() {
        Classification c = SMALL.classification();
        c.validateAgainst(new TransactionCatalog(SMALL.transactions()));
        List<Classification.Rule> rules = c.rules();
        assertThat(rules).hasSize(26);
        assertThat(rules.stream().filter(r -> r.kind() == Kind.LOCAL)).hasSize(14);
        assertThat(rules.stream().filter(r -> r.kind() == Kind.GLOBAL)).hasSize(4);
        assertThat(rules.stream().filter(r -> r.kind() == Kind.LOCAL_OR_GLOBAL)).hasSize(8);
        assertThat(rules.stream().filter(Classification.Rule::readOnly)).hasSize(17);
        assertThat(rules).allSatisfy(r -> assertThat(r.reason()).isNotBlank());
    }

    @Test
    void theGeneratorIsDeterministicAndKeepsItsOwnInvariants(@TempDir Path dir) throws Exception {
        try (Connection a = Databases.sqlite(dir.resolve("a.db")); Connection b = Databases.sqlite(dir.resolve("b.db"));
             Connection other = Databases.sqlite(dir.resolve("c.db"))) {
            Driver.load(SMALL, a, 1, 42);
            Driver.load(SMALL, b, 1, 42);
            Driver.load(SMALL, other, 1, 43);
            for (String t : TABLES) assertThat(Databases.digest(b, t)).as(t).isEqualTo(Databases.digest(a, t));
            assertThat(Databases.digest(other, "BIDS")).isNotEqualTo(Databases.digest(a, "BIDS"));
            assertThat(count(a, "USERS")).isEqualTo(200);
            assertThat(count(a, "ITEMS")).isEqualTo(150);
            assertThat(count(a, "OLD_ITEMS")).isEqualTo(100);
            assertThat(count(a, "COMMENTS")).isEqualTo(100);
            assertThat(SMALL.audit(1, 42).check(List.of(a), PartitionMap.uniform(1))).isEmpty();
        }
    }

    @Test
    void theBiddingMixRunsOnSqliteAndTheInvariantsHold(@TempDir Path dir) throws Exception {
        try (Connection c = Databases.sqlite(dir.resolve("rubis.db"))) {
            Driver.load(SMALL, c, 1, 42);
            Driver.Counts counts = Driver.drive(SMALL, c, 1, WorkloadOptions.NONE, 10, 6000, 7);
            assertThat(counts.failures()).isEmpty();
            // a session only closes and edits its own auctions
            assertThat(counts.aborts()).noneMatch(a -> a.startsWith("closeAuction") || a.startsWith("updateItem"));
            assertThat(counts.byTransaction()).hasSize(26);
            for (String t : List.of("storeBid", "storeBuyNow", "storeComment", "registerItem", "registerUser",
                    "closeAuction", "retractBid", "updateItem", "updateUserInfo"))
                assertThat(counts.byTransaction().get(t)[Outcome.Status.OK.ordinal()]).as(t).isPositive();
            assertThat(SMALL.audit(1, 42).check(List.of(c), PartitionMap.uniform(1))).isEmpty();
            Driver.Counts browsing = Driver.drive(SMALL, c, 1, WorkloadOptions.parse(List.of("mix=browsing")), 4, 500, 8);
            assertThat(browsing.failures()).isEmpty();
            assertThat(browsing.byTransaction()).doesNotContainKeys("storeBid", "registerUser");
        }
    }

    @Test
    void theAuditNamesCorruptedRows(@TempDir Path dir) throws Exception {
        try (Connection c = Databases.sqlite(dir.resolve("rubis.db"))) {
            Driver.load(SMALL, c, 1, 42);
            Driver.drive(SMALL, c, 1, WorkloadOptions.NONE, 5, 1000, 3);
            assertThat(SMALL.audit(1, 42).check(List.of(c), PartitionMap.uniform(1))).isEmpty();
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE ITEMS SET I_MAX_BID = I_MAX_BID + 1 WHERE I_ID = 120");
                s.executeUpdate("UPDATE USERS SET U_RATING = U_RATING + 3 WHERE U_ID = 7");
                s.executeUpdate("UPDATE ITEMS SET I_QUANTITY = -1 WHERE I_ID = 130");
            }
            c.commit();
            List<String> v = SMALL.audit(1, 42).check(List.of(c), PartitionMap.uniform(1));
            assertThat(v).anySatisfy(s -> assertThat(s).contains("highest bid").contains("I_ID=120"));
            assertThat(v).anySatisfy(s -> assertThat(s).contains("rating").contains("U_ID=7"));
            assertThat(v).anySatisfy(s -> assertThat(s).contains("negative quantity").contains("I_ID=130"));
        }
    }

    @Test
    void theSqlRunsUnchangedOnPostgres() throws Exception {
        try (Connection c = Databases.postgres("gyro_apps_rubis")) {
            runsUnchanged(c);
        }
    }

    @Test
    void theSqlRunsUnchangedOnMariaDb() throws Exception {
        try (Connection c = Databases.mariadb("gyro_apps_rubis")) {
            runsUnchanged(c);
        }
    }

    static void runsUnchanged(Connection c) throws Exception {
        Driver.load(SMALL, c, 1, 42);
        Path tmp = java.nio.file.Files.createTempFile("rubis", ".db");
        try (Connection lite = Databases.sqlite(tmp)) {
            Driver.load(SMALL, lite, 1, 42);
            for (String t : TABLES) assertThat(Databases.digest(c, t)).as(t).isEqualTo(Databases.digest(lite, t));
        } finally {
            java.nio.file.Files.deleteIfExists(tmp);
        }
        Driver.Counts counts = Driver.drive(SMALL, c, 1, WorkloadOptions.NONE, 8, 3000, 5);
        assertThat(counts.failures()).isEmpty();
        assertThat(counts.byTransaction()).hasSize(26);
        assertThat(SMALL.audit(1, 42).check(List.of(c), PartitionMap.uniform(1))).isEmpty();
    }

    static long count(Connection c, String table) throws Exception {
        try (Statement s = c.createStatement(); var rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
