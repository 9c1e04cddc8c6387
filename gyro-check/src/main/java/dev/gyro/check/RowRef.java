package dev.gyro.check;

import dev.gyro.protocol.Value;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Columns of one row, by table and primary key. A null key means "some rows of this table" (a read the recorder
 * could not pin down to keys is conservatively a read of every row); null columns mean every column (an insert or a
 * delete writes the whole row). Columns matter because the paper's read and write sets are sets of attributes
 * (Section VI): a request that reads an item's name does not read from one that changed its bid count.
 */
public record RowRef(String table, List<Value> key, Set<String> columns) {

    public RowRef {
        table = table.toUpperCase(Locale.ROOT);
        key = key == null ? null : List.copyOf(key);
        if (columns != null) {
            Set<String> upper = new TreeSet<>();
            for (String c : columns) upper.add(c.toUpperCase(Locale.ROOT));
            columns = Set.copyOf(upper);
        }
    }

    public RowRef(String table, List<Value> key) {
        this(table, key, null);
    }

    public static RowRef wholeTable(String table) {
        return new RowRef(table, null, null);
    }

    public boolean wholeTable() {
        return key == null;
    }

    /** Whether a read of this reference may have seen what {@code written} wrote. */
    public boolean covers(RowRef written) {
        if (!table.equals(written.table)) return false;
        if (key != null && written.key != null && !key.equals(written.key)) return false;
        if (columns == null || written.columns == null) return true;
        for (String c : columns) if (written.columns.contains(c)) return true;
        return false;
    }

    @Override
    public String toString() {
        return table + (key == null ? "(any row)" : key.toString().replace('[', '(').replace(']', ')'))
                + (columns == null ? "" : "." + columns.toString().replace('[', '{').replace(']', '}').replace(" ", ""));
    }
}
