package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;
import dev.gyro.apps.Rows;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * Shopping Cart: sets the quantity of one book in the cart ({@code qty} 0 removes it; {@code itemId} 0 changes
 * nothing), then, as the specification asks, puts a random book in a cart left empty, and touches the cart's time.
 * Returns rows of (item id, quantity).
 */
public final class DoCart implements Transaction {

    public static final int MAX_QTY = 10;

    static final String TOUCH_CART = "UPDATE SHOPPING_CART SET SC_TIME = ? WHERE SC_ID = ?";
    static final String ITEM_EXISTS = "SELECT I_ID FROM ITEM WHERE I_ID = ?";
    static final String SET_QTY = "UPDATE SHOPPING_CART_LINE SET SCL_QTY = ? WHERE SCL_SC_ID = ? AND SCL_I_ID = ?";
    static final String INSERT_LINE = "INSERT INTO SHOPPING_CART_LINE (SCL_SC_ID, SCL_I_ID, SCL_QTY) VALUES (?, ?, ?)";
    static final String REMOVE_LINE = "DELETE FROM SHOPPING_CART_LINE WHERE SCL_SC_ID = ? AND SCL_I_ID = ?";
    static final String COUNT_LINES = "SELECT COUNT(*) FROM SHOPPING_CART_LINE WHERE SCL_SC_ID = ?";
    static final String MAX_ITEM = "SELECT MAX(I_ID) FROM ITEM";
    static final String LINES = "SELECT SCL_I_ID, SCL_QTY FROM SHOPPING_CART_LINE WHERE SCL_SC_ID = ? ORDER BY SCL_I_ID";

    public List<Object> run(TxContext ctx, long shoppingId, long itemId, int qty) throws SQLException {
        if (qty < 0 || qty > MAX_QTY) throw new UserAbort("quantity must be between 0 and " + MAX_QTY + ", was " + qty);
        Connection c = ctx.connection();
        try (PreparedStatement ps = c.prepareStatement(TOUCH_CART)) {
            ps.setLong(1, ctx.now());
            ps.setLong(2, shoppingId);
            if (ps.executeUpdate() == 0) throw new UserAbort("no shopping cart " + shoppingId);
        }
        if (itemId > 0 && qty == 0) {
            try (PreparedStatement ps = c.prepareStatement(REMOVE_LINE)) {
                ps.setLong(1, shoppingId);
                ps.setLong(2, itemId);
                ps.executeUpdate();
            }
        } else if (itemId > 0) {
            try (PreparedStatement ps = c.prepareStatement(ITEM_EXISTS)) {
                ps.setLong(1, itemId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) throw new UserAbort("no book " + itemId);
                }
            }
            setLine(c, shoppingId, itemId, qty);
        }
        long lines;
        try (PreparedStatement ps = c.prepareStatement(COUNT_LINES)) {
            ps.setLong(1, shoppingId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                lines = rs.getLong(1);
            }
        }
        if (lines == 0) {
            long maxItem;
            try (PreparedStatement ps = c.prepareStatement(MAX_ITEM); ResultSet rs = ps.executeQuery()) {
                rs.next();
                maxItem = rs.getLong(1);
            }
            setLine(c, shoppingId, 1 + ctx.random().nextLong(maxItem), 1);
        }
        try (PreparedStatement ps = c.prepareStatement(LINES)) {
            ps.setLong(1, shoppingId);
            try (ResultSet rs = ps.executeQuery()) {
                return Rows.all(rs, 2);
            }
        }
    }

    private static void setLine(Connection c, long shoppingId, long itemId, int qty) throws SQLException {
        int updated;
        try (PreparedStatement ps = c.prepareStatement(SET_QTY)) {
            ps.setInt(1, qty);
            ps.setLong(2, shoppingId);
            ps.setLong(3, itemId);
            updated = ps.executeUpdate();
        }
        if (updated == 0) {
            try (PreparedStatement ps = c.prepareStatement(INSERT_LINE)) {
                ps.setLong(1, shoppingId);
                ps.setLong(2, itemId);
                ps.setInt(3, qty);
                ps.executeUpdate();
            }
        }
    }
}
