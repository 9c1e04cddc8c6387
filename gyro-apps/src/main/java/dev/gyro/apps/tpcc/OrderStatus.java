package dev.gyro.apps.tpcc;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;
import dev.gyro.apps.Rows;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Order-Status (clause 2.6): a customer's balance and last order with its lines. Read-only. Returns customer,
 * balance, order id, carrier (or NULL), then rows of (item, supply warehouse, quantity, amount, delivery date).
 */
public final class OrderStatus implements Transaction {

    static final String SELECT_BALANCE = "SELECT C_BALANCE FROM CUSTOMER WHERE C_W_ID = ? AND C_D_ID = ? AND C_ID = ?";
    static final String LAST_ORDER = "SELECT O_ID, O_CARRIER_ID FROM ORDERS WHERE O_W_ID = ? AND O_D_ID = ? "
            + "AND O_C_ID = ? ORDER BY O_ID DESC LIMIT 1";
    static final String LINES = "SELECT OL_I_ID, OL_SUPPLY_W_ID, OL_QUANTITY, OL_AMOUNT, OL_DELIVERY_D FROM ORDER_LINE "
            + "WHERE OL_W_ID = ? AND OL_D_ID = ? AND OL_O_ID = ? ORDER BY OL_NUMBER";

    public List<Object> run(TxContext ctx, int warehouse, int district, int customer, String customerLast)
            throws SQLException {
        Connection c = ctx.connection();
        int id = Customers.find(c, warehouse, district, customer, customerLast);
        List<Object> out = new ArrayList<>();
        out.add((long) id);
        try (PreparedStatement ps = c.prepareStatement(SELECT_BALANCE)) {
            ps.setInt(1, warehouse);
            ps.setInt(2, district);
            ps.setInt(3, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no customer " + id);
                out.add(rs.getLong(1));
            }
        }
        int orderId;
        try (PreparedStatement ps = c.prepareStatement(LAST_ORDER)) {
            ps.setInt(1, warehouse);
            ps.setInt(2, district);
            ps.setInt(3, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) return out;
                orderId = rs.getInt(1);
                out.addAll(Rows.current(rs, 2));
            }
        }
        try (PreparedStatement ps = c.prepareStatement(LINES)) {
            ps.setInt(1, warehouse);
            ps.setInt(2, district);
            ps.setInt(3, orderId);
            try (ResultSet rs = ps.executeQuery()) {
                out.addAll(Rows.all(rs, 5));
            }
        }
        return out;
    }
}
