package dev.gyro.apps.store;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * addItem(cart_id, item_id, order_qty) of the paper: checks in ITEMS that the item is in stock, then adds it to
 * the cart. Local: it writes only its own cart's rows; it reads ITEMS, which order writes, so it is order that
 * must be global (Fig. 2: "addItem for cart 1 reads from order for cart 2").
 */
public final class AddItem implements Transaction {

    static final String SELECT_STOCK = "SELECT STOCK FROM ITEMS WHERE I_ID = ?";
    static final String SELECT_CART = "SELECT QTY FROM SHOPPING_CARTS WHERE CART_ID = ? AND ITEM_ID = 0";
    static final String SELECT_ORDER = "SELECT O_ID FROM ORDERS WHERE CART_ID = ?";
    static final String ADD_TO_LINE = "UPDATE SHOPPING_CARTS SET QTY = QTY + ? WHERE CART_ID = ? AND ITEM_ID = ?";
    static final String INSERT_LINE = "INSERT INTO SHOPPING_CARTS (CART_ID, ITEM_ID, QTY) VALUES (?, ?, ?)";

    public long run(TxContext ctx, long cartId, long itemId, int qty) throws SQLException {
        if (qty <= 0) throw new UserAbort("quantity must be positive, was " + qty);
        if (itemId <= 0) throw new UserAbort("no item " + itemId);
        Connection c = ctx.connection();
        try (PreparedStatement ps = c.prepareStatement(SELECT_STOCK)) {
            ps.setLong(1, itemId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no item " + itemId);
                if (rs.getLong(1) < qty) throw new UserAbort("item " + itemId + " has only " + rs.getLong(1) + " in stock");
            }
        }
        try (PreparedStatement ps = c.prepareStatement(SELECT_CART)) {
            ps.setLong(1, cartId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no cart " + cartId);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(SELECT_ORDER)) {
            ps.setLong(1, cartId);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) throw new UserAbort("cart " + cartId + " is already ordered");
            }
        }
        int updated;
        try (PreparedStatement ps = c.prepareStatement(ADD_TO_LINE)) {
            ps.setInt(1, qty);
            ps.setLong(2, cartId);
            ps.setLong(3, itemId);
            updated = ps.executeUpdate();
        }
        if (updated == 0) {
            try (PreparedStatement ps = c.prepareStatement(INSERT_LINE)) {
                ps.setLong(1, cartId);
                ps.setLong(2, itemId);
                ps.setInt(3, qty);
                ps.executeUpdate();
            }
        }
        return qty;
    }
}
