package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Register User: a new user with the next id from IDS, if the nickname is free. Returns the new id. Global: the
 * nickname check reads every user, and every partition reads users' names.
 */
public final class RegisterUser implements Transaction {

    static final String NICKNAME_TAKEN = "SELECT U_ID FROM USERS WHERE U_NICKNAME = ?";
    static final String REGION = "SELECT R_ID FROM REGIONS WHERE R_ID = ?";
    static final String NEXT_ID = "SELECT ID_NEXT FROM IDS WHERE ID_NAME = 'USERS'";
    static final String TAKE_ID = "UPDATE IDS SET ID_NEXT = ? WHERE ID_NAME = 'USERS'";
    static final String INSERT_USER = "INSERT INTO USERS (U_ID, U_FIRSTNAME, U_LASTNAME, U_NICKNAME, U_PASSWORD, U_EMAIL, "
            + "U_RATING, U_BALANCE, U_CREATION_DATE, U_REGION) VALUES (?, ?, ?, ?, ?, ?, 0, 0, ?, ?)";

    public long run(TxContext ctx, String firstName, String lastName, String nickname, String password, String email,
                    int regionId) throws SQLException {
        Connection c = ctx.connection();
        try (PreparedStatement ps = c.prepareStatement(NICKNAME_TAKEN)) {
            ps.setString(1, nickname);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) throw new UserAbort("nickname " + nickname + " is taken");
            }
        }
        try (PreparedStatement ps = c.prepareStatement(REGION)) {
            ps.setInt(1, regionId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no region " + regionId);
            }
        }
        long id;
        try (PreparedStatement ps = c.prepareStatement(NEXT_ID); ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) throw new SQLException("IDS has no USERS counter");
            id = rs.getLong(1);
        }
        try (PreparedStatement ps = c.prepareStatement(TAKE_ID)) {
            ps.setLong(1, id + 1);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_USER)) {
            ps.setLong(1, id);
            ps.setString(2, firstName);
            ps.setString(3, lastName);
            ps.setString(4, nickname);
            ps.setString(5, password);
            ps.setString(6, email);
            ps.setLong(7, ctx.now());
            ps.setInt(8, regionId);
            ps.executeUpdate();
        }
        return id;
    }
}
