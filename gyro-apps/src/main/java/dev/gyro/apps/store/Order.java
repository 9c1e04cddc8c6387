package dev.gyro.apps.store;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * order(cart_id) of the paper: checks out a cart after verifying in ITEMS that all its items are in stock, and
 * takes them from stock. Global: it writes ITEMS rows that addItem requests of every other partition read.
 * If any item is short, the whole order rolls back and ships no state update.
 */
public final class Order implements Transaction {

    static final String SELECT_CART = "SELECT ITEM_ID, QTY FROM SHOPPING_CARTS WHERE CART_ID = ? ORDER BY ITEM_ID";
    static final String SELECT_ORDER = "SELECT O_ID FROM ORDERS WHERE CART_ID = ?";
    static final String SELECT_ITEM = "SELECT STOCK, PRICE FROM ITEMS WHERE I_ID = ?";
    static final String TAKE_STOCK = "UPDATE ITEMS SET STOCK = STOCK - ? WHERE I_ID = ?";
    static final String INSERT_ORDER = "INSERT INTO ORDERS (CART_ID, TOTAL, CREATED_AT) VALUES (?, ?, ?)";
    static final String INSERT_LINE = "INSERT INTO ORDER_LINES (O_ID, ITEM_ID, QTY) VALUES (?, ?, ?)";

    public long run(TxContext ctx, long cartId) throws SQLException {
        Connection c = ctx.connection();
        List<long[]> lines = new ArrayList<>();
        boolean cartExists = false;
        try (PreparedStatement ps = c.prepareStatement(SELECT_CART)) {
            ps.setLong(1, cartId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    cartExists = true;
                    if (rs.getLong(1) != 0) lines.add(new long[] {rs.getLong(1), rs.getLong(2)});
                }
            }
        }
        if (!cartExists) throw new UserAbort("no cart " + cartId);
        if (lines.isEmpty()) throw new UserAbort("cart " + cartId + " is empty");
        try (PreparedStatement ps = c.prepareStatement(SELECT_ORDER)) {
            ps.setLong(1, cartId);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) throw new UserAbort("cart " + cartId + " is already ordered");
            }
        }
        double total = 0;
        for (long[] line : lines) {
            try (PreparedStatement ps = c.prepareStatement(SELECT_ITEM)) {
                ps.setLong(1, line[0]);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) throw new UserAbort("no item " + line[0]);
                    if (rs.getLong(1) < line[1])
                        throw new UserAbort("item " + line[0] + " has only " + rs.getLong(1) + " in stock");
                    total += rs.getDouble(2) * line[1];
                }
            }
            try (PreparedStatement ps = c.prepareStatement(TAKE_STOCK)) {
                ps.setLong(1, line[1]);
                ps.setLong(2, line[0]);
                ps.executeUpdate();
            }
        }
        long orderId;
        try (PreparedStatement ps = c.prepareStatement(INSERT_ORDER, Statement.RETURN_GENERATED_KEYS)) {
            ps.setLong(1, cartId);
            ps.setDouble(2, total);
            ps.setLong(3, ctx.now());
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                if (!keys.next()) throw new SQLException("no key generated for the order of cart " + cartId);
                orderId = keys.getLong(1);
            }
        }
        for (long[] line : lines) {
            try (PreparedStatement ps = c.prepareStatement(INSERT_LINE)) {
                ps.setLong(1, orderId);
                ps.setLong(2, line[0]);
                ps.setLong(3, line[1]);
                ps.executeUpdate();
            }
        }
        return orderId;
    }
}
