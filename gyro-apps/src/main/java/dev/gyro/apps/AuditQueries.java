package dev.gyro.apps;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The shape of most audit conditions: a query that lists offending rows. {@link #violations} runs it on one
 * instance and words what it found, naming the first few rows.
 */
public final class AuditQueries {

    private AuditQueries() {}

    private static final int NAMED = 3;

    /**
     * @param instance  the instance's number, for the message
     * @param condition what must hold, e.g. "every order line has its order"
     * @param sql       selects the offending rows; each row is named by its columns
     * @param columns   the columns' names, to word a row as {@code (O_ID=5, OL_ID=2)}
     */
    public static List<String> violations(Connection c, int instance, String condition, String sql, String... columns)
            throws SQLException {
        List<String> rows = new ArrayList<>();
        long count = 0;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                if (count++ < NAMED) {
                    List<String> parts = new ArrayList<>();
                    for (int i = 0; i < columns.length; i++) parts.add(columns[i] + "=" + rs.getObject(i + 1));
                    rows.add("(" + String.join(", ", parts) + ")");
                }
            }
        }
        if (count == 0) return List.of();
        return List.of("instance " + instance + ": violated: " + condition + ": " + count + " row(s), e.g. "
                + String.join(" ", rows));
    }
}
