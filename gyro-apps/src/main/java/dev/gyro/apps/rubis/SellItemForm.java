package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** Sell Item Form: the chosen category's name and the seller's nickname. Read-only. */
public final class SellItemForm implements Transaction {

    static final String FORM = "SELECT CA.CA_NAME, U.U_NICKNAME FROM CATEGORIES CA, USERS U WHERE CA.CA_ID = ? AND U.U_ID = ?";

    public List<Object> run(TxContext ctx, int categoryId, long userId) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(FORM)) {
            ps.setInt(1, categoryId);
            ps.setLong(2, userId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no category " + categoryId + " or no user " + userId);
                return Rows.current(rs, 2);
            }
        }
    }
}
