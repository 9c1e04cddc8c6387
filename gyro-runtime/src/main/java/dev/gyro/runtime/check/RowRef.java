package dev.gyro.runtime.check;

import dev.gyro.protocol.Value;

import java.util.List;

/**
 * One row by table and primary key, or (key null) "some rows of this table": a read the recorder could not pin
 * down to keys is conservatively a read of the whole table.
 */
public record RowRef(String table, List<Value> key) {
    public RowRef {
        table = table.toUpperCase(java.util.Locale.ROOT);
        key = key == null ? null : List.copyOf(key);
    }

    public static RowRef wholeTable(String table) {
        return new RowRef(table, null);
    }

    public boolean wholeTable() {
        return key == null;
    }

    /** Whether a read of this reference may have seen the written row {@code written}. */
    public boolean covers(RowRef written) {
        return table.equals(written.table) && (key == null || written.key == null || key.equals(written.key));
    }

    @Override
    public String toString() {
        return table + (key == null ? "(any row)" : key.toString().replace('[', '(').replace(']', ')'));
    }
}
