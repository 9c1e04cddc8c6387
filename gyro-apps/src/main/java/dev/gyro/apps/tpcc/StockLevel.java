package dev.gyro.apps.tpcc;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;

/**
 * Stock-Level (clause 2.8): how many distinct items of a district's last 20 orders have fewer than
 * {@code threshold} in stock. Read-only: quantities still pending from other warehouses' orders are applied in
 * memory, in the same order {@link Pending#foldStock} would apply them.
 */
public final class StockLevel implements Transaction {

    static final String NEXT_ORDER = "SELECT D_NEXT_O_ID FROM DISTRICT WHERE D_W_ID = ? AND D_ID = ?";
    static final String RECENT_STOCK = "SELECT S.S_I_ID, S.S_QUANTITY FROM STOCK S WHERE S.S_W_ID = ? AND S.S_I_ID IN "
            + "(SELECT OL.OL_I_ID FROM ORDER_LINE OL WHERE OL.OL_W_ID = ? AND OL.OL_D_ID = ? AND OL.OL_O_ID >= ? "
            + "AND OL.OL_O_ID < ?) ORDER BY S.S_I_ID";
    static final String PENDING = "SELECT SP_I_ID, SP_QUANTITY FROM STOCK_PENDING WHERE SP_W_ID = ? "
            + "ORDER BY SP_I_ID, SP_O_W_ID, SP_O_D_ID, SP_O_ID, SP_OL_NUMBER";

    public long run(TxContext ctx, int warehouse, int district, int threshold) throws SQLException {
        Connection c = ctx.connection();
        int next;
        try (PreparedStatement ps = c.prepareStatement(NEXT_ORDER)) {
            ps.setInt(1, warehouse);
            ps.setInt(2, district);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no district " + district + " in warehouse " + warehouse);
                next = rs.getInt(1);
            }
        }
        Map<Integer, Integer> quantity = new TreeMap<>();
        try (PreparedStatement ps = c.prepareStatement(RECENT_STOCK)) {
            ps.setInt(1, warehouse);
            ps.setInt(2, warehouse);
            ps.setInt(3, district);
            ps.setInt(4, next - 20);
            ps.setInt(5, next);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) quantity.put(rs.getInt(1), rs.getInt(2));
            }
        }
        try (PreparedStatement ps = c.prepareStatement(PENDING)) {
            ps.setInt(1, warehouse);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int item = rs.getInt(1), ordered = rs.getInt(2);
                    Integer q = quantity.get(item);
                    if (q != null) quantity.put(item, Pending.take(q, ordered));
                }
            }
        }
        return quantity.values().stream().filter(q -> q < threshold).count();
    }
}
