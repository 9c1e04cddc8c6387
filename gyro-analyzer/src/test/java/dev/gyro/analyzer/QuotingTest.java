package dev.gyro.analyzer;

import dev.gyro.analyzer.java.Quoting;
import dev.gyro.app.Kind;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.gyro.analyzer.Fixtures.classification;
import static dev.gyro.analyzer.Fixtures.transaction;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Vendor quoting in concatenated SQL (gyro-analyzer/README.md, "Values concatenated into the text"): in MySQL code a
 * value between double quotes is a string, in ANSI SQL an identifier; the dialect comes from the sources' JDBC URLs or
 * DDL, or from --dialect.
 */
class QuotingTest {

    @Test
    void daoAMySqlUrlMakesDoubleQuotesStrings() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("quoting/dao-mysql"));
        assertThat(r.diagnostics()).noneMatch(d -> d.message().contains("is computed at run time"));
        assertThat(Fixtures.entries(transaction(r, "rename").writeSet(), "USERS")).containsExactly("USERS.NAME | ID = userId");
        assertThat(Fixtures.entries(transaction(r, "register").writeSet(), "USERS"))
                .containsExactly("USERS.* | ID = userId AND NAME = name AND CITY = 'unknown'");
        assertThat(classification(r, "rename").kind()).isEqualTo(Kind.LOCAL);
    }

    @Test
    void servletsMySqlDdlMakesDoubleQuotesStrings() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("quoting/servlets-mysql"));
        assertThat(Fixtures.entries(transaction(r, "confirmServlet").writeSet(), "ACCOUNTS"))
                .containsExactly("ACCOUNTS.CONFIRMED | EMAIL = email");
        assertThat(classification(r, "confirmServlet").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "confirmServlet").partitionBy()).containsExactly("email");
    }

    @Test
    void daoInAnsiSqlAValueBetweenDoubleQuotesIsAnIdentifier() {
        // a PostgreSQL column chosen at run time: taking it for a string would read one value, not any column
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("quoting/dao-postgres"));
        assertThat(transaction(r, "field").readSet()).anySatisfy(e -> assertThat(e.table()).isEqualTo("*"));
    }

    @Test
    void daoMySqlInTheAnsiQuotesModeQuotesIdentifiers() {
        // its URL sets sql_mode='ANSI_QUOTES': the column chosen at run time is any column, as in PostgreSQL; read as
        // MySQL's default mode it would be one string value, and the read of any column would be lost
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("quoting/dao-mysql-ansi-quotes"));
        assertThat(transaction(r, "field").readSet()).anySatisfy(e -> assertThat(e.table()).isEqualTo("*"));
        AnalysisResult asDefault = new Analyzer().quoting(Quoting.MYSQL)
                .analyze(List.of(Fixtures.fixture("quoting/dao-mysql-ansi-quotes")));
        assertThat(transaction(asDefault, "field").readSet()).noneSatisfy(e -> assertThat(e.table()).isEqualTo("*"));
    }

    @Test
    void daoTwoVendorsLeaveDoubleQuotesIdentifiersUnlessTold() {
        AnalysisResult mixed = Fixtures.analyze(Fixtures.fixture("quoting/dao-mysql"), Fixtures.fixture("quoting/dao-postgres"));
        assertThat(transaction(mixed, "rename").writeSet()).anySatisfy(e -> assertThat(e.table()).isEqualTo("*"));
        assertThat(classification(mixed, "rename").kind()).isEqualTo(Kind.GLOBAL);
        AnalysisResult told = new Analyzer().quoting(Quoting.MYSQL)
                .analyze(List.of(Fixtures.fixture("quoting/dao-mysql"), Fixtures.fixture("quoting/dao-postgres")));
        assertThat(Fixtures.entries(transaction(told, "rename").writeSet(), "USERS")).containsExactly("USERS.NAME | ID = userId");
    }
}
