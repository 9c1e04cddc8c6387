package dev.gyro.analyzer;

import dev.gyro.app.Kind;

import dev.gyro.analyzer.model.AnalyzedTransaction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static dev.gyro.analyzer.Fixtures.classification;
import static dev.gyro.analyzer.Fixtures.entries;
import static dev.gyro.analyzer.Fixtures.transaction;
import static org.assertj.core.api.Assertions.assertThat;

/** The paper's online store (Sections IV and VI): createCart and addItem local, order global, by cart id. */
class StoreExampleTest {

    private static void assertPaperResult(AnalysisResult r) {
        assertThat(r.classifications()).hasSize(3);
        assertThat(classification(r, "createCart").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "addItem").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "order").kind()).isEqualTo(Kind.GLOBAL);
        for (String t : List.of("createCart", "addItem", "order")) {
            assertThat(classification(r, t).partitionBy()).as(t).containsExactly("cartId");
            assertThat(classification(r, t).readOnly()).as(t).isFalse();
        }
    }

    @Test
    void storeComesOutAsThePaperSays() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("store"));
        assertPaperResult(r);
        assertThat(r.diagnostics()).isEmpty();
        assertThat(r.search()).startsWith("exhaustive search");
        dev.gyro.app.Classification.Summary s = r.classificationFile().summary();
        assertThat(s).isEqualTo(new dev.gyro.app.Classification.Summary(2, 1, 0, 0, 3));
    }

    @Test
    void orderIsGlobalBecauseAddItemOfAnotherCartReadsTheStockItWrites() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("store"));
        String reason = classification(r, "order").reason();
        assertThat(reason).startsWith("global: addItem").contains("ITEMS").contains("STOCK")
                .contains("addItem.itemId").contains("does not imply order.cartId = addItem.cartId");
        assertThat(classification(r, "addItem").reason()).startsWith("local:").contains("cartId");
    }

    @Test
    void readAndWriteSetsFollowSectionSix() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("store"));
        AnalyzedTransaction createCart = transaction(r, "createCart");
        assertThat(createCart.parameters()).containsExactly("cartId");
        assertThat(entries(createCart.writeSet(), "SHOPPING_CARTS"))
                .containsExactly("SHOPPING_CARTS.* | CART_ID = cartId AND ITEM_ID = 0 AND QTY = 0");

        AnalyzedTransaction addItem = transaction(r, "addItem");
        assertThat(addItem.parameters()).containsExactly("cartId", "itemId", "qty");
        assertThat(entries(addItem.readSet(), "ITEMS")).containsExactly("ITEMS.{(EXISTENCE),I_ID,STOCK} | I_ID = itemId");
        assertThat(entries(addItem.readSet(), "ORDERS")).containsExactly("ORDERS.{(EXISTENCE),CART_ID,O_ID} | CART_ID = cartId");
        assertThat(entries(addItem.writeSet(), "SHOPPING_CARTS")).containsExactly(
                "SHOPPING_CARTS.QTY | CART_ID = cartId AND ITEM_ID = itemId",
                "SHOPPING_CARTS.* | CART_ID = cartId AND ITEM_ID = itemId AND QTY = qty");

        AnalyzedTransaction order = transaction(r, "order");
        // the item ids come from the cart's rows: free values, so any item may be written (its STOCK: nothing else
        // of ITEMS changes, so the row image copies nothing that differs between instances)
        assertThat(entries(order.writeSet(), "ITEMS")).singleElement().asString()
                .startsWith("ITEMS.STOCK | I_ID = <free: ");
        assertThat(entries(order.writeSet(), "ORDERS")).singleElement().asString()
                .startsWith("ORDERS.* | CART_ID = cartId AND TOTAL = <free");
        assertThat(order.notes()).anyMatch(n -> n.contains("ITEM_ID <> 0"));
    }

    @Test
    void sameResultWithoutTheSchema(@TempDir Path dir) {
        Fixtures.copy("store", dir, "StoreSchema.java");
        assertPaperResult(Fixtures.analyze(dir));
    }

    @Test
    void sameResultWhenAddItemUpsertsItsLine(@TempDir Path dir) {
        Fixtures.copy("store", dir, "AddItem.java");
        Fixtures.write(dir, "AddItem.java", Fixtures.gyroTransaction("AddItem", "long cartId, long itemId, int qty", """
                try (PreparedStatement ps = c.prepareStatement("SELECT STOCK FROM ITEMS WHERE I_ID = ?")) {
                    ps.setLong(1, itemId);
                    ps.executeQuery();
                }
                try (PreparedStatement ps = c.prepareStatement("SELECT O_ID FROM ORDERS WHERE CART_ID = ?")) {
                    ps.setLong(1, cartId);
                    ps.executeQuery();
                }
                try (PreparedStatement ps = c.prepareStatement(\"""
                        INSERT INTO SHOPPING_CARTS (CART_ID, ITEM_ID, QTY) VALUES (?, ?, ?)
                        ON CONFLICT (CART_ID, ITEM_ID) DO UPDATE SET QTY = SHOPPING_CARTS.QTY + excluded.QTY
                        \""")) {
                    ps.setLong(1, cartId);
                    ps.setLong(2, itemId);
                    ps.setInt(3, qty);
                    ps.executeUpdate();
                }
                """));
        AnalysisResult r = Fixtures.analyze(dir);
        assertPaperResult(r);
        assertThat(entries(transaction(r, "addItem").writeSet(), "SHOPPING_CARTS"))
                .containsExactly("SHOPPING_CARTS.* | CART_ID = cartId AND ITEM_ID = itemId");
    }

    @Test
    void methodsReceivingAConnectionBesideGyroTransactionsAreNotRequests() {
        AnalysisResult auto = Fixtures.analyze(Fixtures.fixture("store"));
        assertThat(auto.classifications()).extracting(c -> c.name()).containsExactly("addItem", "createCart", "order");
        // forced to the legacy front-end, StoreSetup's methods are transactions (and make everything global)
        AnalysisResult legacy = new Analyzer().frontEnd(dev.gyro.analyzer.java.JavaFrontEnd.Mode.LEGACY)
                .analyze(List.of(Fixtures.fixture("store")));
        assertThat(legacy.classifications()).extracting(c -> c.name()).containsExactlyInAnyOrder("createSchema", "load");
        assertThat(classification(legacy, "createSchema").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(legacy.diagnostics()).anyMatch(d -> d.message().contains("computed at run time"));
    }
}
