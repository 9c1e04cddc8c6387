package dev.gyro.analyzer;

import dev.gyro.app.Kind;

import dev.gyro.analyzer.partition.PartitionedTables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static dev.gyro.analyzer.Fixtures.classification;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * The classification file's partitionedTables section (PartitionedTables): each table local writers write, with the
 * column every such write binds to the writer's home key; none at all when some local write does not say which
 * bucket its rows belong to.
 */
class BucketMovesTest {

    private static final String EVENTS = "CREATE TABLE CART_EVENTS (KIND VARCHAR(10) NOT NULL, CART_ID BIGINT NOT NULL, "
            + "CUSTOMER_ID BIGINT NOT NULL, NOTE VARCHAR(80));\n";

    /** A built-in application's source and classification file in gyro-apps (tests run in gyro-analyzer/). */
    private static Path app(String name) {
        Path source = Path.of("..", "gyro-apps", "src", "main", "java", "dev", "gyro", "apps", name);
        assertThat(source).as("the source of " + name).isDirectory();
        return source;
    }

    private static dev.gyro.app.Classification handKept(String name) {
        return dev.gyro.app.Classification.read(Path.of("..", "gyro-apps", "src", "main", "resources", "dev", "gyro",
                "apps", name, "classification.json"));
    }

    private static String report(AnalysisResult r) {
        StringWriter out = new StringWriter();
        try (PrintWriter w = new PrintWriter(out)) {
            Report.print(r, "app", false, w);
        }
        return out.toString();
    }

    private static String bucketMoves(PartitionedTables tables) {
        StringWriter out = new StringWriter();
        try (PrintWriter w = new PrintWriter(out)) {
            Report.printBucketMoves(tables, w);
        }
        return out.toString();
    }

    @Test
    void theOnlineStoresCartsMoveWithTheirBucket() {
        AnalysisResult r = Fixtures.analyze(app("store"));
        // createCart and addItem (local, by cartId) write SHOPPING_CARTS with CART_ID = cartId; ITEMS, ORDERS and
        // ORDER_LINES are written only by order, which is global
        assertThat(r.partitionedTables().problems()).isEmpty();
        assertThat(r.classificationFile().partitionedTables()).containsExactly(entry("SHOPPING_CARTS", "CART_ID"));
        assertThat(report(r)).contains("bucket moves: rows of SHOPPING_CARTS belong to the bucket of CART_ID")
                .doesNotContain("not possible");
        assertThat(r.classificationFile().toJson()).contains("\"partitionedTables\"");
    }

    @Test
    void aLocalInsertWithoutThePartitioningColumnLeavesNoSection(@TempDir Path dir) {
        Fixtures.write(dir, "schema.sql", "CREATE TABLE CARTS (CART_ID BIGINT NOT NULL, ITEM_ID BIGINT NOT NULL, "
                + "QTY INT, PRIMARY KEY (CART_ID, ITEM_ID));\n" + EVENTS);
        Fixtures.write(dir, "app/AddItem.java", Fixtures.gyroTransaction("AddItem", "long cartId, long itemId", """
                try (PreparedStatement ps = c.prepareStatement("UPDATE CARTS SET QTY = QTY + 1 WHERE CART_ID = ? AND ITEM_ID = ?")) {
                    ps.setLong(1, cartId);
                    ps.setLong(2, itemId);
                    ps.executeUpdate();
                }
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO CART_EVENTS (KIND, CART_ID, CUSTOMER_ID, NOTE) VALUES ('add', 0, 0, ?)")) {
                    ps.setString(1, "item " + itemId);
                    ps.executeUpdate();
                }
                """));
        AnalysisResult r = Fixtures.analyze(dir);
        // the analyzer's own classification cannot make it local by cartId: two carts' events may be one row
        assertThat(classification(r, "addItem").kind()).isEqualTo(Kind.GLOBAL);
        // a hand-kept classification that does: the events of a cart are in no column of CART_EVENTS
        dev.gyro.app.Classification given = new dev.gyro.app.Classification(List.of(new dev.gyro.app.Classification.Rule(
                "addItem", Kind.LOCAL, false, List.of("cartId"), "by hand")));
        PartitionedTables tables = r.partitionedTables(given);
        assertThat(tables.section()).isEmpty();
        assertThat(given.withPartitionedTables(tables.section()).toJson()).doesNotContain("partitionedTables");
        assertThat(bucketMoves(tables)).contains("bucket moves: not possible: addItem writes CART_EVENTS without a "
                + "column equal to its partitioning parameter cartId").doesNotContain("belong to the bucket");
        // CARTS alone would have been fine
        assertThat(tables.problems()).singleElement().asString().contains("CART_EVENTS");
    }

    @Test
    void twoTransactionsBindingDifferentColumnsOfOneTableLeaveNoSection(@TempDir Path dir) {
        Fixtures.write(dir, "schema.sql", EVENTS);
        Fixtures.write(dir, "app/CartEvent.java", Fixtures.oneStatement("CartEvent", "long cartId",
                "INSERT INTO CART_EVENTS (KIND, CART_ID, CUSTOMER_ID) VALUES ('cart', ?, 0)", "cartId"));
        Fixtures.write(dir, "app/CustomerEvent.java", Fixtures.oneStatement("CustomerEvent", "long customerId",
                "INSERT INTO CART_EVENTS (KIND, CART_ID, CUSTOMER_ID) VALUES ('customer', 0, ?)", "customerId"));
        AnalysisResult r = Fixtures.analyze(dir);
        // the kinds tell their rows apart: both local, each by its own column
        assertThat(classification(r, "cartEvent").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "customerEvent").kind()).isEqualTo(Kind.LOCAL);
        assertThat(r.classificationFile().partitionedTables()).isEmpty();
        assertThat(r.classificationFile().toJson()).doesNotContain("partitionedTables");
        assertThat(report(r)).contains("bucket moves: not possible: cartEvent writes CART_EVENTS with CART_ID equal to "
                + "its partitioning parameter cartId, customerEvent with CUSTOMER_ID equal to customerId")
                .doesNotContain("belong to the bucket");
    }

    @Test
    void namesAreWrittenAsTheSchemaSpellsThem(@TempDir Path dir) {
        Fixtures.write(dir, "schema.sql", "create table Cart_Events (kind varchar(10), Cart_Id bigint);\n");
        Fixtures.write(dir, "app/CartEvent.java", Fixtures.oneStatement("CartEvent", "long cartId",
                "INSERT INTO CART_EVENTS (KIND, CART_ID) VALUES ('cart', ?)", "cartId"));
        AnalysisResult r = Fixtures.analyze(dir);
        assertThat(r.classificationFile().partitionedTables()).containsExactly(entry("Cart_Events", "Cart_Id"));
        assertThat(report(r)).contains("bucket moves: rows of Cart_Events belong to the bucket of Cart_Id");
    }

    @Test
    void theBuiltInApplicationsFilesHaveTheSectionTheirLocalWritesGive() {
        Map<String, Map<String, String>> expected = Map.of(
                "store", Map.of("SHOPPING_CARTS", "CART_ID"),
                "micro", Map.of("MICRO_ROWS", "MR_PARTITION", "MICRO_PARTITION", "MP_PARTITION"),
                "tpcw", Map.of("SHOPPING_CART_LINE", "SCL_SC_ID", "SHOPPING_CART", "SC_ID", "CUSTOMER", "C_ID"),
                "rubis", Map.of("ITEMS", "I_ID", "BIDS", "B_ITEM_ID", "BUY_NOW", "BN_ITEM_ID",
                        "COMMENTS", "CM_TO_USER_ID", "USERS", "U_ID"),
                // payment (local-or-global, home key customerWarehouse) also writes WAREHOUSE and DISTRICT rows of
                // its other key; newOrder writes STOCK_PENDING rows by the ordering and by the supplying warehouse
                "tpcc", Map.of());
        expected.forEach((name, tables) -> {
            dev.gyro.app.Classification file = handKept(name);
            PartitionedTables derived = Fixtures.analyze(app(name)).partitionedTables(file);
            assertThat(derived.section()).as(name + ": derived from its local writes").isEqualTo(tables);
            assertThat(file.partitionedTables()).as(name + "'s classification.json").isEqualTo(tables);
        });
        assertThat(Fixtures.analyze(app("tpcc")).partitionedTables(handKept("tpcc")).problems())
                .anyMatch(p -> p.startsWith("payment writes WAREHOUSE without a column equal to its partitioning "
                        + "parameter customerWarehouse"));
    }
}
