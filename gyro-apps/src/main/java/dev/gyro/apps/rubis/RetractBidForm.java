package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** The bid retraction form: the user's bids on an open auction. Read-only. Rows of (seq, bid, date). */
public final class RetractBidForm implements Transaction {

    static final String BIDS = "SELECT B_SEQ, B_BID, B_DATE FROM BIDS WHERE B_ITEM_ID = ? AND B_USER_ID = ? ORDER BY B_SEQ";

    public List<Object> run(TxContext ctx, long itemId, long userId) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(BIDS)) {
            ps.setLong(1, itemId);
            ps.setLong(2, userId);
            try (ResultSet rs = ps.executeQuery()) {
                return Rows.all(rs, 3);
            }
        }
    }
}
