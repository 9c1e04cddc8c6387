package dev.gyro.analyzer;

import dev.gyro.app.Kind;
import org.junit.jupiter.api.Test;

import static dev.gyro.analyzer.Fixtures.classification;
import static dev.gyro.analyzer.Fixtures.transaction;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Connections and statements held in fields, in servlet style (gyro-analyzer/README.md): opened and prepared in
 * init(), one field given a text per database vendor (the union of both), used through a local alias; and a column
 * equal to a scalar sub-select of its own key.
 */
class FieldsTest {

    @Test
    void servletsStatementsPreparedInInitAndUsedThroughALocalAlias() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("fields/servlets"));
        // both vendors' texts count: the one that also counts SOLD is read by category, so sellServlet is global (a
        // rule keeping the first text only would make it local)
        assertThat(Fixtures.entries(transaction(r, "sellServlet").writeSet(), "STOCK")).hasSize(2)
                .allSatisfy(e -> assertThat(e).endsWith("| ITEM_ID = itemId"))
                .anySatisfy(e -> assertThat(e).contains("SOLD"));
        assertThat(classification(r, "sellServlet").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "sellServlet").reason()).contains("bestSellersServlet").contains("SOLD");
        // ITEM_ID = (SELECT ITEM_ID FROM STOCK WHERE ITEM_ID = ?) binds the item: holdServlet is local by it
        assertThat(Fixtures.entries(transaction(r, "holdServlet").writeSet(), "STOCK"))
                .singleElement().asString().endsWith("| ITEM_ID = itemId");
        assertThat(classification(r, "holdServlet").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "holdServlet").partitionBy()).containsExactly("itemId");
        assertThat(r.diagnostics()).noneMatch(d -> d.message().contains("cannot see"));
    }

    @Test
    void servletsASubSelectByAnotherColumnBindsNothing() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("fields/servlets"), Fixtures.fixture("fields/servlets-code"));
        // the item found by its code may be any item: its stock write is not one item's
        assertThat(Fixtures.entries(transaction(r, "holdByCodeServlet").writeSet(), "STOCK"))
                .singleElement().asString().endsWith("| ITEM_ID = <free: computed (SELECT ITEM_ID FROM CODES WHERE CODE = ?)>");
        assertThat(classification(r, "holdByCodeServlet").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "holdByCodeServlet").reason()).contains("itemServlet");
    }
}
