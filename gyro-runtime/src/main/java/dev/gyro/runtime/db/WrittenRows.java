package dev.gyro.runtime.db;

import java.util.ArrayList;
import java.util.List;

/**
 * The rows one captured write wrote, with every column the capture read back (RETURNING or a keyed re-read):
 * what {@link Dialect#generatedKeys} derives the application's generated keys from.
 *
 * @param table  the written table (null when nothing was written yet)
 * @param labels the column labels, in result order
 * @param rows   one list of values per written row, in {@code labels} order, as the driver returned them
 */
public record WrittenRows(TableInfo table, List<String> labels, List<List<Object>> rows) {

    public WrittenRows {
        labels = List.copyOf(labels);
        rows = List.copyOf(rows);
    }

    public static WrittenRows none() {
        return new WrittenRows(null, List.of(), List.of());
    }

    /** These rows followed by {@code more}'s (a batch). */
    WrittenRows plus(WrittenRows more) {
        if (table == null) return more;
        if (more.table == null) return this;
        List<List<Object>> all = new ArrayList<>(rows);
        all.addAll(more.rows);
        return new WrittenRows(table, labels, all);
    }

    /** Index of the column labelled {@code name} (any case), or -1. */
    int indexOf(String name) {
        for (int i = 0; i < labels.size(); i++) if (labels.get(i).equalsIgnoreCase(name)) return i;
        return -1;
    }
}
