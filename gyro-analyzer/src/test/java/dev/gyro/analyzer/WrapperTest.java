package dev.gyro.analyzer;

import dev.gyro.app.Kind;
import org.junit.jupiter.api.Test;

import static dev.gyro.analyzer.Fixtures.classification;
import static dev.gyro.analyzer.Fixtures.transaction;
import static org.assertj.core.api.Assertions.assertThat;

/** SQL texts built by String.format, formatted and replace with constant arguments (gyro-analyzer/README.md). */
class WrapperTest {

    @Test
    void daoStringFormatFillsTheTableAndBindsValuesInLiteralPositions() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("wrappers/dao"));
        assertThat(Fixtures.entries(transaction(r, "rename").writeSet(), "ITEMS")).containsExactly("ITEMS.NAME | ID = itemId");
        assertThat(classification(r, "rename").kind()).isEqualTo(Kind.LOCAL);
        // %05d is not the id's value as the analysis knows it: peek may read any item, so take is global
        assertThat(Fixtures.entries(transaction(r, "peek").readSet(), "ITEMS")).singleElement().asString()
                .contains("<free: value formatted with %05d>");
        assertThat(classification(r, "take").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "take").reason()).contains("peek");
    }

    @Test
    void proceduresTemplatesReplacedOrFormattedWithConstantsAndATableFromTheInput() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("wrappers/procedures"));
        assertThat(Fixtures.entries(transaction(r, "ReadStock.run").readSet(), "ITEMS"))
                .containsExactly("ITEMS.{(EXISTENCE),ID,STOCK} | ID = itemId");
        assertThat(Fixtures.entries(transaction(r, "SetName.run").writeSet(), "ITEMS")).containsExactly("ITEMS.NAME | ID = itemId");
        // a table name from the input changes the statement's structure: any row of any table
        assertThat(transaction(r, "AnyTable.run").writeSet()).singleElement().satisfies(e -> assertThat(e.table()).isEqualTo("*"));
        assertThat(classification(r, "SetName.run").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "SetName.run").reason()).contains("AnyTable.run");
    }
}
