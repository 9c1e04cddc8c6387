package dev.gyro.apps.tpcc;

import dev.gyro.app.BadRequestException;
import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * New-Order (clause 2.4): enters an order of 5-15 lines for a customer of the home warehouse's district, taking the
 * next order number, and takes each line from its supplying warehouse's stock. An unused item number (1% of orders,
 * on the last line) rolls the whole order back. Lines supplied by {@code remoteWarehouse} are recorded in
 * STOCK_PENDING for that warehouse to apply (see {@link Tpcc}).
 *
 * @see #run
 */
public final class NewOrder implements Transaction {

    static final String SELECT_WAREHOUSE = "SELECT W_TAX_BP FROM WAREHOUSE WHERE W_ID = ?";
    static final String SELECT_DISTRICT = "SELECT D_TAX_BP, D_NEXT_O_ID FROM DISTRICT WHERE D_W_ID = ? AND D_ID = ?";
    static final String NEXT_ORDER = "UPDATE DISTRICT SET D_NEXT_O_ID = ? WHERE D_W_ID = ? AND D_ID = ?";
    static final String SELECT_CUSTOMER = "SELECT C_DISCOUNT_BP, C_LAST, C_CREDIT FROM CUSTOMER WHERE C_W_ID = ? AND C_D_ID = ? AND C_ID = ?";
    static final String INSERT_ORDER = "INSERT INTO ORDERS (O_W_ID, O_D_ID, O_ID, O_C_ID, O_ENTRY_D, O_CARRIER_ID, "
            + "O_OL_CNT, O_ALL_LOCAL) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)";
    static final String INSERT_NEW_ORDER = "INSERT INTO NEW_ORDER (NO_W_ID, NO_D_ID, NO_O_ID) VALUES (?, ?, ?)";
    static final String SELECT_ITEM = "SELECT I_PRICE, I_NAME, I_DATA FROM ITEM WHERE I_ID = ?";
    static final String SELECT_STOCK_INFO = "SELECT S_DIST_01, S_DIST_02, S_DIST_03, S_DIST_04, S_DIST_05, S_DIST_06, "
            + "S_DIST_07, S_DIST_08, S_DIST_09, S_DIST_10, S_DATA FROM STOCK WHERE S_W_ID = ? AND S_I_ID = ?";
    static final String TAKE_STOCK = "UPDATE STOCK SET S_QUANTITY = ?, S_YTD = S_YTD + ?, S_ORDER_CNT = S_ORDER_CNT + 1 "
            + "WHERE S_W_ID = ? AND S_I_ID = ?";
    static final String INSERT_PENDING = "INSERT INTO STOCK_PENDING (SP_W_ID, SP_I_ID, SP_O_W_ID, SP_O_D_ID, SP_O_ID, "
            + "SP_OL_NUMBER, SP_QUANTITY) VALUES (?, ?, ?, ?, ?, ?, ?)";
    static final String INSERT_LINE = "INSERT INTO ORDER_LINE (OL_W_ID, OL_D_ID, OL_O_ID, OL_NUMBER, OL_I_ID, "
            + "OL_SUPPLY_W_ID, OL_DELIVERY_D, OL_QUANTITY, OL_AMOUNT, OL_DIST_INFO) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)";

    /**
     * @param remoteWarehouse the one other warehouse lines may be supplied from, or {@code warehouse} when every
     *                        line is supplied by the home warehouse
     * @param lines           the order lines as {@code item:supplyWarehouse:quantity} separated by {@code ;}
     * @return order id, total in cents (after discount and taxes), then per line: item, supply warehouse, quantity,
     *         stock quantity after the order (-1 for a remote line), amount
     */
    public List<Object> run(TxContext ctx, int warehouse, int district, int customer, int remoteWarehouse, String lines)
            throws SQLException {
        List<int[]> order = parse(lines, warehouse, remoteWarehouse);
        Connection c = ctx.connection();
        long warehouseTax, districtTax, discount;
        int orderId;
        try (PreparedStatement ps = c.prepareStatement(SELECT_WAREHOUSE)) {
            ps.setInt(1, warehouse);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no warehouse " + warehouse);
                warehouseTax = rs.getLong(1);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(SELECT_DISTRICT)) {
            ps.setInt(1, warehouse);
            ps.setInt(2, district);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no district " + district + " in warehouse " + warehouse);
                districtTax = rs.getLong(1);
                orderId = rs.getInt(2);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(NEXT_ORDER)) {
            ps.setInt(1, orderId + 1);
            ps.setInt(2, warehouse);
            ps.setInt(3, district);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(SELECT_CUSTOMER)) {
            ps.setInt(1, warehouse);
            ps.setInt(2, district);
            ps.setInt(3, customer);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no customer " + customer + " in district " + district);
                discount = rs.getLong(1);
            }
        }
        boolean allLocal = order.stream().allMatch(l -> l[1] == warehouse);
        try (PreparedStatement ps = c.prepareStatement(INSERT_ORDER)) {
            ps.setInt(1, warehouse);
            ps.setInt(2, district);
            ps.setInt(3, orderId);
            ps.setInt(4, customer);
            ps.setLong(5, ctx.now());
            ps.setInt(6, order.size());
            ps.setInt(7, allLocal ? 1 : 0);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_NEW_ORDER)) {
            ps.setInt(1, warehouse);
            ps.setInt(2, district);
            ps.setInt(3, orderId);
            ps.executeUpdate();
        }
        List<Object> out = new ArrayList<>();
        out.add((long) orderId);
        out.add(0L); // the total, filled in below
        long sum = 0;
        for (int n = 0; n < order.size(); n++) {
            int item = order.get(n)[0], supply = order.get(n)[1], qty = order.get(n)[2];
            long price;
            try (PreparedStatement ps = c.prepareStatement(SELECT_ITEM)) {
                ps.setInt(1, item);
                try (ResultSet rs = ps.executeQuery()) {
                    // clause 2.4.2.3: an unused item number rolls the whole order back
                    if (!rs.next()) throw new UserAbort("item number is not valid: " + item);
                    price = rs.getLong(1);
                }
            }
            String distInfo;
            try (PreparedStatement ps = c.prepareStatement(SELECT_STOCK_INFO)) {
                ps.setInt(1, supply);
                ps.setInt(2, item);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) throw new UserAbort("no stock of item " + item + " at warehouse " + supply);
                    distInfo = rs.getString(district);
                }
            }
            long left = -1;
            if (supply == warehouse) {
                int quantity = Pending.foldStock(c, warehouse, item);
                left = Pending.take(quantity, qty);
                try (PreparedStatement ps = c.prepareStatement(TAKE_STOCK)) {
                    ps.setLong(1, left);
                    ps.setInt(2, qty);
                    ps.setInt(3, warehouse);
                    ps.setInt(4, item);
                    ps.executeUpdate();
                }
            } else {
                try (PreparedStatement ps = c.prepareStatement(INSERT_PENDING)) {
                    ps.setInt(1, supply);
                    ps.setInt(2, item);
                    ps.setInt(3, warehouse);
                    ps.setInt(4, district);
                    ps.setInt(5, orderId);
                    ps.setInt(6, n + 1);
                    ps.setInt(7, qty);
                    ps.executeUpdate();
                }
            }
            long amount = price * qty;
            sum += amount;
            try (PreparedStatement ps = c.prepareStatement(INSERT_LINE)) {
                ps.setInt(1, warehouse);
                ps.setInt(2, district);
                ps.setInt(3, orderId);
                ps.setInt(4, n + 1);
                ps.setInt(5, item);
                ps.setInt(6, supply);
                ps.setInt(7, qty);
                ps.setLong(8, amount);
                ps.setString(9, distInfo);
                ps.executeUpdate();
            }
            out.add((long) item);
            out.add((long) supply);
            out.add((long) qty);
            out.add(left);
            out.add(amount);
        }
        // total = sum * (1 - discount) * (1 + w_tax + d_tax), rates in basis points
        out.set(1, sum * (10_000 - discount) / 10_000 * (10_000 + warehouseTax + districtTax) / 10_000);
        return out;
    }

    static List<int[]> parse(String lines, int warehouse, int remoteWarehouse) {
        List<int[]> out = new ArrayList<>();
        for (String line : lines.split(";")) {
            String[] f = line.split(":");
            int[] l;
            try {
                if (f.length != 3) throw new NumberFormatException();
                l = new int[] {Integer.parseInt(f[0].strip()), Integer.parseInt(f[1].strip()), Integer.parseInt(f[2].strip())};
            } catch (NumberFormatException e) {
                throw new BadRequestException("order line '" + line + "' is not item:supplyWarehouse:quantity");
            }
            if (l[1] != warehouse && l[1] != remoteWarehouse)
                throw new BadRequestException("order line '" + line + "' is supplied by warehouse " + l[1]
                        + ", which is neither the home warehouse " + warehouse + " nor the declared remote warehouse "
                        + remoteWarehouse + " (the partitioning parameters must name every warehouse touched)");
            if (l[2] < 1 || l[2] > 10) throw new BadRequestException("order line '" + line + "': quantity must be 1-10");
            out.add(l);
        }
        if (out.isEmpty() || out.size() > 15) throw new BadRequestException("an order has 1 to 15 lines, got " + out.size());
        return out;
    }
}
