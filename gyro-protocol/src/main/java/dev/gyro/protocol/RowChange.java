package dev.gyro.protocol;

import java.util.List;

/**
 * One row written by a global request, as a row image (docs/decisions/04-row-images.md): not the statement that
 * wrote it, but the row's key and its values afterwards. An UPSERT writes exactly these values under this key, a
 * DELETE removes the row with this key; both are idempotent. A table without a primary key is a multiset of rows: an
 * APPEND inserts one row with these values, a REMOVE deletes one row equal to these values in every column (an
 * UPDATE there is the REMOVE of each row as it was and the APPEND of each row as it became). Both carry the whole row
 * and no key columns, and are applied once (exactly-once by the recorded position, docs/decisions/05-exactly-once.md,
 * not by idempotence).
 *
 * @param table      the table name as the application wrote it
 * @param kind       what happened to the row
 * @param columns    column names; for DELETE only the key columns
 * @param values     one value per column
 * @param keyColumns the primary-key columns (a subset of {@code columns}); empty for, and only for, an APPEND or a
 *                   REMOVE
 */
public record RowChange(String table, Kind kind, List<String> columns, List<Value> values, List<String> keyColumns) {

    public enum Kind {
        UPSERT, DELETE, APPEND, REMOVE;

        /** A change of a table without a primary key: the whole row, no key. */
        public boolean keyless() {
            return this == APPEND || this == REMOVE;
        }
    }

    public RowChange {
        columns = List.copyOf(columns);
        values = List.copyOf(values);
        keyColumns = List.copyOf(keyColumns);
        if (table == null || table.isEmpty()) throw new IllegalArgumentException("row change without a table");
        if (columns.size() != values.size())
            throw new IllegalArgumentException("row change on " + table + ": " + columns.size() + " columns but "
                    + values.size() + " values");
        if (kind == null) throw new IllegalArgumentException("row change on " + table + " has no kind");
        if (kind.keyless() && !keyColumns.isEmpty())
            throw new IllegalArgumentException("row change on " + table + ": an " + kind + " has no key columns");
        if (!kind.keyless() && keyColumns.isEmpty())
            throw new IllegalArgumentException("row change on " + table + " has no key columns");
        for (String k : keyColumns)
            if (!columns.contains(k))
                throw new IllegalArgumentException("row change on " + table + ": key column " + k + " has no value");
    }

    public Value value(String column) {
        int i = columns.indexOf(column);
        if (i < 0) throw new IllegalArgumentException("row change on " + table + " has no column " + column);
        return values.get(i);
    }

    public List<Value> keyValues() {
        return keyColumns.stream().map(this::value).toList();
    }

    /**
     * What tells this row from others of its table: its key values, or in a table without a key (APPEND, REMOVE) all
     * its values, so two such rows are one only when they are equal in every column.
     */
    public List<Value> identity() {
        return kind.keyless() ? values : keyValues();
    }
}
