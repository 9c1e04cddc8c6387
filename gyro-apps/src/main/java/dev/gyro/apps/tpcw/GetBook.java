package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** Product Detail and Admin Request: one book with its author. Read-only. */
public final class GetBook implements Transaction {

    static final String SELECT_BOOK = "SELECT I.I_ID, I.I_TITLE, A.A_FNAME, A.A_LNAME, I.I_PUB_DATE, I.I_PUBLISHER, "
            + "I.I_SUBJECT, I.I_DESC, I.I_IMAGE, I.I_SRP, I.I_COST, I.I_AVAIL, I.I_STOCK, I.I_ISBN, I.I_PAGE, "
            + "I.I_BACKING, I.I_DIMENSIONS FROM ITEM I, AUTHOR A WHERE I.I_ID = ? AND A.A_ID = I.I_A_ID";

    public List<Object> run(TxContext ctx, long itemId) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(SELECT_BOOK)) {
            ps.setLong(1, itemId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no book " + itemId);
                return Rows.current(rs, 17);
            }
        }
    }
}
