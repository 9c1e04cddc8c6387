package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Admin Confirm: changes a book's price and pictures, dates it today, and recomputes its five related books as the
 * ones most bought by the customers who bought it in the last 10000 orders (books already related fill any gap).
 */
public final class AdminUpdate implements Transaction {

    static final String UPDATE_ITEM = "UPDATE ITEM SET I_COST = ?, I_IMAGE = ?, I_THUMBNAIL = ?, I_PUB_DATE = ? WHERE I_ID = ?";
    static final String SELECT_RELATED = "SELECT I_RELATED1, I_RELATED2, I_RELATED3, I_RELATED4, I_RELATED5 FROM ITEM WHERE I_ID = ?";
    static final String LAST_ORDER = "SELECT MAX(O_ID) FROM ORDERS";
    static final String ALSO_BOUGHT = "SELECT OL2.OL_I_ID, SUM(OL2.OL_QTY) AS BOUGHT FROM ORDER_LINE OL, ORDERS O, "
            + "ORDERS O2, ORDER_LINE OL2 WHERE OL.OL_I_ID = ? AND OL.OL_O_ID > ? AND O.O_ID = OL.OL_O_ID "
            + "AND O2.O_C_ID = O.O_C_ID AND O2.O_ID > ? AND OL2.OL_O_ID = O2.O_ID AND OL2.OL_I_ID <> ? "
            + "GROUP BY OL2.OL_I_ID ORDER BY BOUGHT DESC, OL2.OL_I_ID LIMIT 5";
    static final String SET_RELATED = "UPDATE ITEM SET I_RELATED1 = ?, I_RELATED2 = ?, I_RELATED3 = ?, I_RELATED4 = ?, "
            + "I_RELATED5 = ? WHERE I_ID = ?";

    public long run(TxContext ctx, long itemId, long cost, String image, String thumbnail) throws SQLException {
        if (cost <= 0) throw new UserAbort("cost must be positive, was " + cost);
        Connection c = ctx.connection();
        long[] related = new long[5];
        try (PreparedStatement ps = c.prepareStatement(SELECT_RELATED)) {
            ps.setLong(1, itemId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no book " + itemId);
                for (int k = 0; k < 5; k++) related[k] = rs.getLong(k + 1);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(UPDATE_ITEM)) {
            ps.setLong(1, cost);
            ps.setString(2, image);
            ps.setString(3, thumbnail);
            ps.setLong(4, ctx.now());
            ps.setLong(5, itemId);
            ps.executeUpdate();
        }
        long since;
        try (PreparedStatement ps = c.prepareStatement(LAST_ORDER); ResultSet rs = ps.executeQuery()) {
            since = (rs.next() ? rs.getLong(1) : 0) - 10_000;
        }
        int found = 0;
        try (PreparedStatement ps = c.prepareStatement(ALSO_BOUGHT)) {
            ps.setLong(1, itemId);
            ps.setLong(2, since);
            ps.setLong(3, since);
            ps.setLong(4, itemId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next() && found < 5) related[found++] = rs.getLong(1);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(SET_RELATED)) {
            for (int k = 0; k < 5; k++) ps.setLong(k + 1, related[k]);
            ps.setLong(6, itemId);
            ps.executeUpdate();
        }
        return itemId;
    }
}
