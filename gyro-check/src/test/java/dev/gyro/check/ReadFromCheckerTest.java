package dev.gyro.check;

import dev.gyro.protocol.Value;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class ReadFromCheckerTest {

    static final RowRef ITEM_7 = new RowRef("ITEMS", List.of(new Value.Int(7)));

    static Access access(String tx, long partition, boolean global, long start, long end, Set<RowRef> reads,
                         Set<RowRef> writes) {
        List<Value> p = List.of(new Value.Int(partition));
        return new Access(0, tx, p, p, global, start, end, reads, writes);
    }

    @Test
    void aReadOfARowWrittenByALocalRequestOfAnotherPartitionIsReported() {
        Access writer = access("order", 1, false, 0, 10, Set.of(), Set.of(ITEM_7));
        Access reader = access("addItem", 2, false, 20, 30, Set.of(ITEM_7), Set.of());
        List<ReadFromChecker.Violation> v = ReadFromChecker.check(List.of(writer, reader));
        assertThat(v).hasSize(1);
        assertThat(v.get(0).toString()).contains("local addItem(2) at instance 0 (partition [2]) read ITEMS(7)")
                .contains("written by local order(1)");
    }

    @Test
    void samePartitionGlobalWritersLaterWritersAndOtherRowsAreFine() {
        Access samePartition = access("addItem", 2, false, 0, 10, Set.of(), Set.of(ITEM_7));
        Access global = access("order", 1, true, 0, 10, Set.of(), Set.of(ITEM_7));
        Access later = access("order", 3, false, 40, 50, Set.of(), Set.of(ITEM_7));
        Access otherRow = access("order", 4, false, 0, 10, Set.of(),
                Set.of(new RowRef("ITEMS", List.of(new Value.Int(8)))));
        Access reader = access("addItem", 2, false, 20, 30, Set.of(ITEM_7), Set.of());
        assertThat(ReadFromChecker.check(List.of(samePartition, global, later, otherRow, reader))).isEmpty();
    }

    /**
     * A key reused (RUBiS: a retracted bid's key taken by the next bid): a global request that wrote the row anew after
     * the local writer, and before the reader was done, stands between them; without it the read is reported.
     */
    @Test
    void aRowAGlobalRequestWroteAnewInBetweenIsNotReadFromTheEarlierLocalWriter() {
        Access local = access("storeBid", 1, false, 0, 10, Set.of(), Set.of(ITEM_7));
        Access global = access("storeBid", 3, true, 12, 18, Set.of(), Set.of(ITEM_7));
        Access reader = access("aboutMe", 2, false, 15, 30, Set.of(ITEM_7), Set.of());
        assertThat(ReadFromChecker.check(List.of(local, global, reader))).isEmpty();
        Access lateGlobal = access("storeBid", 3, true, 12, 40, Set.of(), Set.of(ITEM_7));
        assertThat(ReadFromChecker.check(List.of(local, lateGlobal, reader))).as("done after the reader").hasSize(1);
        Access earlyGlobal = access("storeBid", 3, true, 5, 18, Set.of(), Set.of(ITEM_7));
        assertThat(ReadFromChecker.check(List.of(local, earlyGlobal, reader))).as("begun before the local writer was done")
                .hasSize(1);
    }

    /**
     * The same key reused by a local request of the reader's own partition (the reader's user bid on the item, on the
     * reader's instance, once the other user's bid was retracted): it stands between them too; one of a third
     * partition does not.
     */
    @Test
    void aRowALocalRequestOfTheReadersPartitionWroteAnewInBetweenIsNotReadFromTheEarlierLocalWriter() {
        Access local = access("storeBid", 1, false, 0, 10, Set.of(), Set.of(ITEM_7));
        Access reader = access("aboutMe", 2, false, 15, 30, Set.of(ITEM_7), Set.of());
        Access readersOwn = access("storeBid", 2, false, 12, 18, Set.of(), Set.of(ITEM_7));
        assertThat(ReadFromChecker.check(List.of(local, readersOwn, reader))).isEmpty();
        Access thirdPartition = access("storeBid", 3, false, 12, 18, Set.of(), Set.of(ITEM_7));
        assertThat(ReadFromChecker.check(List.of(local, thirdPartition, reader))).as("another partition's rewrite")
                .isNotEmpty();
    }

    @Test
    void readsAndWritesOfDifferentColumnsOfARowDoNotConflict() {
        List<Value> key = List.of(new Value.Int(7));
        Access bidCount = access("storeBid", 1, false, 0, 10, Set.of(),
                Set.of(new RowRef("ITEMS", key, Set.of("I_NB_OF_BIDS", "I_MAX_BID"))));
        Access nameReader = access("search", 2, false, 20, 30,
                Set.of(new RowRef("items", null, Set.of("i_name", "i_id"))), Set.of());
        Access priceReader = access("viewItem", 3, false, 20, 30,
                Set.of(new RowRef("ITEMS", key, Set.of("I_MAX_BID"))), Set.of());
        List<ReadFromChecker.Violation> v = ReadFromChecker.check(List.of(bidCount, nameReader, priceReader));
        assertThat(v).hasSize(1);
        assertThat(v.get(0).reader().transaction()).isEqualTo("viewItem");
        // an insert or delete (columns unknown: the whole row) conflicts with any read of the row
        Access insert = access("registerItem", 4, false, 0, 10, Set.of(), Set.of(new RowRef("ITEMS", key, null)));
        assertThat(ReadFromChecker.check(List.of(insert, nameReader))).hasSize(1);
    }

    @Test
    void aLocalDoubleKeyWriteIsOfThePartitionOfEitherKey() {
        RowRef bid = new RowRef("BIDS", List.of(new Value.Int(151), new Value.Int(7)));
        List<Value> itemAndUser = List.of(new Value.Int(151), new Value.Int(227));
        Access storeBid = new Access(0, "storeBid", itemAndUser, itemAndUser, false, 0, 10, Set.of(), Set.of(bid));
        Access aboutTheBidder = access("aboutMe", 227, false, 20, 30, Set.of(bid), Set.of());
        Access aboutSomeoneElse = access("aboutMe", 300, false, 20, 30, Set.of(bid), Set.of());
        List<ReadFromChecker.Violation> v = ReadFromChecker.check(List.of(storeBid, aboutTheBidder, aboutSomeoneElse));
        assertThat(v).hasSize(1);
        assertThat(v.get(0).reader()).isSameAs(aboutSomeoneElse);
    }

    @Test
    void aWholeTableReadCoversEveryRowOfTheTable() {
        Access writer = access("order", 1, false, 0, 10, Set.of(), Set.of(ITEM_7));
        Access scan = access("report", 2, false, 20, 30, Set.of(RowRef.wholeTable("items")), Set.of());
        assertThat(ReadFromChecker.check(List.of(writer, scan))).hasSize(1);
    }
}
