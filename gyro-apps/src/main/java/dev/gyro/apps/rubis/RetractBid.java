package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A user retracts their latest bid on an open auction; the item's bid count and highest bid are recomputed from the
 * bids that remain. Returns the new highest bid.
 */
public final class RetractBid implements Transaction {

    static final String OPEN = "SELECT I_ID FROM ITEMS WHERE I_ID = ?";
    static final String LATEST = "SELECT MAX(B_SEQ) FROM BIDS WHERE B_ITEM_ID = ? AND B_USER_ID = ?";
    static final String DELETE_BID = "DELETE FROM BIDS WHERE B_ITEM_ID = ? AND B_SEQ = ?";
    static final String REMAINING = "SELECT COUNT(*), COALESCE(MAX(B_BID), 0) FROM BIDS WHERE B_ITEM_ID = ?";
    static final String UPDATE_ITEM = "UPDATE ITEMS SET I_NB_OF_BIDS = ?, I_MAX_BID = ? WHERE I_ID = ?";

    public long run(TxContext ctx, long itemId, long userId) throws SQLException {
        Connection c = ctx.connection();
        try (PreparedStatement ps = c.prepareStatement(OPEN)) {
            ps.setLong(1, itemId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no open auction " + itemId);
            }
        }
        long seq;
        try (PreparedStatement ps = c.prepareStatement(LATEST)) {
            ps.setLong(1, itemId);
            ps.setLong(2, userId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                seq = rs.getLong(1);
                if (rs.wasNull()) throw new UserAbort("user " + userId + " has no bid on item " + itemId);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(DELETE_BID)) {
            ps.setLong(1, itemId);
            ps.setLong(2, seq);
            ps.executeUpdate();
        }
        long count, max;
        try (PreparedStatement ps = c.prepareStatement(REMAINING)) {
            ps.setLong(1, itemId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                count = rs.getLong(1);
                max = rs.getLong(2);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(UPDATE_ITEM)) {
            ps.setLong(1, count);
            ps.setLong(2, max);
            ps.setLong(3, itemId);
            ps.executeUpdate();
        }
        return max;
    }
}
