package dev.gyro.analyzer;

import dev.gyro.app.Kind;
import org.junit.jupiter.api.Test;

import static dev.gyro.analyzer.Fixtures.classification;
import static dev.gyro.analyzer.Fixtures.transaction;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * SQL carried by objects (gyro-analyzer/README.md): a text kept by a wrapper's constructor and returned by its
 * getter (possibly with its named parameters expanded), a statement prepared by a helper or a base-class method,
 * bound there by a loop over the call's varargs, and executed by the caller as a query or an update.
 */
class ObjectsTest {

    @Test
    void daoQueryObjectsPreparedAndBoundByAHelper() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("objects/dao"));
        // its row image carries NAME too, which capitalize changes locally
        assertThat(Fixtures.entries(transaction(r, "addPoints").writeSet(), "MEMBERS"))
                .containsExactly("MEMBERS.{NAME,POINTS} | ID = memberId");
        assertThat(Fixtures.entries(transaction(r, "points").readSet(), "MEMBERS"))
                .containsExactly("MEMBERS.{(EXISTENCE),ID,POINTS} | ID = memberId");
        assertThat(transaction(r, "points").writeSet()).isEmpty(); // executed as a query by the caller
        assertThat(classification(r, "addPoints").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "addPoints").partitionBy()).containsExactly("memberId");
        // the tenant is bound first, the loop's elements from placeholder 2 on: a rule numbering them from 1 would
        // take TENANT for the member's id and ID for the city (the image carries POINTS, which addPoints changes)
        assertThat(Fixtures.entries(transaction(r, "capitalize").writeSet(), "MEMBERS"))
                .containsExactly("MEMBERS.{NAME,POINTS} | TENANT = tenant AND ID = memberId AND CITY = city");
        // bound by a helper that receives the caller's statement
        assertThat(Fixtures.entries(transaction(r, "pointsOf").readSet(), "MEMBERS"))
                .containsExactly("MEMBERS.{(EXISTENCE),ID,POINTS} | ID = memberId");
        assertThat(r.transactions()).extracting(t -> t.name()).doesNotContain("prepare", "prepareForTenant", "bind");
    }

    @Test
    void proceduresStatementFieldsOfABenchmarkKitBoundByTheBaseClass() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("objects/procedures"));
        assertThat(Fixtures.entries(transaction(r, "TakeStock.run").writeSet(), "STOCK"))
                .containsExactly("STOCK.{S_QUANTITY,S_YTD} | S_W_ID = warehouseId AND S_I_ID = itemId");
        assertThat(Fixtures.entries(transaction(r, "GetStock.run").readSet(), "STOCK"))
                .containsExactly("STOCK.{(EXISTENCE),S_I_ID,S_QUANTITY,S_W_ID,S_YTD} | S_W_ID = warehouseId AND S_I_ID = itemId");
        assertThat(classification(r, "TakeStock.run").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "TakeStock.run").partitionBy()).containsExactly("warehouseId");
        assertThat(r.diagnostics()).noneMatch(d -> d.message().contains("computed"));
    }

    @Test
    void proceduresAWrapperWhoseTextChangesAfterItIsMadeIsComputedSql() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("objects/procedures"), Fixtures.fixture("objects/procedures-mutable"));
        // setSQL replaces the text: the constructor's query by warehouse is not what runs
        assertThat(transaction(r, "ResetStock.run").writeSet()).singleElement()
                .satisfies(e -> assertThat(e.table()).isEqualTo("*"));
        assertThat(classification(r, "ResetStock.run").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "TakeStock.run").kind()).isEqualTo(Kind.GLOBAL);
    }
}
