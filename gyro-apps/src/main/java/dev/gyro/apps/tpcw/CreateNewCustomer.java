package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;

/**
 * Buy Request of a new customer: enters the address, then the customer with the next free id, a user name made of
 * its digits' syllables, a random discount of 0-50% and a two-hour session. Returns (customer id, user name).
 */
public final class CreateNewCustomer implements Transaction {

    static final String NEXT_ID = "SELECT COALESCE(MAX(C_ID), 0) + 1 FROM CUSTOMER";
    static final String INSERT_CUSTOMER = "INSERT INTO CUSTOMER (C_ID, C_UNAME, C_PASSWD, C_FNAME, C_LNAME, C_ADDR_ID, "
            + "C_PHONE, C_EMAIL, C_SINCE, C_LAST_LOGIN, C_LOGIN, C_EXPIRATION, C_DISCOUNT_BP, C_BALANCE, C_YTD_PMT, "
            + "C_BIRTHDATE, C_DATA) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?)";

    public List<Object> run(TxContext ctx, String firstName, String lastName, String street1, String street2,
                            String city, String state, String zip, int countryId, String phone, String email,
                            long birthdate, String data) throws SQLException {
        Connection c = ctx.connection();
        long addressId = Addresses.enter(c, street1, street2, city, state, zip, countryId);
        long id;
        try (PreparedStatement ps = c.prepareStatement(NEXT_ID); ResultSet rs = ps.executeQuery()) {
            rs.next();
            id = rs.getLong(1);
        }
        String uname = TpcwData.userName(id);
        try (PreparedStatement ps = c.prepareStatement(INSERT_CUSTOMER)) {
            ps.setLong(1, id);
            ps.setString(2, uname);
            ps.setString(3, uname.toLowerCase(Locale.ROOT));
            ps.setString(4, firstName);
            ps.setString(5, lastName);
            ps.setLong(6, addressId);
            ps.setString(7, phone);
            ps.setString(8, email);
            ps.setLong(9, ctx.now());
            ps.setLong(10, ctx.now());
            ps.setLong(11, ctx.now());
            ps.setLong(12, ctx.now() + 2 * 3_600_000L);
            ps.setInt(13, ctx.random().nextInt(51) * 100);
            ps.setLong(14, birthdate);
            ps.setString(15, data);
            ps.executeUpdate();
        }
        return List.of(id, uname);
    }
}
