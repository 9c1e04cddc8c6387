package dev.gyro.apps.store;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/** createCart(cart_id) of the paper (Section IV): a new cart, as its header row (ITEM_ID 0). Local. */
public final class CreateCart implements Transaction {

    static final String INSERT_CART = "INSERT INTO SHOPPING_CARTS (CART_ID, ITEM_ID, QTY) VALUES (?, 0, 0)";

    public long run(TxContext ctx, long cartId) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(INSERT_CART)) {
            ps.setLong(1, cartId);
            ps.executeUpdate();
        }
        return cartId;
    }
}
