package dev.gyro.apps.store;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** The cart's lines as item, quantity pairs. Read-only and local. */
public final class GetCart implements Transaction {

    static final String SELECT_LINES = "SELECT ITEM_ID, QTY FROM SHOPPING_CARTS WHERE CART_ID = ? ORDER BY ITEM_ID";

    public List<Long> run(TxContext ctx, long cartId) throws SQLException {
        List<Long> out = new ArrayList<>();
        try (PreparedStatement ps = ctx.connection().prepareStatement(SELECT_LINES)) {
            ps.setLong(1, cartId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (rs.getLong(1) == 0) continue; // the cart's header row
                    out.add(rs.getLong(1));
                    out.add(rs.getLong(2));
                }
            }
        }
        return out;
    }
}
