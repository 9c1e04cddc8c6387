package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** View Item of a closed auction. Read-only; the columns of {@link ViewItem}. */
public final class ViewOldItem implements Transaction {

    static final String ITEM = "SELECT I.I_ID, I.I_NAME, I.I_DESCRIPTION, I.I_INITIAL_PRICE, I.I_QUANTITY, I.I_RESERVE_PRICE, "
            + "I.I_BUY_NOW, I.I_NB_OF_BIDS, I.I_MAX_BID, I.I_START_DATE, I.I_END_DATE, I.I_SELLER, U.U_NICKNAME "
            + "FROM OLD_ITEMS I, USERS U WHERE I.I_ID = ? AND U.U_ID = I.I_SELLER";

    public List<Object> run(TxContext ctx, long itemId) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(ITEM)) {
            ps.setLong(1, itemId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no closed auction " + itemId);
                return Rows.current(rs, 13);
            }
        }
    }
}
