package dev.gyro.analyzer;

import dev.gyro.analyzer.java.Unclassified;
import dev.gyro.app.Kind;
import org.junit.jupiter.api.Test;

import static dev.gyro.analyzer.Fixtures.classification;
import static dev.gyro.analyzer.Fixtures.transaction;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Discovery never loses a transaction (gyro-analyzer/README.md): overloads by parameter types, entry
 * points that other entry points call, connections and statements held in fields, and a loud warning for
 * every public method that can execute SQL and is not classified.
 */
class DiscoveryTest {

    @Test
    void daoOverloadsAreToldApartAndAnEntryPointCalledByAnotherStaysATransaction() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("discovery/dao"));
        // rename calls find(long): before, both overloads of find (one arity) counted as its helpers and were
        // dropped; find(String) reads NAME by email, which makes rename global
        assertThat(r.classifications()).extracting(c -> c.name())
                .contains("CustomerDao.find", "CustomerDao.find_2", "rename");
        assertThat(transaction(r, "CustomerDao.find_2").parameters()).containsExactly("email");
        assertThat(Fixtures.entries(transaction(r, "rename").readSet(), "CUSTOMER"))
                .noneMatch(e -> e.contains("EMAIL"));
        assertThat(classification(r, "rename").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "rename").reason()).contains("CustomerDao.find_2");
    }

    @Test
    void daoAMethodRunningSqlOnAConnectionFromElsewhereIsListedLoudly() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("discovery/dao"));
        assertThat(r.diagnostics()).filteredOn(d -> d.message().startsWith(Unclassified.PREFIX)).singleElement()
                .satisfies(d -> {
                    assertThat(d.message()).contains("NightlyJob.purgeVisits");
                    assertThat(d.where().toString()).startsWith("NightlyJob.java:");
                });
    }

    @Test
    void daoAColumnEqualToAScalarSubSelectOfItsKeyIsBound() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("discovery/dao"));
        assertThat(Fixtures.entries(transaction(r, "visits").readSet(), "VISIT")).singleElement().asString()
                .contains("CUSTOMER_ID = id");
        assertThat(Fixtures.entries(transaction(r, "recordVisit").writeSet(), "VISIT")).singleElement().asString()
                .contains("CUSTOMER_ID = id");
        // the sub-select is read as well
        assertThat(Fixtures.entries(transaction(r, "recordVisit").readSet(), "CUSTOMER")).isNotEmpty();
        assertThat(classification(r, "recordVisit").kind()).isEqualTo(Kind.LOCAL);
    }

    @Test
    void repositoryConnectionAndStatementInFieldsAndTextsChosenPerVendor() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("discovery/repository"));
        assertThat(transaction(r, "place").origin()).contains("held in a field");
        assertThat(Fixtures.entries(transaction(r, "place").writeSet(), "ORDERS")).singleElement().asString()
                .contains("O_ID = orderId AND C_ID = customerId");
        // countSql is one of two texts: both count, and the Oracle one reads TOTAL by customer
        assertThat(transaction(r, "count").readSet()).hasSize(2);
        assertThat(classification(r, "setTotal").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "setTotal").reason()).contains("count").contains("TOTAL");
    }

    @Test
    void proceduresAnOverloadCalledByItsSiblingIsATransactionToo() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("discovery/procedures"));
        // both entry points are requests: the one by user id (called by the other) is not a helper
        assertThat(r.transactions()).extracting(t -> t.name())
                .containsExactlyInAnyOrder("PlaceBid.run", "PlaceBid.run_2", "RateUser.run");
        assertThat(Fixtures.entries(transaction(r, "PlaceBid.run").writeSet(), "BIDS")).singleElement().asString()
                .contains("B_ITEM_ID = itemId AND B_USER_ID = userId");
        // the call by a long runs the long overload only, not the String one again (which would be recursion)
        assertThat(Fixtures.entries(transaction(r, "PlaceBid.run_2").readSet(), "USERS"))
                .containsExactly("USERS.{(EXISTENCE),NICKNAME,U_ID} | NICKNAME = nickname");
        assertThat(Fixtures.entries(transaction(r, "PlaceBid.run_2").writeSet(), "BIDS")).singleElement().asString()
                .contains("B_USER_ID = <free: value read from the database: rs.getLong(1)");
        assertThat(classification(r, "PlaceBid.run").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "PlaceBid.run").partitionBy()).containsExactly("itemId");
    }
}
