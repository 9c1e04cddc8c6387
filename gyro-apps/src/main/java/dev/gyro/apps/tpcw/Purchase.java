package dev.gyro.apps.tpcw;

import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The steps of Buy Confirm (TPC-W's doBuyConfirm): price the cart with the customer's discount, enter the order
 * and its lines, take the books from stock (restocking by 21 when fewer than 10 would remain, as the specification
 * does, so stock never goes negative), record the card transaction, and empty the cart.
 */
final class Purchase {

    static final String SELECT_CUSTOMER = "SELECT C_DISCOUNT_BP, C_ADDR_ID FROM CUSTOMER WHERE C_ID = ?";
    static final String SELECT_LINES = "SELECT SCL.SCL_I_ID, SCL.SCL_QTY, I.I_COST, I.I_STOCK FROM SHOPPING_CART_LINE SCL, "
            + "ITEM I WHERE SCL.SCL_SC_ID = ? AND I.I_ID = SCL.SCL_I_ID ORDER BY SCL.SCL_I_ID";
    static final String NEXT_ORDER = "SELECT COALESCE(MAX(O_ID), 0) + 1 FROM ORDERS";
    static final String INSERT_ORDER = "INSERT INTO ORDERS (O_ID, O_C_ID, O_DATE, O_SUB_TOTAL, O_TAX, O_TOTAL, "
            + "O_SHIP_TYPE, O_SHIP_DATE, O_BILL_ADDR_ID, O_SHIP_ADDR_ID, O_STATUS) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'PENDING')";
    static final String INSERT_LINE = "INSERT INTO ORDER_LINE (OL_O_ID, OL_ID, OL_I_ID, OL_QTY, OL_DISCOUNT_BP, "
            + "OL_COMMENTS) VALUES (?, ?, ?, ?, ?, ?)";
    static final String SET_STOCK = "UPDATE ITEM SET I_STOCK = ? WHERE I_ID = ?";
    static final String SHIP_COUNTRY = "SELECT ADDR_CO_ID FROM ADDRESS WHERE ADDR_ID = ?";
    static final String INSERT_XACT = "INSERT INTO CC_XACTS (CX_O_ID, CX_TYPE, CX_NUM, CX_NAME, CX_EXPIRE, CX_AUTH_ID, "
            + "CX_XACT_AMT, CX_XACT_DATE, CX_CO_ID) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
    static final String CLEAR_CART = "DELETE FROM SHOPPING_CART_LINE WHERE SCL_SC_ID = ?";

    private Purchase() {}

    /** @param shipAddressId the address to ship to, or 0 for the customer's own */
    static long confirm(TxContext ctx, long shoppingId, long customerId, String ccType, String ccNumber,
                        String ccName, long ccExpiry, String shipType, long shipAddressId) throws SQLException {
        if (!TpcwData.CARD_TYPES.contains(ccType)) throw new UserAbort("unknown card type " + ccType);
        if (!TpcwData.SHIP_TYPES.contains(shipType)) throw new UserAbort("unknown shipping type " + shipType);
        Connection c = ctx.connection();
        int discount;
        long billAddressId;
        try (PreparedStatement ps = c.prepareStatement(SELECT_CUSTOMER)) {
            ps.setLong(1, customerId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no customer " + customerId);
                discount = rs.getInt(1);
                billAddressId = rs.getLong(2);
            }
        }
        long shipTo = shipAddressId > 0 ? shipAddressId : billAddressId;
        List<long[]> lines = new ArrayList<>(); // item, qty, cost, stock
        try (PreparedStatement ps = c.prepareStatement(SELECT_LINES)) {
            ps.setLong(1, shoppingId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) lines.add(new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)});
            }
        }
        if (lines.isEmpty()) throw new UserAbort("shopping cart " + shoppingId + " is empty");
        long subTotal = 0;
        int units = 0;
        for (long[] l : lines) {
            subTotal += l[2] * l[1] * (10_000 - discount) / 10_000;
            units += (int) l[1];
        }
        long tax = Tpcw.tax(subTotal);
        long total = subTotal + tax + Tpcw.shipping(units);
        long orderId;
        try (PreparedStatement ps = c.prepareStatement(NEXT_ORDER); ResultSet rs = ps.executeQuery()) {
            rs.next();
            orderId = rs.getLong(1);
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_ORDER)) {
            ps.setLong(1, orderId);
            ps.setLong(2, customerId);
            ps.setLong(3, ctx.now());
            ps.setLong(4, subTotal);
            ps.setLong(5, tax);
            ps.setLong(6, total);
            ps.setString(7, shipType);
            ps.setLong(8, ctx.now() + (1 + ctx.random().nextInt(7)) * TpcwData.DAY);
            ps.setLong(9, billAddressId);
            ps.setLong(10, shipTo);
            ps.executeUpdate();
        }
        int n = 0;
        for (long[] l : lines) {
            try (PreparedStatement ps = c.prepareStatement(INSERT_LINE)) {
                ps.setLong(1, orderId);
                ps.setInt(2, ++n);
                ps.setLong(3, l[0]);
                ps.setLong(4, l[1]);
                ps.setInt(5, discount);
                ps.setString(6, "ordered with cart " + shoppingId);
                ps.executeUpdate();
            }
            long left = l[3] - l[1];
            try (PreparedStatement ps = c.prepareStatement(SET_STOCK)) {
                ps.setLong(1, left < 10 ? left + 21 : left);
                ps.setLong(2, l[0]);
                ps.executeUpdate();
            }
        }
        int country;
        try (PreparedStatement ps = c.prepareStatement(SHIP_COUNTRY)) {
            ps.setLong(1, shipTo);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no address " + shipTo);
                country = rs.getInt(1);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_XACT)) {
            ps.setLong(1, orderId);
            ps.setString(2, ccType);
            ps.setString(3, ccNumber);
            ps.setString(4, ccName);
            ps.setLong(5, ccExpiry);
            ps.setString(6, "AUTH" + Long.toString(ctx.random().nextLong(1L << 40), 36).toUpperCase());
            ps.setLong(7, total);
            ps.setLong(8, ctx.now());
            ps.setInt(9, country);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(CLEAR_CART)) {
            ps.setLong(1, shoppingId);
            ps.executeUpdate();
        }
        return orderId;
    }
}
