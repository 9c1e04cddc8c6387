package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The seller closes an auction: it moves, with its final state, from ITEMS to OLD_ITEMS (its bids stay). Global:
 * every instance's searches read the set of open auctions; runs at the item's instance, where its state is current.
 */
public final class CloseAuction implements Transaction {

    static final String SELECT_ITEM = "SELECT I_ID, I_NAME, I_DESCRIPTION, I_INITIAL_PRICE, I_QUANTITY, I_RESERVE_PRICE, "
            + "I_BUY_NOW, I_NB_OF_BIDS, I_MAX_BID, I_START_DATE, I_END_DATE, I_SELLER, I_CATEGORY FROM ITEMS WHERE I_ID = ?";
    static final String INSERT_OLD = "INSERT INTO OLD_ITEMS (I_ID, I_NAME, I_DESCRIPTION, I_INITIAL_PRICE, I_QUANTITY, "
            + "I_RESERVE_PRICE, I_BUY_NOW, I_NB_OF_BIDS, I_MAX_BID, I_START_DATE, I_END_DATE, I_SELLER, I_CATEGORY) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    static final String DELETE_ITEM = "DELETE FROM ITEMS WHERE I_ID = ?";

    public long run(TxContext ctx, long itemId, long sellerId) throws SQLException {
        Connection c = ctx.connection();
        Object[] row = new Object[13];
        try (PreparedStatement ps = c.prepareStatement(SELECT_ITEM)) {
            ps.setLong(1, itemId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no open auction " + itemId);
                for (int i = 0; i < 13; i++) row[i] = rs.getObject(i + 1);
                if (rs.getLong(12) != sellerId) throw new UserAbort("user " + sellerId + " does not sell item " + itemId);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_OLD)) {
            for (int i = 0; i < 13; i++) ps.setObject(i + 1, row[i]);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(DELETE_ITEM)) {
            ps.setLong(1, itemId);
            ps.executeUpdate();
        }
        return itemId;
    }
}
