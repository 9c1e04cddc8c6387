package dev.gyro.analyzer;

import dev.gyro.app.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static dev.gyro.analyzer.Fixtures.classification;
import static dev.gyro.analyzer.Fixtures.transaction;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * SQL texts built with StringBuilder/StringBuffer appends and String {@code +=} (gyro-analyzer/README.md, "SQL text"):
 * a value appended where a literal goes is bound like a placeholder; an append in a branch gives the texts with and
 * without it; an append into an identifier, in a loop, or by a method the builder is handed to widens.
 */
class BuilderTest {

    @Test
    void servletsAppendedValuesAreBoundInQuotesAndAsNumbers() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("builders/servlets"));
        assertThat(Fixtures.entries(transaction(r, "updateEmailServlet").writeSet(), "USERS"))
                .containsExactly("USERS.EMAIL | ID = userId");
        assertThat(Fixtures.entries(transaction(r, "profileServlet").readSet(), "USERS"))
                .containsExactly("USERS.{(EXISTENCE),EMAIL,ID} | ID = userId");
        assertThat(Fixtures.entries(transaction(r, "roleServlet").readSet(), "USERS"))
                .containsExactly("USERS.{(EXISTENCE),NAME,ROLE} | NAME = name");
        assertThat(classification(r, "updateEmailServlet").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "updateEmailServlet").partitionBy()).containsExactly("userId");
        assertThat(r.diagnostics()).noneMatch(d -> d.message().contains("computed"));
    }

    @Test
    void servletsWithoutTheAlterTableTheKeysAreUnknownAndTheUpdateMayMoveRows(@TempDir Path dir) {
        // USERS' key comes only from ALTER TABLE ... ADD CONSTRAINT ... PRIMARY KEY: without it any column may be a
        // key, the e-mail update may change which rows exist, and roleServlet (by name) reads from it
        Fixtures.copy("builders/servlets", dir, "users.sql");
        Fixtures.write(dir, "users.sql",
                "CREATE TABLE USERS (ID BIGINT NOT NULL, NAME VARCHAR(40) NOT NULL, EMAIL VARCHAR(80), ROLE VARCHAR(10));\n");
        AnalysisResult r = Fixtures.analyze(dir);
        assertThat(classification(r, "updateEmailServlet").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "updateEmailServlet").reason()).contains("roleServlet");
    }

    @Test
    void servletsAColumnAppendedInABranchIsWrittenToo() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("builders/servlets"), Fixtures.fixture("builders/servlets-promote"));
        // both texts run: with ROLE and without; a rule keeping only the unconditional text would miss ROLE
        assertThat(Fixtures.entries(transaction(r, "promoteServlet").writeSet(), "USERS")).hasSize(2)
                .anySatisfy(e -> assertThat(e).startsWith("USERS.{EMAIL,ROLE} | ID = userId"))
                .anySatisfy(e -> assertThat(e).startsWith("USERS.EMAIL | ID = userId"));
        assertThat(classification(r, "promoteServlet").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "promoteServlet").reason()).contains("roleServlet").contains("ROLE");
        assertThat(classification(r, "updateEmailServlet").kind()).isEqualTo(Kind.LOCAL);
    }

    @Test
    void servletsAParameterAppendedOrConcatenatedAsAColumnNameIsComputedSql() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("builders/servlets"), Fixtures.fixture("builders/servlets-column"));
        assertThat(transaction(r, "clearFieldServlet").writeSet()).singleElement()
                .satisfies(e -> assertThat(e.table()).isEqualTo("*"));
        assertThat(classification(r, "clearFieldServlet").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(r.diagnostics()).anyMatch(d -> d.toString().contains("ClearFieldServlet.java")
                && d.message().contains("computed at run time (`req.getParameter(\"field\")` is concatenated"));
        // a parameter where a column may go parses as a value (SELECT :v FROM ...) but is not one: computed SQL, and
        // the writer of EMAIL by id is global (a rule binding it as a value would read only NAME here)
        assertThat(transaction(r, "columnServlet").readSet()).singleElement().satisfies(e -> assertThat(e.table()).isEqualTo("*"));
        assertThat(r.diagnostics()).anyMatch(d -> d.toString().contains("ColumnServlet.java")
                && d.message().contains("where a column or condition may go"));
        assertThat(classification(r, "updateEmailServlet").kind()).isEqualTo(Kind.GLOBAL);
    }

    @Test
    void daoABuilderWithPlaceholdersAndAStringGrownByPlusEquals() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("builders/dao"));
        assertThat(Fixtures.entries(transaction(r, "deposit").writeSet(), "WALLETS"))
                .containsExactly("WALLETS.BALANCE | ID = walletId");
        assertThat(Fixtures.entries(transaction(r, "balance").readSet(), "WALLETS"))
                .containsExactly("WALLETS.{(EXISTENCE),BALANCE,ID} | ID = walletId");
        assertThat(classification(r, "deposit").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "deposit").partitionBy()).containsExactly("walletId");
    }

    @Test
    void daoABuilderHandedToAHelperIsComputedSql() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("builders/dao"), Fixtures.fixture("builders/dao-helper"));
        // withLimit appends LIMIT_AMOUNT, which limitOf reads by owner: the text without it would look local
        assertThat(transaction(r, "reset").writeSet()).singleElement().satisfies(e -> assertThat(e.table()).isEqualTo("*"));
        assertThat(classification(r, "reset").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(r.diagnostics()).anyMatch(d -> d.message().contains("withLimit(sb)"));
    }

    @Test
    void proceduresValuesAppendedIntoValuesAndWhereAndAnOptionalClause() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("builders/procedures"));
        assertThat(Fixtures.entries(transaction(r, "ReserveSeat.run").writeSet(), "RESERVATION"))
                .containsExactly("RESERVATION.* | R_F_ID = flightId AND SEAT = seat AND R_C_ID = customerId AND PRICE = 100");
        assertThat(Fixtures.entries(transaction(r, "FindOpenSeats.run").readSet(), "RESERVATION"))
                .containsExactly("RESERVATION.{(EXISTENCE),PRICE,R_F_ID,SEAT} | R_F_ID = flightId");
        // the discount clause makes two texts; both write PRICE of one seat of the flight
        assertThat(Fixtures.entries(transaction(r, "Reprice.run").writeSet(), "RESERVATION")).hasSize(2)
                .allSatisfy(e -> assertThat(e).startsWith("RESERVATION.PRICE | R_F_ID = flightId AND SEAT = seat"));
        assertThat(classification(r, "ReserveSeat.run").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "Reprice.run").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "Reprice.run").partitionBy()).containsExactly("flightId");
    }

    @Test
    void proceduresConditionsAppendedInALoopWiden() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("builders/procedures"), Fixtures.fixture("builders/procedures-loop"));
        // one pass of the loop reads as R_C_ID = one customer; the statement deletes rows of any of them
        assertThat(transaction(r, "CancelForCustomers.run").writeSet()).singleElement()
                .satisfies(e -> assertThat(e.table()).isEqualTo("*"));
        assertThat(classification(r, "CancelForCustomers.run").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(r.diagnostics()).anyMatch(d -> d.message().contains("in a loop"));
    }
}
