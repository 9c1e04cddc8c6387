package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** Buy Request: the cart's lines with title and price. Read-only. Rows of (item id, title, cost, quantity). */
public final class GetCart implements Transaction {

    static final String LINES = "SELECT SCL.SCL_I_ID, I.I_TITLE, I.I_COST, SCL.SCL_QTY FROM SHOPPING_CART_LINE SCL, "
            + "ITEM I WHERE SCL.SCL_SC_ID = ? AND I.I_ID = SCL.SCL_I_ID ORDER BY SCL.SCL_I_ID";

    public List<Object> run(TxContext ctx, long shoppingId) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(LINES)) {
            ps.setLong(1, shoppingId);
            try (ResultSet rs = ps.executeQuery()) {
                return Rows.all(rs, 4);
            }
        }
    }
}
