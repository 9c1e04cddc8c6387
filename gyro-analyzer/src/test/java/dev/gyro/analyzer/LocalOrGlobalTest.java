package dev.gyro.analyzer;

import dev.gyro.app.Kind;

import dev.gyro.analyzer.sql.SqlAccessExtractor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static dev.gyro.analyzer.Fixtures.classification;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The double-key scheme of the paper's RUBiS analysis (Section VII-A): storeBid(userId, itemId) writes
 * rows keyed by the user (BIDS.USER_ID, read by viewUserInfo) and by the item (ITEMS.ID and BIDS.ITEM_ID,
 * read by viewItem, viewBidHistory and other bids on the item). No single key makes it local; both do,
 * when they route to the same instance.
 */
class LocalOrGlobalTest {

    @Test
    void bidIsLocalOrGlobalPartitionedByItemThenUser() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("rubis"));
        assertThat(classification(r, "storeBid").kind()).isEqualTo(Kind.LOCAL_OR_GLOBAL);
        // the item is the home key: another bid on the same item reads what this one writes, and a bid
        // that is global runs at its home key's instance
        assertThat(classification(r, "storeBid").partitionBy()).containsExactly("itemId", "userId");
        assertThat(classification(r, "storeBid").reason()).startsWith("local-or-global: partitioned by itemId and userId")
                .contains("userId (with viewUserInfo on BIDS)");
        assertThat(classification(r, "storeComment").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "viewUserInfo").partitionBy()).containsExactly("userId");
        assertThat(r.classificationFile().summary()).isEqualTo(new dev.gyro.app.Classification.Summary(4, 0, 1, 3, 5));
    }

    @Test
    void aRowImageCopyingAColumnNobodyChangesDoesNotMakeTheBidGlobal(@TempDir Path dir) {
        Fixtures.copy("rubis", dir, "ViewUserInfo.java");
        Fixtures.write(dir, "ViewUserInfo.java", Fixtures.oneStatement("ViewUserInfo", "long userId",
                "SELECT i.NAME, b.BID FROM BIDS b JOIN ITEMS i ON i.ID = b.ITEM_ID WHERE b.USER_ID = ?", "userId"));
        // viewUserInfo reads ITEMS.NAME of items the user bid on (any item); storeBid's state update is a row
        // image of ITEMS, NAME included. No statement changes NAME, so the image copies the value every
        // instance already has: storeBid stays local-or-global.
        AnalysisResult unchanged = Fixtures.analyze(dir);
        assertThat(classification(unchanged, "storeBid").kind()).isEqualTo(Kind.LOCAL_OR_GLOBAL);
        // when only the SET columns count as written (the paper's attribute level), NAME is not written
        AnalysisResult attributes = new Analyzer().writeGranularity(SqlAccessExtractor.WriteGranularity.ATTRIBUTE)
                .analyze(List.of(dir));
        assertThat(classification(attributes, "storeBid").kind()).isEqualTo(Kind.LOCAL_OR_GLOBAL);
    }

    @Test
    void aReaderKeyedOnlyByItsSecondKeyCannotRelyOnIt(@TempDir Path dir) {
        // rate(userId) writes USERS by user; storeBid (home key itemId) also reads USERS by user: when global, a
        // bid runs at its item's instance, which does not see rate's local writes there
        Fixtures.copy("rubis", dir);
        Fixtures.write(dir, "Rate.java", Fixtures.oneStatement("Rate", "long userId",
                "UPDATE USERS SET RATING = RATING + 1 WHERE ID = ?", "userId"));
        Fixtures.write(dir, "StoreBid.java", Fixtures.gyroTransaction("StoreBid", "long userId, long itemId, double bid", """
                try (PreparedStatement ps = c.prepareStatement("SELECT RATING FROM USERS WHERE ID = ?")) {
                    ps.setLong(1, userId);
                    ps.executeQuery();
                }
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO BIDS (USER_ID, ITEM_ID, BID) VALUES (?, ?, ?)")) {
                    ps.setLong(1, userId);
                    ps.setLong(2, itemId);
                    ps.setDouble(3, bid);
                    ps.executeUpdate();
                }
                try (PreparedStatement ps = c.prepareStatement("UPDATE ITEMS SET MAX_BID = ? WHERE ID = ?")) {
                    ps.setDouble(1, bid);
                    ps.setLong(2, itemId);
                    ps.executeUpdate();
                }
                """));
        AnalysisResult r = Fixtures.analyze(dir);
        assertThat(classification(r, "storeBid").kind()).isEqualTo(Kind.LOCAL_OR_GLOBAL);
        assertThat(classification(r, "storeBid").partitionBy()).containsExactly("itemId", "userId");
        assertThat(classification(r, "rate").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "rate").reason()).contains("storeBid (partitioned by itemId)");
    }
}
