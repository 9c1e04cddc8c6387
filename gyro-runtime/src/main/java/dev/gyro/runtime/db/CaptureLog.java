package dev.gyro.runtime.db;

import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.Value;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The row changes of one captured transaction, in write order, with repeated writes of the same row folded
 * together where that cannot change the outcome of replaying them.
 *
 * <p>Replaying the full sequence of row images is always right: every change is an idempotent upsert or delete
 * by key, and the last one per key decides the row. Folding a later change of row {@code k} into the place of an
 * earlier one (last image wins; an insert then a delete becomes a delete) moves it ahead of the changes in
 * between. Among rows of other tables and among other rows of the same table that only matters for constraints
 * checked row by row: foreign keys are deferred to commit while updates are applied ({@link
 * Dialect#beforeApply}), CHECK and NOT NULL constraints look at one row, so what is left is UNIQUE constraints
 * besides the primary key. Hence: fold when the table has no such constraint, or when no other row of the same
 * table was written since; otherwise append. A change of a table without a key (APPEND, REMOVE) is never folded:
 * two equal rows are two rows, and the table's changes keep their order.
 */
final class CaptureLog {

    private record RowKey(String table, List<Value> key) {}

    private final List<RowChange> entries = new ArrayList<>();
    private final Map<RowKey, Integer> lastWriteOfRow = new HashMap<>();
    private final Map<String, Integer> lastWriteToTable = new HashMap<>();

    void add(RowChange change, boolean tableHasOtherUnique) {
        if (change.kind().keyless()) {
            entries.add(change);
            lastWriteToTable.put(change.table().toLowerCase(Locale.ROOT), entries.size() - 1);
            return;
        }
        String table = change.table().toLowerCase(Locale.ROOT);
        RowKey key = new RowKey(table, change.keyValues());
        Integer earlier = lastWriteOfRow.get(key);
        if (earlier != null && (!tableHasOtherUnique || earlier.equals(lastWriteToTable.get(table)))) {
            entries.set(earlier, change); // the later image (or the delete) replaces the earlier one in place
            return;
        }
        int index = entries.size();
        entries.add(change);
        lastWriteOfRow.put(key, index);
        lastWriteToTable.put(table, index);
    }

    List<RowChange> changes() {
        return List.copyOf(entries);
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }
}
