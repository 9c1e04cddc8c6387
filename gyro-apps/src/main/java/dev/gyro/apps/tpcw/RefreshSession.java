package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/** Buy Request of a returning customer: records the login and extends the session by two hours. */
public final class RefreshSession implements Transaction {

    static final String REFRESH = "UPDATE CUSTOMER SET C_LOGIN = ?, C_EXPIRATION = ? WHERE C_ID = ?";

    public long run(TxContext ctx, long customerId) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(REFRESH)) {
            ps.setLong(1, ctx.now());
            ps.setLong(2, ctx.now() + 2 * 3_600_000L);
            ps.setLong(3, customerId);
            if (ps.executeUpdate() == 0) throw new UserAbort("no customer " + customerId);
        }
        return customerId;
    }
}
