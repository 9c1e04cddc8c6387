package dev.gyro.runtime.db;

import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The catch-up of a bucket move (docs/decisions/43-bucket-moves.md): what the cutover ships against what the copy
 * shipped, given the updates every instance applied between the two.
 */
class BucketCopyTest {

    static final List<String> COLUMNS = List.of("CART_ID", "ITEM_ID", "QTY");
    static final List<String> KEY = List.of("CART_ID", "ITEM_ID");

    static RowChange line(long cart, long item, long qty) {
        return new RowChange("SHOPPING_CARTS", RowChange.Kind.UPSERT, COLUMNS,
                List.of(new Value.Int(cart), new Value.Int(item), new Value.Int(qty)), KEY);
    }

    static RowChange delete(long cart, long item) {
        return new RowChange("SHOPPING_CARTS", RowChange.Kind.DELETE, KEY, List.of(new Value.Int(cart),
                new Value.Int(item)), KEY);
    }

    static RowChange logged(String text) {
        return new RowChange("CART_LOG", RowChange.Kind.APPEND, List.of("CART_ID", "TEXT"),
                List.of(new Value.Int(1), new Value.Text(text)), List.of());
    }

    static BucketCopy shipped(RowChange... images) {
        BucketCopy copy = new BucketCopy(Set.of("SHOPPING_CARTS", "CART_LOG"));
        copy.ship(BucketCopy.copied(List.of(images)));
        return copy;
    }

    @Test
    void nothingChangedShipsNothingButTheTablesWithoutAKey() {
        BucketCopy copy = shipped(line(1, 0, 0), line(1, 5, 2), logged("created"));
        assertThat(copy.rows()).as("a table without a key is not copied").isEqualTo(2);
        assertThat(copy.catchUp(List.of(line(1, 0, 0), line(1, 5, 2), logged("created"))))
                .containsExactly(logged("created"));
    }

    @Test
    void aRowNewChangedOrGoneSinceTheCopyGoesAgainTheOthersDoNot() {
        BucketCopy copy = shipped(line(1, 0, 0), line(1, 5, 2), line(1, 6, 1), line(2, 0, 0));
        List<RowChange> now = List.of(line(1, 0, 0), line(1, 5, 3), line(1, 7, 1), line(2, 0, 0));
        assertThat(copy.catchUp(now)).containsExactly(delete(1, 6), line(1, 5, 3), line(1, 7, 1));
    }

    @Test
    void aRowAnUpdateTouchedGoesAgainEvenWhereALocalWriteTookItBackToTheCopy() {
        BucketCopy copy = shipped(line(1, 0, 0), line(1, 5, 2));
        // a global request deleted line 5 and wrote line 9 everywhere; then the old owner's local requests wrote line 5
        // back as the copy had it, and deleted line 9: the receivers hold neither
        StateUpdate global = new StateUpdate(7, 1, List.of(
                new RowChange("shopping_carts", RowChange.Kind.DELETE, List.of("item_id", "cart_id"),
                        List.of(new Value.Int(5), new Value.Int(1)), List.of("item_id", "cart_id")),
                line(1, 9, 4),
                new RowChange("ITEMS", RowChange.Kind.UPSERT, List.of("I_ID", "STOCK"),
                        List.of(new Value.Int(5), new Value.Int(10)), List.of("I_ID"))));
        copy.touched(global);
        List<RowChange> out = copy.catchUp(List.of(line(1, 0, 0), line(1, 5, 2)));
        assertThat(out).containsExactly(delete(1, 9), line(1, 5, 2));
        assertThat(out).noneMatch(c -> c.table().equals("ITEMS")); // not a partitioned table
    }

    @Test
    void theDigestTellsValuesOfEveryKindApart() {
        assertThat(BucketCopy.digest(List.of(new Value.Int(1), new Value.Text("a"))))
                .isEqualTo(BucketCopy.digest(List.of(new Value.Int(1), new Value.Text("a"))))
                .isNotEqualTo(BucketCopy.digest(List.of(new Value.Int(1), new Value.Text("b"))))
                .isNotEqualTo(BucketCopy.digest(List.of(new Value.Text("a"), new Value.Int(1))))
                .isNotEqualTo(BucketCopy.digest(List.of(new Value.Int(1), Value.NULL)));
        assertThat(BucketCopy.digest(List.of(new Value.Real(1.0)))).isNotEqualTo(BucketCopy.digest(
                List.of(new Value.Int(1))));
        assertThat(BucketCopy.digest(List.of(new Value.Blob(new byte[] {1, 2})))).isNotEqualTo(BucketCopy.digest(
                List.of(new Value.Blob(new byte[] {2, 1}))));
    }
}
