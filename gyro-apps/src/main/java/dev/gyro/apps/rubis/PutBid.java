package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** Put Bid: the bid form, with the auction's current state and the bidder's nickname. Read-only. Returns name, initial price, highest bid, number of bids, quantity, end date, nickname. */
public final class PutBid implements Transaction {

    static final String FORM = "SELECT I.I_NAME, I.I_INITIAL_PRICE, I.I_MAX_BID, I.I_NB_OF_BIDS, I.I_QUANTITY, I.I_END_DATE, "
            + "U.U_NICKNAME FROM ITEMS I, USERS U WHERE I.I_ID = ? AND U.U_ID = ?";

    public List<Object> run(TxContext ctx, long itemId, long userId) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(FORM)) {
            ps.setLong(1, itemId);
            ps.setLong(2, userId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no open auction " + itemId + " or no user " + userId);
                return Rows.current(rs, 7);
            }
        }
    }
}
