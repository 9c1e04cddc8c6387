package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * Best Sellers: the 50 books of a subject sold in the largest quantities in the 3333 most recent orders.
 * Read-only. Rows of (id, title, author first, last name, quantity).
 */
public final class GetBestSellers implements Transaction {

    static final String LAST_ORDER = "SELECT MAX(O_ID) FROM ORDERS";
    static final String BEST = "SELECT I.I_ID, I.I_TITLE, A.A_FNAME, A.A_LNAME, SUM(OL.OL_QTY) AS SOLD "
            + "FROM ORDER_LINE OL, ITEM I, AUTHOR A WHERE OL.OL_O_ID > ? AND I.I_ID = OL.OL_I_ID AND I.I_SUBJECT = ? "
            + "AND A.A_ID = I.I_A_ID GROUP BY I.I_ID, I.I_TITLE, A.A_FNAME, A.A_LNAME ORDER BY SOLD DESC, I.I_ID LIMIT 50";

    public List<Object> run(TxContext ctx, String subject) throws SQLException {
        long last;
        try (PreparedStatement ps = ctx.connection().prepareStatement(LAST_ORDER); ResultSet rs = ps.executeQuery()) {
            last = rs.next() ? rs.getLong(1) : 0;
        }
        try (PreparedStatement ps = ctx.connection().prepareStatement(BEST)) {
            ps.setLong(1, last - 3333);
            ps.setString(2, subject);
            try (ResultSet rs = ps.executeQuery()) {
                return Rows.all(rs, 5);
            }
        }
    }
}
