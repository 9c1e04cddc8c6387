package dev.gyro.analyzer;

import dev.gyro.analyzer.sql.SqlAccessExtractor;
import dev.gyro.app.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static dev.gyro.analyzer.Fixtures.classification;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Row existence is not a column (gyro-analyzer/README.md): an INSERT's duplicate-key check and COUNT(*)
 * read whether rows exist, an UPDATE of no key column never changes that. Each precise result comes with
 * the fixture where a less careful rule would be unsound.
 */
class ExistenceTest {

    @Test
    void servletsAnUpdateOfNoKeyColumnIsLocalBesideAnInsertAtMaxPlusOne() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("existence/servlets"));
        // newCart inserts at MAX(ID) + 1, a value read from the database: its duplicate check may meet any cart,
        // but it reads only whether the cart exists, which touchCart does not change
        assertThat(classification(r, "touchCartServlet").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "touchCartServlet").partitionBy()).containsExactly("cartId");
        assertThat(classification(r, "touchCartServlet").reason())
                .contains("newCartServlet read only CART.{(EXISTENCE),ID}");
        assertThat(classification(r, "addLineServlet").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "newCartServlet").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "newCartServlet").reason()).contains("(EXISTENCE)");
    }

    @Test
    void servletsAnUpdateOfTheKeyColumnChangesExistenceAndStaysGlobal(@TempDir Path dir) {
        Fixtures.copy("existence/servlets", dir);
        Fixtures.copy("existence/servlets-renumber", dir);
        AnalysisResult r = Fixtures.analyze(dir);
        // renumbering makes a cart id exist that newCart's MAX(ID) and duplicate check read
        assertThat(classification(r, "renumberCartServlet").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "renumberCartServlet").reason()).contains("newCartServlet");
        // and the moved row's image (taken where the old id lives) overwrites the TOUCHED of the new id
        assertThat(classification(r, "touchCartServlet").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "touchCartServlet").reason()).contains("renumberCartServlet");
    }

    @Test
    void daoAnInsertAtAnIdFromAnIdTableAndAKeyAddedByAlterTable() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("existence/dao"));
        // the key comes from ALTER TABLE ... ADD CONSTRAINT ... PRIMARY KEY: without it any column could be a
        // key, deposit could move its row, and openAccount's duplicate check would read from it
        assertThat(classification(r, "deposit").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "deposit").partitionBy()).containsExactly("accountId");
        assertThat(classification(r, "openAccount").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "countAccounts").kind()).isEqualTo(Kind.LOCAL);
    }

    @Test
    void daoWithoutTheAlterTableTheKeysAreUnknownAndDepositIsGlobal(@TempDir Path dir) {
        Fixtures.copy("existence/dao", dir, "BankSchema.java");
        Fixtures.write(dir, "BankSchema.java", """
                package bank.db;
                final class BankSchema {
                    static final String ACCOUNT = "CREATE TABLE ACCOUNT (ID BIGINT NOT NULL, OWNER VARCHAR(40), BALANCE BIGINT)";
                }
                """);
        AnalysisResult r = Fixtures.analyze(dir);
        assertThat(classification(r, "deposit").kind()).isEqualTo(Kind.GLOBAL);
    }

    @Test
    void daoAReaderOfEveryBalanceReadsMoreThanExistence(@TempDir Path dir) {
        Fixtures.copy("existence/dao", dir);
        Fixtures.copy("existence/dao-report", dir);
        AnalysisResult r = Fixtures.analyze(dir);
        assertThat(classification(r, "deposit").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "deposit").reason()).contains("totalBalance").contains("ACCOUNT.BALANCE");
    }

    @Test
    void aRowImageOverwritesAColumnALocalRequestOfAnotherPartitionChanges() {
        Path items = Fixtures.fixture("existence/images");
        // bid's row image carries NAME, which renameItem (local to the seller) changes and sellerItems reads
        AnalysisResult rows = Fixtures.analyze(items);
        assertThat(classification(rows, "renameItem").kind()).isNotEqualTo(Kind.GLOBAL);
        assertThat(classification(rows, "bid").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(rows, "bid").reason()).contains("sellerItems").contains("NAME");
        // by attribute, bid writes MAX_BID only, which nobody of another partition reads
        AnalysisResult attributes = new Analyzer().writeGranularity(SqlAccessExtractor.WriteGranularity.ATTRIBUTE)
                .analyze(List.of(items));
        assertThat(classification(attributes, "bid").kind()).isEqualTo(Kind.LOCAL);
    }
}
