package dev.gyro.runtime.db;

import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.Value;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Every row of a table, read as its columns' values, and a row's image as a state update carries it: what a bucket
 * move ships (docs/decisions/43-bucket-moves.md) and what a joining instance's copy writes
 * (docs/decisions/44-ring-changes.md).
 */
final class TableRows {

    /** Rows fetched at a time: PostgreSQL streams a large table in a transaction instead of reading it whole. */
    static final int FETCH = 1_000;

    /** Takes one row's values, in {@link TableInfo#columns()} order. */
    @FunctionalInterface
    interface Row {
        void accept(List<Value> values) throws SQLException;
    }

    private TableRows() {}

    /** Reads every row of {@code info}'s table on {@code c}, giving each to {@code row}. */
    static void scan(Connection c, Dialect d, TableInfo info, Row row) throws SQLException {
        List<String> columns = info.columns();
        StringBuilder select = new StringBuilder("SELECT ");
        for (int i = 0; i < columns.size(); i++) select.append(i == 0 ? "" : ", ").append(d.quote(columns.get(i)));
        select.append(" FROM ").append(d.quote(info.name()));
        try (PreparedStatement ps = c.prepareStatement(select.toString())) {
            ps.setFetchSize(FETCH);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    List<Value> values = new ArrayList<>(columns.size());
                    for (int i = 1; i <= columns.size(); i++) values.add(d.toValue(rs.getObject(i)));
                    row.accept(values);
                }
            }
        }
    }

    /** The image of a row of {@code info}'s table: an UPSERT by its key, or an APPEND in a table without one. */
    static RowChange image(TableInfo info, List<Value> values) {
        return info.hasPrimaryKey()
                ? new RowChange(info.name(), RowChange.Kind.UPSERT, info.columns(), values, info.keyColumns())
                : new RowChange(info.name(), RowChange.Kind.APPEND, info.columns(), values, List.of());
    }
}
