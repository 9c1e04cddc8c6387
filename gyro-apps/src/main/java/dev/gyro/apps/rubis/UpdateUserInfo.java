package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * A user changes their e-mail address and password. Global: authenticate reads the password by nickname, at any
 * instance. Runs at the user's instance, where the row's rating is current.
 */
public final class UpdateUserInfo implements Transaction {

    static final String UPDATE_USER = "UPDATE USERS SET U_EMAIL = ?, U_PASSWORD = ? WHERE U_ID = ?";

    public long run(TxContext ctx, long userId, String email, String password) throws SQLException {
        if (password.isEmpty()) throw new UserAbort("the password must not be empty");
        try (PreparedStatement ps = ctx.connection().prepareStatement(UPDATE_USER)) {
            ps.setString(1, email);
            ps.setString(2, password);
            ps.setLong(3, userId);
            if (ps.executeUpdate() == 0) throw new UserAbort("no user " + userId);
        }
        return userId;
    }
}
