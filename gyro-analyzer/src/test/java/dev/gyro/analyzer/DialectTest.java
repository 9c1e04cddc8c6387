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
}
