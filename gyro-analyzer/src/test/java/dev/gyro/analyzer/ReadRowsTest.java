package dev.gyro.analyzer;

import dev.gyro.app.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static dev.gyro.analyzer.Fixtures.classification;
import static dev.gyro.analyzer.Fixtures.transaction;
import static org.assertj.core.api.Assertions.assertThat;

/** A key read from a row names that row (gyro-analyzer/README.md): the access at it satisfies the query's equalities. */
class ReadRowsTest {

    @Test
    void daoTheDeletedBidIsTheUsersLatest() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("readrows/dao"));
        assertThat(Fixtures.entries(transaction(r, "retractLatest").writeSet(), "BID")).singleElement().asString()
                .contains("USER_ID = userId");
        // bidsOf reads the user's bids: retractLatest needs the user as a key as well as the item
        assertThat(classification(r, "retractLatest").kind()).isEqualTo(Kind.LOCAL_OR_GLOBAL);
        assertThat(classification(r, "retractLatest").partitionBy()).containsExactlyInAnyOrder("itemId", "userId");
        // MAX + 1 is no row's key: nothing is inferred, the delete may hit any user's bid
        assertThat(Fixtures.entries(transaction(r, "retractNext").writeSet(), "BID")).singleElement().asString()
                .doesNotContain("USER_ID");
        assertThat(classification(r, "retractNext").kind()).isEqualTo(Kind.GLOBAL);
    }

    @Test
    void proceduresAKeyReadByItsLabelNamesTheRowFound() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("readrows/procedures"));
        // FindReservations keeps its SQL in a final instance field; the deleted reservation is the customer's
        assertThat(Fixtures.entries(transaction(r, "CancelReservation.run").writeSet(), "RESERVATION")).singleElement()
                .asString().contains("R_C_ID = customerId");
        assertThat(classification(r, "CancelReservation.run").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "CancelReservation.run").partitionBy()).containsExactly("customerId");
    }

    @Test
    void proceduresAnotherWriteOfTheTableInBetweenInfersNothing(@TempDir Path dir) {
        Fixtures.copy("readrows/procedures", dir, "CancelReservation.java");
        Fixtures.copy("readrows/procedures-reassign", dir);
        AnalysisResult r = Fixtures.analyze(dir);
        String cancel = "CancelReservation.run";
        assertThat(Fixtures.entries(transaction(r, cancel).writeSet(), "RESERVATION"))
                .noneMatch(e -> e.startsWith("RESERVATION.* | R_F_ID = flightId AND R_ID") && e.contains("R_C_ID = customerId"));
        assertThat(classification(r, cancel).kind()).isEqualTo(Kind.GLOBAL);
    }
}
