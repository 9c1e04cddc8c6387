package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Order Inquiry: the user name to fill in, by customer id. Read-only. */
public final class GetUserName implements Transaction {

    static final String SELECT_UNAME = "SELECT C_UNAME FROM CUSTOMER WHERE C_ID = ?";

    public String run(TxContext ctx, long customerId) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(SELECT_UNAME)) {
            ps.setLong(1, customerId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no customer " + customerId);
                return rs.getString(1);
            }
        }
    }
}
