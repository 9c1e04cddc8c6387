package dev.gyro.apps.store;

import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.Value;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The store's consistency conditions, checked directly on every instance's database after a run (not through
 * Gyro). Each violation is reported in words; an empty list means every condition holds.
 */
public final class StoreAudit {

    private StoreAudit() {}

    /**
     * @param instances      one connection per instance, in instance order
     * @param map            the partition map the run used (to find the instance that owns each cart)
     * @param initialStock   stock per item id at load time ({@link OnlineStore#initialStock})
     * @param expectedOrders orders the clients saw succeed, or -1 to skip that check
     * @param instances      may hold null for an instance that left the ring: it is not audited, and owns no cart
     */
    public static List<String> audit(List<Connection> instances, PartitionMap map, long[] initialStock,
                                     long expectedOrders) throws SQLException {
        List<String> violations = new ArrayList<>();
        for (int i = 0; i < instances.size(); i++) {
            Connection c = instances.get(i);
            if (c == null) continue;
            long negative = count(c, "SELECT COUNT(*) FROM ITEMS WHERE STOCK < 0");
            if (negative > 0) violations.add("instance " + i + ": " + negative + " items have negative stock");
            long orphanLines = count(c, "SELECT COUNT(*) FROM ORDER_LINES L WHERE NOT EXISTS "
                    + "(SELECT 1 FROM ORDERS O WHERE O.O_ID = L.O_ID)");
            if (orphanLines > 0) violations.add("instance " + i + ": " + orphanLines + " order lines without their order");
            long emptyOrders = count(c, "SELECT COUNT(*) FROM ORDERS O WHERE NOT EXISTS "
                    + "(SELECT 1 FROM ORDER_LINES L WHERE L.O_ID = O.O_ID)");
            if (emptyOrders > 0) violations.add("instance " + i + ": " + emptyOrders + " orders without lines");
            // Conservation: every unit that left stock is in exactly one order line.
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                    "SELECT I.I_ID, I.STOCK, COALESCE((SELECT SUM(L.QTY) FROM ORDER_LINES L WHERE L.ITEM_ID = I.I_ID), 0) "
                            + "FROM ITEMS I ORDER BY I.I_ID")) {
                int bad = 0;
                String first = null;
                while (rs.next()) {
                    int item = rs.getInt(1);
                    long expected = item < initialStock.length ? initialStock[item] : -1;
                    if (expected - rs.getLong(2) != rs.getLong(3)) {
                        if (bad++ == 0) first = "item " + item + ": loaded " + expected + ", now " + rs.getLong(2)
                                + ", ordered " + rs.getLong(3);
                    }
                }
                if (bad > 0) violations.add("instance " + i + ": stock of " + bad + " items does not add up (" + first + ")");
            }
        }
        // No order without its cart: the cart lives on the instance that owns it, with exactly the ordered lines.
        Connection any = instances.stream().filter(java.util.Objects::nonNull).findFirst().orElseThrow();
        long orders = count(any, "SELECT COUNT(*) FROM ORDERS");
        if (expectedOrders >= 0 && orders != expectedOrders)
            violations.add("clients saw " + expectedOrders + " orders succeed, the database holds " + orders);
        int missingCarts = 0, mismatched = 0;
        String firstProblem = null;
        try (Statement s = any.createStatement(); ResultSet rs = s.executeQuery("SELECT O_ID, CART_ID FROM ORDERS")) {
            while (rs.next()) {
                long orderId = rs.getLong(1), cartId = rs.getLong(2);
                Connection owner = instances.get(map.instanceOf(new Value.Int(cartId)));
                Map<Long, Long> cart = lines(owner, "SELECT ITEM_ID, QTY FROM SHOPPING_CARTS WHERE CART_ID = ?", cartId);
                if (cart.remove(0L) == null) {
                    missingCarts++;
                    if (firstProblem == null) firstProblem = "order " + orderId + " has no cart " + cartId;
                    continue;
                }
                Map<Long, Long> ordered = lines(any, "SELECT ITEM_ID, QTY FROM ORDER_LINES WHERE O_ID = ?", orderId);
                if (!cart.equals(ordered)) {
                    mismatched++;
                    if (firstProblem == null) firstProblem = "order " + orderId + " lines " + ordered + " but cart "
                            + cartId + " holds " + cart;
                }
            }
        }
        if (missingCarts > 0) violations.add(missingCarts + " orders without their cart (" + firstProblem + ")");
        if (mismatched > 0) violations.add(mismatched + " orders differ from their cart (" + firstProblem + ")");
        return violations;
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static Map<Long, Long> lines(Connection c, String sql, long key) throws SQLException {
        Map<Long, Long> out = new TreeMap<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.put(rs.getLong(1), rs.getLong(2));
            }
        }
        return out;
    }
}
