package dev.gyro.analyzer;

import dev.gyro.analyzer.model.Diagnostic;
import dev.gyro.app.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static dev.gyro.analyzer.Fixtures.classification;
import static dev.gyro.analyzer.Fixtures.transaction;
import static org.assertj.core.api.Assertions.assertThat;

/** SQL dialects (gyro-analyzer/README.md): vendor forms normalized, and a tolerant reading when parsing fails. */
class DialectTest {

    @Test
    void servletsDb2DateArithmeticAndTuningClausesParse() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("dialects/servlets"));
        assertThat(r.diagnostics()).isEmpty();
        assertThat(Fixtures.entries(transaction(r, "extendSessionServlet").writeSet(), "SESSIONS"))
                .containsExactly("SESSIONS.EXPIRES | ID = sessionId");
        // the sessions a user reads include the one extended: global for that reason, not for "any table"
        assertThat(classification(r, "extendSessionServlet").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "extendSessionServlet").reason()).contains("mySessionsServlet")
                .contains("SESSIONS.EXPIRES");
    }

    @Test
    void proceduresAnUnreadableClauseKeepsTheTableAndTheCertainEqualities() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("dialects/procedures"));
        assertThat(r.diagnostics()).filteredOn(d -> d.severity() == Diagnostic.Severity.WARNING)
                .anyMatch(d -> d.message().contains("read tolerantly as SELECT of STOCK where S_W_ID = warehouseId"));
        assertThat(Fixtures.entries(transaction(r, "StockLevel.run").readSet(), "STOCK"))
                .containsExactly("STOCK.* | S_W_ID = warehouseId");
        assertThat(classification(r, "Restock.run").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "Restock.run").partitionBy()).containsExactly("warehouseId");
    }

    @Test
    void proceduresAnUnreadableUpdateOfItsOwnWhereColumnWritesAnyRowOfItsTable(@TempDir Path dir) {
        Fixtures.copy("dialects/procedures", dir);
        Fixtures.copy("dialects/procedures-move", dir);
        AnalysisResult r = Fixtures.analyze(dir);
        // the row moves to another warehouse: the tolerant reading cannot keep S_W_ID = warehouseId for the write
        assertThat(Fixtures.entries(transaction(r, "MoveStock.run").writeSet(), "STOCK")).containsExactly("STOCK.* | any row");
        assertThat(classification(r, "MoveStock.run").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "Restock.run").kind()).isEqualTo(Kind.GLOBAL);
    }

    @Test
    void daoAnUnreadableUpdateStillChangesOnlyItsSetColumns() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("dialects/dao-touch"));
        assertThat(r.diagnostics()).anyMatch(d -> d.message().contains("its SET columns [TOUCHED] written"));
        // not the rows' existence: carts, counting an owner's carts, does not read from it
        assertThat(Fixtures.entries(transaction(r, "touch").writeSet(), "CART")).containsExactly("CART.TOUCHED | ID = cartId");
        assertThat(classification(r, "touch").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "touch").partitionBy()).containsExactly("cartId");
    }

    @Test
    void servletsAnUnreadableUpdateOfTwoColumnsChangesThoseTwo() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("dialects/servlets-touch"));
        assertThat(Fixtures.entries(transaction(r, "seenServlet").writeSet(), "SESSIONS"))
                .containsExactly("SESSIONS.{HITS,SEEN} | ID = sessionId");
        assertThat(classification(r, "seenServlet").kind()).isEqualTo(Kind.LOCAL);
    }

    @Test
    void daoAnUnreadableUpdateOfAKeyOrRunAsAQueryStillWritesItsRows(@TempDir Path dir) {
        Fixtures.copy("dialects/dao-touch", dir);
        Fixtures.copy("dialects/dao-rekey", dir);
        AnalysisResult r = Fixtures.analyze(dir);
        // it sets the key column its WHERE binds: the row leaves its key, any row of CART may appear or vanish
        assertThat(Fixtures.entries(transaction(r, "renumber").writeSet(), "CART")).containsExactly("CART.* | any row");
        // an UPDATE ... RETURNING run by executeQuery writes all the same
        assertThat(Fixtures.entries(transaction(r, "stamp").writeSet(), "CART")).containsExactly("CART.TOUCHED | OWNER = owner");
        // two tables updated: not read tolerantly at all (any row of any table)
        assertThat(transaction(r, "seenWithOwner").writeSet()).anySatisfy(e -> assertThat(e.table()).isEqualTo("*"));
        assertThat(classification(r, "touch").kind()).isEqualTo(Kind.GLOBAL);
    }
}
