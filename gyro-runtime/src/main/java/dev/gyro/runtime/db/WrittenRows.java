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

    /**
     * What a write's own RETURNING clause answers: {@code columns} ({@code *}: all of them) of the rows written, in
     * the order written.
     *
     * @throws SQLException (42703) when a column is not one of the written rows'
     */
    java.sql.ResultSet returned(List<String> columns) throws java.sql.SQLException {
        List<String> names = new ArrayList<>();
        List<Integer> at = new ArrayList<>();
        for (String c : columns) {
            if (c.equals("*")) {
                for (int i = 0; i < labels.size(); i++) {
                    names.add(labels.get(i));
                    at.add(i);
                }
                continue;
            }
            int i = indexOf(c);
            if (i < 0) throw new java.sql.SQLException("column \"" + c + "\" does not exist in the written rows", "42703");
            names.add(labels.get(i));
            at.add(i);
        }
        List<List<Object>> out = new ArrayList<>();
        for (List<Object> row : rows) {
            List<Object> picked = new ArrayList<>(at.size());
            for (int i : at) picked.add(row.get(i));
            out.add(picked);
        }
        return ListResultSet.of(names, out);
    }

    /** Index of the column labelled {@code name} (any case), or -1. */
    int indexOf(String name) {
        for (int i = 0; i < labels.size(); i++) if (labels.get(i).equalsIgnoreCase(name)) return i;
        return -1;
    }
}
