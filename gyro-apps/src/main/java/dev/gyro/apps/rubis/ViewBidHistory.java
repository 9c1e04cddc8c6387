package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** View Bid History: an item's bids, newest first. Read-only. Rows of (seq, bidder nickname, bid, date). */
public final class ViewBidHistory implements Transaction {

    static final String BIDS = "SELECT B.B_SEQ, U.U_NICKNAME, B.B_BID, B.B_DATE FROM BIDS B, USERS U "
            + "WHERE B.B_ITEM_ID = ? AND U.U_ID = B.B_USER_ID ORDER BY B.B_SEQ DESC";

    public List<Object> run(TxContext ctx, long itemId) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(BIDS)) {
            ps.setLong(1, itemId);
            try (ResultSet rs = ps.executeQuery()) {
                return Rows.all(rs, 4);
            }
        }
    }
}
