package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Store Buy Now: a user buys units of an auction at its buy-now price. Quantity never goes negative. Returns the
 * purchase's sequence number within the item.
 */
public final class StoreBuyNow implements Transaction {

    static final String SELECT_ITEM = "SELECT I_QUANTITY, I_BUY_NOW, I_SELLER FROM ITEMS WHERE I_ID = ?";
    static final String BUYER = "SELECT U_ID FROM USERS WHERE U_ID = ?";
    static final String NEXT_SEQ = "SELECT COALESCE(MAX(BN_SEQ), 0) + 1 FROM BUY_NOW WHERE BN_ITEM_ID = ?";
    static final String INSERT_BUY = "INSERT INTO BUY_NOW (BN_ITEM_ID, BN_SEQ, BN_BUYER_ID, BN_QTY, BN_DATE) VALUES (?, ?, ?, ?, ?)";
    static final String UPDATE_ITEM = "UPDATE ITEMS SET I_QUANTITY = ? WHERE I_ID = ?";

    public long run(TxContext ctx, long itemId, long userId, int qty) throws SQLException {
        Connection c = ctx.connection();
        int quantity;
        try (PreparedStatement ps = c.prepareStatement(SELECT_ITEM)) {
            ps.setLong(1, itemId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no open auction " + itemId);
                quantity = rs.getInt(1);
                if (rs.getLong(2) <= 0) throw new UserAbort("item " + itemId + " cannot be bought now");
                if (rs.getLong(3) == userId) throw new UserAbort("sellers do not buy their own items");
            }
        }
        if (qty < 1 || qty > quantity) throw new UserAbort("only " + quantity + " left of item " + itemId);
        try (PreparedStatement ps = c.prepareStatement(BUYER)) {
            ps.setLong(1, userId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no user " + userId);
            }
        }
        long seq;
        try (PreparedStatement ps = c.prepareStatement(NEXT_SEQ)) {
            ps.setLong(1, itemId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                seq = rs.getLong(1);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_BUY)) {
            ps.setLong(1, itemId);
            ps.setLong(2, seq);
            ps.setLong(3, userId);
            ps.setInt(4, qty);
            ps.setLong(5, ctx.now());
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(UPDATE_ITEM)) {
            ps.setInt(1, quantity - qty);
            ps.setLong(2, itemId);
            ps.executeUpdate();
        }
        return seq;
    }
}
