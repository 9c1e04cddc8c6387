package dev.gyro.apps.tpcc;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * Payment (clause 2.5): a customer pays at a district of the home warehouse; the customer belongs to that
 * warehouse (85%) or to another one (15%). Runs at the customer's warehouse. The payment is added to the home
 * warehouse's and district's year-to-date totals, directly when the customer is local to it, otherwise through
 * YTD_PENDING (see {@link Tpcc}); a home-warehouse Payment first folds what others recorded.
 */
public final class Payment implements Transaction {

    static final String SELECT_WAREHOUSE = "SELECT W_NAME, W_STREET_1, W_CITY FROM WAREHOUSE WHERE W_ID = ?";
    static final String SELECT_DISTRICT = "SELECT D_NAME, D_STREET_1, D_CITY FROM DISTRICT WHERE D_W_ID = ? AND D_ID = ?";
    static final String ADD_WAREHOUSE_YTD = "UPDATE WAREHOUSE SET W_YTD = W_YTD + ? WHERE W_ID = ?";
    static final String ADD_DISTRICT_YTD = "UPDATE DISTRICT SET D_YTD = D_YTD + ? WHERE D_W_ID = ? AND D_ID = ?";
    static final String SELECT_CUSTOMER = "SELECT C_FIRST, C_LAST, C_CREDIT, C_BALANCE, C_YTD_PAYMENT, C_PAYMENT_CNT, "
            + "C_DATA FROM CUSTOMER WHERE C_W_ID = ? AND C_D_ID = ? AND C_ID = ?";
    static final String UPDATE_CUSTOMER = "UPDATE CUSTOMER SET C_BALANCE = ?, C_YTD_PAYMENT = ?, C_PAYMENT_CNT = ?, "
            + "C_DATA = ? WHERE C_W_ID = ? AND C_D_ID = ? AND C_ID = ?";
    static final String INSERT_HISTORY = "INSERT INTO HISTORY (H_C_W_ID, H_C_D_ID, H_C_ID, H_SEQ, H_D_ID, H_W_ID, "
            + "H_DATE, H_AMOUNT, H_DATA) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
    static final String INSERT_YTD_PENDING = "INSERT INTO YTD_PENDING (YP_C_W_ID, YP_C_D_ID, YP_C_ID, YP_SEQ, YP_W_ID, "
            + "YP_D_ID, YP_AMOUNT) VALUES (?, ?, ?, ?, ?, ?, ?)";

    /**
     * @param customer     the customer's number, or 0 to find the customer by {@code customerLast}
     * @param amount       cents, 100 to 500000
     * @return the customer's number, balance after the payment, and credit ("GC" or "BC")
     */
    public List<Object> run(TxContext ctx, int warehouse, int district, int customerWarehouse, int customerDistrict,
                            int customer, String customerLast, long amount) throws SQLException {
        if (amount <= 0) throw new UserAbort("payment amount must be positive, was " + amount);
        Connection c = ctx.connection();
        String warehouseName, districtName;
        try (PreparedStatement ps = c.prepareStatement(SELECT_WAREHOUSE)) {
            ps.setInt(1, warehouse);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no warehouse " + warehouse);
                warehouseName = rs.getString(1);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(SELECT_DISTRICT)) {
            ps.setInt(1, warehouse);
            ps.setInt(2, district);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no district " + district + " in warehouse " + warehouse);
                districtName = rs.getString(1);
            }
        }
        int id = Customers.find(c, customerWarehouse, customerDistrict, customer, customerLast);
        String credit, data;
        long balance, ytd;
        int count;
        try (PreparedStatement ps = c.prepareStatement(SELECT_CUSTOMER)) {
            ps.setInt(1, customerWarehouse);
            ps.setInt(2, customerDistrict);
            ps.setInt(3, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no customer " + id + " in district " + customerDistrict
                        + " of warehouse " + customerWarehouse);
                credit = rs.getString(3);
                balance = rs.getLong(4) - amount;
                ytd = rs.getLong(5) + amount;
                count = rs.getInt(6) + 1;
                data = rs.getString(7);
            }
        }
        if (credit.equals("BC")) {
            String entry = id + " " + customerDistrict + " " + customerWarehouse + " " + district + " " + warehouse
                    + " " + amount + " | ";
            data = (entry + data).substring(0, Math.min(500, entry.length() + data.length()));
        }
        try (PreparedStatement ps = c.prepareStatement(UPDATE_CUSTOMER)) {
            ps.setLong(1, balance);
            ps.setLong(2, ytd);
            ps.setInt(3, count);
            ps.setString(4, data);
            ps.setInt(5, customerWarehouse);
            ps.setInt(6, customerDistrict);
            ps.setInt(7, id);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_HISTORY)) {
            ps.setInt(1, customerWarehouse);
            ps.setInt(2, customerDistrict);
            ps.setInt(3, id);
            ps.setInt(4, count);
            ps.setInt(5, district);
            ps.setInt(6, warehouse);
            ps.setLong(7, ctx.now());
            ps.setLong(8, amount);
            ps.setString(9, truncate(warehouseName + "    " + districtName, 24));
            ps.executeUpdate();
        }
        if (customerWarehouse == warehouse) {
            Pending.foldYtd(c, warehouse);
            try (PreparedStatement ps = c.prepareStatement(ADD_WAREHOUSE_YTD)) {
                ps.setLong(1, amount);
                ps.setInt(2, warehouse);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(ADD_DISTRICT_YTD)) {
                ps.setLong(1, amount);
                ps.setInt(2, warehouse);
                ps.setInt(3, district);
                ps.executeUpdate();
            }
        } else {
            try (PreparedStatement ps = c.prepareStatement(INSERT_YTD_PENDING)) {
                ps.setInt(1, customerWarehouse);
                ps.setInt(2, customerDistrict);
                ps.setInt(3, id);
                ps.setInt(4, count);
                ps.setInt(5, warehouse);
                ps.setInt(6, district);
                ps.setLong(7, amount);
                ps.executeUpdate();
            }
        }
        return List.of((long) id, balance, credit);
    }

    private static String truncate(String s, int n) {
        return s.length() <= n ? s : s.substring(0, n);
    }
}
