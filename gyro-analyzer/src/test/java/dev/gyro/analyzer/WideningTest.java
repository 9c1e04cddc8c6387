package dev.gyro.analyzer;

import dev.gyro.app.Kind;

import dev.gyro.analyzer.partition.Classification;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;

import static dev.gyro.analyzer.Fixtures.classification;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/decisions/08-conservative-analyzer.md: what the analysis does not model widens to "any row", which makes the
 * transaction global rather than local. Touch(accountId) writes an account, Balance(accountId) reads one; with an
 * equality on ID, Touch is local by accountId.
 */
class WideningTest {

    private static AnalysisResult analyzeTouch(Path dir, String touchBody, String balanceWhere) {
        Fixtures.write(dir, "app/Touch.java", Fixtures.gyroTransaction("Touch", "long accountId, String name", touchBody));
        Fixtures.write(dir, "app/Balance.java", Fixtures.oneStatement("Balance", "long accountId",
                "SELECT BALANCE FROM ACCOUNTS WHERE " + balanceWhere, "accountId"));
        return Fixtures.analyze(dir);
    }

    private static String touchWhere(String where, String... bindings) {
        StringBuilder b = new StringBuilder("try (PreparedStatement ps = c.prepareStatement(\"UPDATE ACCOUNTS SET BALANCE = 0 WHERE "
                + where + "\")) {\n");
        for (int i = 0; i < bindings.length; i++) {
            b.append("    ps.setObject(").append(i + 1).append(", ").append(bindings[i]).append(");\n");
        }
        return b.append("    ps.executeUpdate();\n}").toString();
    }

    @Test
    void anEqualityOnTheKeyIsLocal(@TempDir Path dir) {
        AnalysisResult r = analyzeTouch(dir, touchWhere("ID = ?", "accountId"), "ID = ?");
        Classification touch = classification(r, "touch");
        assertThat(touch.kind()).isEqualTo(Kind.LOCAL);
        assertThat(touch.partitionBy()).containsExactly("accountId");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "range              | ID >= ?            | accountId           | range",
            "LIKE               | NAME LIKE ?        | name                | LIKE",
            "OR                 | ID = ? OR ID = ?   | accountId,accountId | OR",
            "function of column | ABS(ID) = ?        | accountId           | function of a column",
            "IN list            | ID IN (?, ?)       | accountId,accountId | IN"})
    void aWidenedWriteIsGlobal(String kind, String where, String bindings, String note, @TempDir Path dir) {
        AnalysisResult r = analyzeTouch(dir, touchWhere(where, bindings.split(",")), "ID = ?");
        Classification touch = classification(r, "touch");
        assertThat(touch.kind()).as(kind).isEqualTo(Kind.GLOBAL);
        assertThat(touch.reason()).contains("any row (touch)").contains("widened: " + note);
    }

    @Test
    void aWidenedReadMakesTheWriterGlobal(@TempDir Path dir) {
        AnalysisResult r = analyzeTouch(dir, touchWhere("ID = ?", "accountId"), "BALANCE > ?");
        assertThat(classification(r, "touch").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "touch").reason()).contains("balance").contains("widened: range");
        assertThat(classification(r, "balance").kind()).isEqualTo(Kind.LOCAL);
    }

    @Test
    void computedSqlIsGlobal(@TempDir Path dir) {
        AnalysisResult r = analyzeTouch(dir, """
                String sql = String.format(System.getProperty("touch.sql"), accountId);
                c.createStatement().executeUpdate(sql);
                """, "ID = ?");
        assertThat(classification(r, "touch").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "touch").reason()).contains("SQL text computed at run time");
        assertThat(r.diagnostics()).anyMatch(d -> d.toString().contains("Touch.java:")
                && d.message().contains("computed at run time"));
    }

    @Test
    void aTableNameConcatenatedIntoTheSqlIsComputedSql(@TempDir Path dir) {
        AnalysisResult r = analyzeTouch(dir, """
                String table = name.isEmpty() ? "ACCOUNTS" : name;
                c.createStatement().executeUpdate("UPDATE " + table + " SET BALANCE = 0 WHERE ID = " + accountId);
                """, "ID = ?");
        assertThat(classification(r, "touch").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(r.diagnostics()).anyMatch(d -> d.message().contains("computed at run time")
                && d.message().contains("`table` is concatenated into the SQL text as part of an identifier"));
    }

    @Test
    void aValueConcatenatedWhereAValueGoesIsStillBound(@TempDir Path dir) {
        AnalysisResult r = analyzeTouch(dir, """
                c.createStatement().executeUpdate("UPDATE ACCOUNTS SET BALANCE = 0 WHERE ID = " + accountId);
                """, "ID = ?");
        assertThat(classification(r, "touch").kind()).isEqualTo(Kind.LOCAL);
    }

    @Test
    void aValueConcatenatedAsTheOnlyValueOfSeveralColumnsBindsNone(@TempDir Path dir) {
        // csv may be "7, 100": ID is then 7, not csv, so the row is not known to be at the input's key
        Fixtures.write(dir, "app/Open.java", Fixtures.gyroTransaction("Open", "String csv",
                "c.createStatement().executeUpdate(\"INSERT INTO ACCOUNTS (ID, BALANCE) VALUES (\" + csv + \")\");"));
        AnalysisResult r = Fixtures.analyze(dir);
        assertThat(Fixtures.entries(Fixtures.transaction(r, "open").writeSet(), "ACCOUNTS")).singleElement().asString()
                .contains("ID = <free: VALUES of 1 for 2 columns>").doesNotContain("= csv");
    }
}
