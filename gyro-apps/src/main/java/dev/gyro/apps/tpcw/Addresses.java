package dev.gyro.apps.tpcw;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The specification's "enter address" step: reuse an identical address, or add it with the next free id. */
final class Addresses {

    static final String FIND = "SELECT ADDR_ID FROM ADDRESS WHERE ADDR_ZIP = ? AND ADDR_STREET1 = ? AND "
            + "ADDR_STREET2 = ? AND ADDR_CITY = ? AND ADDR_STATE = ? AND ADDR_CO_ID = ? ORDER BY ADDR_ID";
    static final String NEXT_ID = "SELECT COALESCE(MAX(ADDR_ID), 0) + 1 FROM ADDRESS";
    static final String INSERT = "INSERT INTO ADDRESS (ADDR_ID, ADDR_STREET1, ADDR_STREET2, ADDR_CITY, ADDR_STATE, "
            + "ADDR_ZIP, ADDR_CO_ID) VALUES (?, ?, ?, ?, ?, ?, ?)";
    static final String COUNTRY_EXISTS = "SELECT CO_ID FROM COUNTRY WHERE CO_ID = ?";

    private Addresses() {}

    static long enter(Connection c, String street1, String street2, String city, String state, String zip,
                      int countryId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(COUNTRY_EXISTS)) {
            ps.setInt(1, countryId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new dev.gyro.app.UserAbort("no country " + countryId);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(FIND)) {
            ps.setString(1, zip);
            ps.setString(2, street1);
            ps.setString(3, street2);
            ps.setString(4, city);
            ps.setString(5, state);
            ps.setInt(6, countryId);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) return rs.getLong(1);
            }
        }
        long id;
        try (PreparedStatement ps = c.prepareStatement(NEXT_ID); ResultSet rs = ps.executeQuery()) {
            rs.next();
            id = rs.getLong(1);
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT)) {
            ps.setLong(1, id);
            ps.setString(2, street1);
            ps.setString(3, street2);
            ps.setString(4, city);
            ps.setString(5, state);
            ps.setString(6, zip);
            ps.setInt(7, countryId);
            ps.executeUpdate();
        }
        return id;
    }
}
