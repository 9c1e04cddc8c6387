package dev.gyro.apps.tpcc;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Delivery (clause 2.7), in one transaction for the ten districts: delivers each district's oldest undelivered
 * order (carrier, delivery date), and adds its amount to the customer's balance. Returns how many were delivered.
 */
public final class Delivery implements Transaction {

    static final String OLDEST = "SELECT MIN(NO_O_ID) FROM NEW_ORDER WHERE NO_W_ID = ? AND NO_D_ID = ?";
    static final String REMOVE_NEW_ORDER = "DELETE FROM NEW_ORDER WHERE NO_W_ID = ? AND NO_D_ID = ? AND NO_O_ID = ?";
    static final String SELECT_ORDER = "SELECT O_C_ID FROM ORDERS WHERE O_W_ID = ? AND O_D_ID = ? AND O_ID = ?";
    static final String SET_CARRIER = "UPDATE ORDERS SET O_CARRIER_ID = ? WHERE O_W_ID = ? AND O_D_ID = ? AND O_ID = ?";
    static final String DELIVER_LINES = "UPDATE ORDER_LINE SET OL_DELIVERY_D = ? WHERE OL_W_ID = ? AND OL_D_ID = ? AND OL_O_ID = ?";
    static final String SUM_LINES = "SELECT SUM(OL_AMOUNT) FROM ORDER_LINE WHERE OL_W_ID = ? AND OL_D_ID = ? AND OL_O_ID = ?";
    static final String CREDIT_CUSTOMER = "UPDATE CUSTOMER SET C_BALANCE = C_BALANCE + ?, C_DELIVERY_CNT = C_DELIVERY_CNT + 1 "
            + "WHERE C_W_ID = ? AND C_D_ID = ? AND C_ID = ?";

    public long run(TxContext ctx, int warehouse, int carrier) throws SQLException {
        if (carrier < 1 || carrier > 10) throw new UserAbort("carrier must be 1-10, was " + carrier);
        Connection c = ctx.connection();
        long delivered = 0;
        for (int d = 1; d <= 10; d++) {
            int orderId;
            try (PreparedStatement ps = c.prepareStatement(OLDEST)) {
                ps.setInt(1, warehouse);
                ps.setInt(2, d);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    orderId = rs.getInt(1);
                    if (rs.wasNull()) continue; // nothing to deliver in this district
                }
            }
            try (PreparedStatement ps = c.prepareStatement(REMOVE_NEW_ORDER)) {
                ps.setInt(1, warehouse);
                ps.setInt(2, d);
                ps.setInt(3, orderId);
                ps.executeUpdate();
            }
            int customer;
            try (PreparedStatement ps = c.prepareStatement(SELECT_ORDER)) {
                ps.setInt(1, warehouse);
                ps.setInt(2, d);
                ps.setInt(3, orderId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) throw new SQLException("new order " + orderId + " of district " + d + " has no order");
                    customer = rs.getInt(1);
                }
            }
            try (PreparedStatement ps = c.prepareStatement(SET_CARRIER)) {
                ps.setInt(1, carrier);
                ps.setInt(2, warehouse);
                ps.setInt(3, d);
                ps.setInt(4, orderId);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(DELIVER_LINES)) {
                ps.setLong(1, ctx.now());
                ps.setInt(2, warehouse);
                ps.setInt(3, d);
                ps.setInt(4, orderId);
                ps.executeUpdate();
            }
            long amount;
            try (PreparedStatement ps = c.prepareStatement(SUM_LINES)) {
                ps.setInt(1, warehouse);
                ps.setInt(2, d);
                ps.setInt(3, orderId);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    amount = rs.getLong(1);
                }
            }
            try (PreparedStatement ps = c.prepareStatement(CREDIT_CUSTOMER)) {
                ps.setLong(1, amount);
                ps.setInt(2, warehouse);
                ps.setInt(3, d);
                ps.setInt(4, customer);
                ps.executeUpdate();
            }
            delivered++;
        }
        return delivered;
    }
}
