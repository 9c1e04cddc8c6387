package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Order Display and Buy Request: the password to check a login against, by user name. Read-only. */
public final class GetPassword implements Transaction {

    static final String SELECT_PASSWORD = "SELECT C_PASSWD FROM CUSTOMER WHERE C_UNAME = ?";

    public String run(TxContext ctx, String uname) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(SELECT_PASSWORD)) {
            ps.setString(1, uname);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no customer " + uname);
                return rs.getString(1);
            }
        }
    }
}
