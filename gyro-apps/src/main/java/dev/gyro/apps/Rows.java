package dev.gyro.apps;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Turns query results into a transaction's reply: rows flattened column by column into one list of values. */
public final class Rows {

    private Rows() {}

    /** Every remaining row of {@code rs}, its first {@code columns} columns each, one after the other. */
    public static List<Object> all(ResultSet rs, int columns) throws SQLException {
        List<Object> out = new ArrayList<>();
        while (rs.next()) for (int i = 1; i <= columns; i++) out.add(plain(rs.getObject(i)));
        return out;
    }

    /** The current row's first {@code columns} columns. */
    public static List<Object> current(ResultSet rs, int columns) throws SQLException {
        List<Object> out = new ArrayList<>(columns);
        for (int i = 1; i <= columns; i++) out.add(plain(rs.getObject(i)));
        return out;
    }

    /** JDBC drivers disagree on the Java type of an integer column (Integer, Long, BigDecimal): make it Long. */
    private static Object plain(Object o) {
        if (o instanceof Integer i) return i.longValue();
        if (o instanceof Short s) return s.longValue();
        if (o instanceof java.math.BigDecimal d) {
            try {
                return d.longValueExact();
            } catch (ArithmeticException e) {
                return d.doubleValue();
            }
        }
        return o;
    }
}
