package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Store Bid: a user bids on an open auction; the bid must reach the initial price and beat the highest bid. Updates
 * the item's bid count and highest bid. Returns the bid's sequence number within the item.
 */
public final class StoreBid implements Transaction {

    static final String SELECT_ITEM = "SELECT I_INITIAL_PRICE, I_MAX_BID, I_QUANTITY, I_SELLER FROM ITEMS WHERE I_ID = ?";
    static final String BIDDER = "SELECT U_ID FROM USERS WHERE U_ID = ?";
    static final String NEXT_SEQ = "SELECT COALESCE(MAX(B_SEQ), 0) + 1 FROM BIDS WHERE B_ITEM_ID = ?";
    static final String INSERT_BID = "INSERT INTO BIDS (B_ITEM_ID, B_SEQ, B_USER_ID, B_QTY, B_BID, B_MAX_BID, B_DATE) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?)";
    static final String UPDATE_ITEM = "UPDATE ITEMS SET I_NB_OF_BIDS = I_NB_OF_BIDS + 1, I_MAX_BID = ? WHERE I_ID = ?";

    public long run(TxContext ctx, long itemId, long userId, long bid, long maxBid, int qty) throws SQLException {
        Connection c = ctx.connection();
        try (PreparedStatement ps = c.prepareStatement(SELECT_ITEM)) {
            ps.setLong(1, itemId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no open auction " + itemId);
                if (bid < rs.getLong(1)) throw new UserAbort("bid " + bid + " is below the initial price " + rs.getLong(1));
                if (bid <= rs.getLong(2)) throw new UserAbort("bid " + bid + " does not beat the highest bid " + rs.getLong(2));
                if (qty < 1 || qty > rs.getInt(3)) throw new UserAbort("quantity " + qty + " is not available");
                if (rs.getLong(4) == userId) throw new UserAbort("sellers do not bid on their own auctions");
            }
        }
        if (maxBid < bid) throw new UserAbort("the maximum bid must be at least the bid");
        try (PreparedStatement ps = c.prepareStatement(BIDDER)) {
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
        try (PreparedStatement ps = c.prepareStatement(INSERT_BID)) {
            ps.setLong(1, itemId);
            ps.setLong(2, seq);
            ps.setLong(3, userId);
            ps.setInt(4, qty);
            ps.setLong(5, bid);
            ps.setLong(6, maxBid);
            ps.setLong(7, ctx.now());
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(UPDATE_ITEM)) {
            ps.setLong(1, bid);
            ps.setLong(2, itemId);
            ps.executeUpdate();
        }
        return seq;
    }
}
