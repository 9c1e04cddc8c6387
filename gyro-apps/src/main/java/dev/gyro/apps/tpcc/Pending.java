package dev.gyro.apps.tpcc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Applies what other warehouses' requests recorded for this one (see {@link Tpcc}): remote order lines to a STOCK
 * row, remote payments to W_YTD and D_YTD. Runs only inside requests of the warehouse itself, at its instance.
 */
final class Pending {

    static final String STOCK_PENDING = "SELECT SP_QUANTITY FROM STOCK_PENDING WHERE SP_W_ID = ? AND SP_I_ID = ? "
            + "ORDER BY SP_O_W_ID, SP_O_D_ID, SP_O_ID, SP_OL_NUMBER";
    static final String SELECT_STOCK = "SELECT S_QUANTITY, S_YTD, S_ORDER_CNT, S_REMOTE_CNT FROM STOCK WHERE S_W_ID = ? AND S_I_ID = ?";
    static final String UPDATE_STOCK = "UPDATE STOCK SET S_QUANTITY = ?, S_YTD = ?, S_ORDER_CNT = ?, S_REMOTE_CNT = ? "
            + "WHERE S_W_ID = ? AND S_I_ID = ?";
    static final String CLEAR_STOCK_PENDING = "DELETE FROM STOCK_PENDING WHERE SP_W_ID = ? AND SP_I_ID = ?";
    static final String YTD_PENDING = "SELECT YP_D_ID, SUM(YP_AMOUNT) FROM YTD_PENDING WHERE YP_W_ID = ? GROUP BY YP_D_ID ORDER BY YP_D_ID";
    static final String ADD_WAREHOUSE_YTD = "UPDATE WAREHOUSE SET W_YTD = W_YTD + ? WHERE W_ID = ?";
    static final String ADD_DISTRICT_YTD = "UPDATE DISTRICT SET D_YTD = D_YTD + ? WHERE D_W_ID = ? AND D_ID = ?";
    static final String CLEAR_YTD_PENDING = "DELETE FROM YTD_PENDING WHERE YP_W_ID = ?";

    private Pending() {}

    /** The specification's stock rule (clause 2.4.2.2): take the quantity, restocking by 91 below 10 left. */
    static int take(int quantity, int ordered) {
        return quantity >= ordered + 10 ? quantity - ordered : quantity - ordered + 91;
    }

    /** Applies the pending remote lines of one STOCK row; returns its quantity after them. */
    static int foldStock(Connection c, int warehouse, int item) throws SQLException {
        long[] stock = new long[4];
        try (PreparedStatement ps = c.prepareStatement(SELECT_STOCK)) {
            ps.setInt(1, warehouse);
            ps.setInt(2, item);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new SQLException("no stock of item " + item + " at warehouse " + warehouse);
                for (int k = 0; k < 4; k++) stock[k] = rs.getLong(k + 1);
            }
        }
        int pending = 0;
        try (PreparedStatement ps = c.prepareStatement(STOCK_PENDING)) {
            ps.setInt(1, warehouse);
            ps.setInt(2, item);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int qty = rs.getInt(1);
                    stock[0] = take((int) stock[0], qty);
                    stock[1] += qty;
                    stock[2]++;
                    stock[3]++;
                    pending++;
                }
            }
        }
        if (pending == 0) return (int) stock[0];
        try (PreparedStatement ps = c.prepareStatement(UPDATE_STOCK)) {
            ps.setLong(1, stock[0]);
            ps.setLong(2, stock[1]);
            ps.setLong(3, stock[2]);
            ps.setLong(4, stock[3]);
            ps.setInt(5, warehouse);
            ps.setInt(6, item);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(CLEAR_STOCK_PENDING)) {
            ps.setInt(1, warehouse);
            ps.setInt(2, item);
            ps.executeUpdate();
        }
        return (int) stock[0];
    }

    /** Folds payments made elsewhere for this warehouse's districts into D_YTD and W_YTD. */
    static void foldYtd(Connection c, int warehouse) throws SQLException {
        java.util.List<long[]> byDistrict = new java.util.ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(YTD_PENDING)) {
            ps.setInt(1, warehouse);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) byDistrict.add(new long[] {rs.getLong(1), rs.getLong(2)});
            }
        }
        if (byDistrict.isEmpty()) return;
        long total = 0;
        for (long[] d : byDistrict) {
            total += d[1];
            try (PreparedStatement ps = c.prepareStatement(ADD_DISTRICT_YTD)) {
                ps.setLong(1, d[1]);
                ps.setInt(2, warehouse);
                ps.setInt(3, (int) d[0]);
                ps.executeUpdate();
            }
        }
        try (PreparedStatement ps = c.prepareStatement(ADD_WAREHOUSE_YTD)) {
            ps.setLong(1, total);
            ps.setInt(2, warehouse);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(CLEAR_YTD_PENDING)) {
            ps.setInt(1, warehouse);
            ps.executeUpdate();
        }
    }
}
