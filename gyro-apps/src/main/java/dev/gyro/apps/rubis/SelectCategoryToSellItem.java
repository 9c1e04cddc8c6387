package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** Select Category to Sell Item: the categories, for a known user. Read-only. Rows of (id, name). */
public final class SelectCategoryToSellItem implements Transaction {

    static final String USER = "SELECT U_ID FROM USERS WHERE U_ID = ?";
    static final String CATEGORIES = "SELECT CA_ID, CA_NAME FROM CATEGORIES ORDER BY CA_ID";

    public List<Object> run(TxContext ctx, long userId) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(USER)) {
            ps.setLong(1, userId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no user " + userId);
            }
        }
        try (PreparedStatement ps = ctx.connection().prepareStatement(CATEGORIES); ResultSet rs = ps.executeQuery()) {
            return Rows.all(rs, 2);
        }
    }
}
