package dev.gyro.apps.tpcc;

import dev.gyro.app.UserAbort;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Finding the customer of a Payment or Order-Status: by number, or by last name (clause 2.5.2.2). */
final class Customers {

    static final String BY_LAST_NAME = "SELECT C_ID FROM CUSTOMER WHERE C_W_ID = ? AND C_D_ID = ? AND C_LAST = ? "
            + "ORDER BY C_FIRST, C_ID";

    private Customers() {}

    /**
     * @param customer the customer number, or 0 to look up {@code lastName}: then the customer in the middle (rounded
     *                 up) of those with that name, sorted by first name
     */
    static int find(Connection c, int warehouse, int district, int customer, String lastName) throws SQLException {
        if (customer > 0) return customer;
        List<Integer> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(BY_LAST_NAME)) {
            ps.setInt(1, warehouse);
            ps.setInt(2, district);
            ps.setString(3, lastName);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) ids.add(rs.getInt(1));
            }
        }
        if (ids.isEmpty()) throw new UserAbort("no customer named " + lastName + " in district " + district
                + " of warehouse " + warehouse);
        return ids.get((ids.size() - 1) / 2 + (ids.size() % 2 == 0 ? 1 : 0));
    }
}
