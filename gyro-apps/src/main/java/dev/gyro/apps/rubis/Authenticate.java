package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** The login behind Put Bid, Buy Now, Put Comment and About Me: the id of a nickname and password. Read-only. */
public final class Authenticate implements Transaction {

    static final String LOGIN = "SELECT U_ID FROM USERS WHERE U_NICKNAME = ? AND U_PASSWORD = ?";

    public long run(TxContext ctx, String nickname, String password) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(LOGIN)) {
            ps.setString(1, nickname);
            ps.setString(2, password);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("wrong nickname or password for " + nickname);
                return rs.getLong(1);
            }
        }
    }
}
