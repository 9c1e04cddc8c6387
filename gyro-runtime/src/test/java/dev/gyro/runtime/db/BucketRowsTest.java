package dev.gyro.runtime.db;

import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A receiver of a bucket move (docs/decisions/43-bucket-moves.md) on a real SQLite file: the copy replaces its stale
 * rows of the bucket, the cutover applies the catch-up, and a DELETE of a row it holds in another bucket is not
 * applied.
 */
class BucketRowsTest {

    @TempDir
    Path dir;

    static final List<String> LINE = List.of("CART_ID", "ITEM_ID", "QTY");
    static final List<String> KEY = List.of("CART_ID", "ITEM_ID");
    static final List<String> LOG = List.of("CART_ID", "TEXT");

    static RowChange line(long cart, long item, long qty) {
        return new RowChange("SHOPPING_CARTS", RowChange.Kind.UPSERT, LINE, values(cart, item, qty), KEY);
    }

    static RowChange delete(long cart, long item) {
        return new RowChange("SHOPPING_CARTS", RowChange.Kind.DELETE, KEY, values(cart, item), KEY);
    }

    static RowChange logged(long cart, String text) {
        return new RowChange("CART_LOG", RowChange.Kind.APPEND, LOG, List.of(new Value.Int(cart), new Value.Text(text)),
                List.of());
    }

    static List<Value> values(long... v) {
        List<Value> out = new ArrayList<>();
        for (long x : v) out.add(new Value.Int(x));
        return out;
    }

    @Test
    void theCopyReplacesTheReceiversRowsOfTheBucketAndTheCutoverAppliesTheCatchUpToThemOnly() throws Exception {
        Database db = Db.open(dir, "receiver.db");
        Db.exec(db, "CREATE TABLE SHOPPING_CARTS (CART_ID INTEGER NOT NULL, ITEM_ID INTEGER NOT NULL, QTY INTEGER NOT"
                + " NULL, PRIMARY KEY (CART_ID, ITEM_ID))", "CREATE TABLE CART_LOG (CART_ID INTEGER, TEXT TEXT)");
        db.inTransaction(false, c -> {
            try (Statement st = c.createStatement()) {
                BucketRows.createTable(st, db.dialect());
            }
            return null;
        });
        PartitionMap map = PartitionMap.uniform(3);
        long moving = 1, other = 2;
        while (map.bucketOf(new Value.Int(other)) == map.bucketOf(new Value.Int(moving))) other++;
        int bucket = map.bucketOf(new Value.Int(moving));
        // stale rows of the moving bucket here (an earlier owner's), and rows of another bucket
        Db.exec(db, "INSERT INTO SHOPPING_CARTS VALUES (" + moving + ", 1, 9)", "INSERT INTO SHOPPING_CARTS VALUES ("
                + other + ", 1, 1)", "INSERT INTO CART_LOG VALUES (" + moving + ", 'stale')");
        Map<String, String> tables = Map.of("SHOPPING_CARTS", "CART_ID", "CART_LOG", "CART_ID");

        List<RowChange> copy = new ArrayList<>(BucketRows.copyRows(new int[] {bucket}, 2, 1));
        copy.addAll(List.of(line(moving, 0, 0), line(moving, 5, 2)));
        StateUpdate copied = new StateUpdate(1, 0, copy);
        assertThat(BucketRows.copies(copied)).isTrue();
        assertThat(BucketRows.moves(copied)).isFalse();
        PartitionMap after = db.inTransaction(false, c -> BucketRows.applyAll(c, db.dialect(), db.tables(), tables,
                map, List.of(copied)));
        assertThat(after).as("a copy does not change the map").isEqualTo(map);
        assertThat(Db.dump(db, "SHOPPING_CARTS")).containsExactly(values(moving, 0, 0), values(moving, 5, 2),
                values(other, 1, 1));
        assertThat(Db.count(db, "CART_LOG")).isZero();
        assertThat(Db.count(db, BucketRows.COPY_TABLE)).isEqualTo(1);

        // a global request between the copy and the cutover; then the cutover: line 5 gone at the old owner, line 7
        // new, the log whole, and the DELETE of a row an update touched that is of another bucket here
        StateUpdate global = new StateUpdate(2, 1, List.of(logged(moving, "global")));
        PartitionMap newer = map.moved(new int[] {bucket}, 2, 2);
        List<RowChange> cut = new ArrayList<>(BucketRows.mapRows(newer, new int[] {bucket}, 3));
        cut.addAll(BucketRows.copiesDone(new int[] {bucket}));
        cut.addAll(List.of(delete(moving, 5), delete(other, 1), line(moving, 7, 1), logged(moving, "global")));
        StateUpdate cutOver = new StateUpdate(3, 0, cut);
        after = db.inTransaction(false, c -> BucketRows.applyAll(c, db.dialect(), db.tables(), tables, map,
                List.of(global, cutOver)));
        assertThat(after.ownerOfBucket(bucket)).isEqualTo(2);
        assertThat(after.version()).isEqualTo(2);
        assertThat(Db.dump(db, "SHOPPING_CARTS")).containsExactly(values(moving, 0, 0), values(moving, 7, 1),
                values(other, 1, 1));
        assertThat(Db.dump(db, "CART_LOG")).as("the table without a key, as the old owner has it: once")
                .containsExactly(List.of(new Value.Int(moving), new Value.Text("global")));
        assertThat(Db.count(db, BucketRows.COPY_TABLE)).isZero();
    }
}
