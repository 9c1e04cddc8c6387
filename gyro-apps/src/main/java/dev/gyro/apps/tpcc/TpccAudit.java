package dev.gyro.apps.tpcc;

import dev.gyro.app.Audit;
import dev.gyro.apps.AuditQueries;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.Value;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * TPC-C's consistency conditions 1-4 (clause 3.3.2), checked for each warehouse at the instance that owns it, plus
 * two of the pending tables': every pending stock line and payment belongs to an order line and a history row.
 */
final class TpccAudit implements Audit {

    private final int warehouses;

    TpccAudit(int warehouses) {
        this.warehouses = warehouses;
    }

    static final String CONDITION_1 = "SELECT W.W_ID, W.W_YTD, (SELECT SUM(D.D_YTD) FROM DISTRICT D WHERE D.D_W_ID = W.W_ID) "
            + "FROM WAREHOUSE W WHERE W.W_ID = %d AND W.W_YTD <> (SELECT SUM(D.D_YTD) FROM DISTRICT D WHERE D.D_W_ID = W.W_ID)";
    static final String CONDITION_2 = "SELECT D.D_ID, D.D_NEXT_O_ID, "
            + "(SELECT MAX(O.O_ID) FROM ORDERS O WHERE O.O_W_ID = D.D_W_ID AND O.O_D_ID = D.D_ID), "
            + "(SELECT MAX(N.NO_O_ID) FROM NEW_ORDER N WHERE N.NO_W_ID = D.D_W_ID AND N.NO_D_ID = D.D_ID) "
            + "FROM DISTRICT D WHERE D.D_W_ID = %d AND (D.D_NEXT_O_ID - 1 <> "
            + "(SELECT MAX(O.O_ID) FROM ORDERS O WHERE O.O_W_ID = D.D_W_ID AND O.O_D_ID = D.D_ID) OR D.D_NEXT_O_ID - 1 <> "
            + "COALESCE((SELECT MAX(N.NO_O_ID) FROM NEW_ORDER N WHERE N.NO_W_ID = D.D_W_ID AND N.NO_D_ID = D.D_ID), "
            + "D.D_NEXT_O_ID - 1)) ORDER BY D.D_ID";
    static final String CONDITION_3 = "SELECT N.NO_D_ID, MAX(N.NO_O_ID), MIN(N.NO_O_ID), COUNT(*) FROM NEW_ORDER N "
            + "WHERE N.NO_W_ID = %d GROUP BY N.NO_D_ID HAVING MAX(N.NO_O_ID) - MIN(N.NO_O_ID) + 1 <> COUNT(*) ORDER BY 1";
    static final String CONDITION_4 = "SELECT D.D_ID, "
            + "(SELECT SUM(O.O_OL_CNT) FROM ORDERS O WHERE O.O_W_ID = D.D_W_ID AND O.O_D_ID = D.D_ID), "
            + "(SELECT COUNT(*) FROM ORDER_LINE L WHERE L.OL_W_ID = D.D_W_ID AND L.OL_D_ID = D.D_ID) "
            + "FROM DISTRICT D WHERE D.D_W_ID = %d AND (SELECT SUM(O.O_OL_CNT) FROM ORDERS O WHERE O.O_W_ID = D.D_W_ID "
            + "AND O.O_D_ID = D.D_ID) <> (SELECT COUNT(*) FROM ORDER_LINE L WHERE L.OL_W_ID = D.D_W_ID AND L.OL_D_ID = D.D_ID) "
            + "ORDER BY D.D_ID";
    static final String STRAY_STOCK_PENDING = "SELECT P.SP_O_W_ID, P.SP_O_D_ID, P.SP_O_ID, P.SP_OL_NUMBER FROM STOCK_PENDING P "
            + "WHERE P.SP_W_ID = %d AND NOT EXISTS (SELECT 1 FROM ORDER_LINE L WHERE L.OL_W_ID = P.SP_O_W_ID "
            + "AND L.OL_D_ID = P.SP_O_D_ID AND L.OL_O_ID = P.SP_O_ID AND L.OL_NUMBER = P.SP_OL_NUMBER "
            + "AND L.OL_SUPPLY_W_ID = P.SP_W_ID AND L.OL_I_ID = P.SP_I_ID AND L.OL_QUANTITY = P.SP_QUANTITY) ORDER BY 1, 2, 3, 4";
    static final String STRAY_YTD_PENDING = "SELECT P.YP_C_W_ID, P.YP_C_D_ID, P.YP_C_ID, P.YP_SEQ FROM YTD_PENDING P "
            + "WHERE P.YP_W_ID = %d AND NOT EXISTS (SELECT 1 FROM HISTORY H WHERE H.H_C_W_ID = P.YP_C_W_ID "
            + "AND H.H_C_D_ID = P.YP_C_D_ID AND H.H_C_ID = P.YP_C_ID AND H.H_SEQ = P.YP_SEQ AND H.H_AMOUNT = P.YP_AMOUNT "
            + "AND H.H_W_ID = P.YP_W_ID AND H.H_D_ID = P.YP_D_ID) ORDER BY 1, 2, 3, 4";

    @Override
    public List<String> conditions() {
        return List.of("1: W_YTD = sum(D_YTD) of the warehouse's districts",
                "2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) in each district",
                "3: max(NO_O_ID) - min(NO_O_ID) + 1 = the number of NEW_ORDER rows in each district",
                "4: sum(O_OL_CNT) = the number of ORDER_LINE rows in each district",
                "each pending remote stock line is an order line it was supplied for; each pending payment is in HISTORY",
                "stock: S_YTD plus the quantities still pending = the units ordered from the warehouse since the load, per item",
                "(each checked for every warehouse at the instance that owns it)");
    }

    @Override
    public List<String> check(List<Connection> instances, PartitionMap map) throws SQLException {
        List<String> out = new ArrayList<>();
        for (int w = 1; w <= warehouses; w++) {
            int i = map.instanceOf(new Value.Int(w));
            Connection c = instances.get(i);
            String at = " (warehouse " + w + ")";
            out.addAll(AuditQueries.violations(c, i, "condition 1: W_YTD = sum(D_YTD)" + at, String.format(CONDITION_1, w),
                    "W_ID", "W_YTD", "SUM_D_YTD"));
            out.addAll(AuditQueries.violations(c, i, "condition 2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)" + at,
                    String.format(CONDITION_2, w), "D_ID", "D_NEXT_O_ID", "MAX_O_ID", "MAX_NO_O_ID"));
            out.addAll(AuditQueries.violations(c, i, "condition 3: NEW_ORDER ids are contiguous" + at,
                    String.format(CONDITION_3, w), "D_ID", "MAX_NO_O_ID", "MIN_NO_O_ID", "COUNT"));
            out.addAll(AuditQueries.violations(c, i, "condition 4: sum(O_OL_CNT) = count(ORDER_LINE)" + at,
                    String.format(CONDITION_4, w), "D_ID", "SUM_O_OL_CNT", "ORDER_LINES"));
            out.addAll(AuditQueries.violations(c, i, "pending stock lines match order lines" + at,
                    String.format(STRAY_STOCK_PENDING, w), "SP_O_W_ID", "SP_O_D_ID", "SP_O_ID", "SP_OL_NUMBER"));
            out.addAll(AuditQueries.violations(c, i, "pending payments match history" + at,
                    String.format(STRAY_YTD_PENDING, w), "YP_C_W_ID", "YP_C_D_ID", "YP_C_ID", "YP_SEQ"));
            out.addAll(stockConservation(c, i, w));
        }
        return out;
    }

    static final String STOCK_YTD = "SELECT S_I_ID, S_YTD FROM STOCK WHERE S_W_ID = ?";
    static final String PENDING_BY_ITEM = "SELECT SP_I_ID, SUM(SP_QUANTITY) FROM STOCK_PENDING WHERE SP_W_ID = ? GROUP BY SP_I_ID";
    static final String ORDERED_BY_ITEM = "SELECT L.OL_I_ID, SUM(L.OL_QUANTITY) FROM ORDER_LINE L, ORDERS O "
            + "WHERE L.OL_SUPPLY_W_ID = ? AND O.O_W_ID = L.OL_W_ID AND O.O_D_ID = L.OL_D_ID AND O.O_ID = L.OL_O_ID "
            + "AND O.O_ENTRY_D > ? GROUP BY L.OL_I_ID";

    private static List<String> stockConservation(Connection c, int instance, int w) throws SQLException {
        java.util.Map<Long, Long> ytd = sums(c, STOCK_YTD, w, null), pending = sums(c, PENDING_BY_ITEM, w, null),
                ordered = sums(c, ORDERED_BY_ITEM, w, TpccLoader.LOAD_EPOCH);
        int bad = 0;
        String first = null;
        for (java.util.Map.Entry<Long, Long> e : ytd.entrySet()) {
            long item = e.getKey(), supplied = e.getValue() + pending.getOrDefault(item, 0L);
            long expected = ordered.getOrDefault(item, 0L);
            if (supplied != expected && bad++ == 0)
                first = "(S_I_ID=" + item + ", S_YTD=" + e.getValue() + ", pending=" + pending.getOrDefault(item, 0L)
                        + ", ordered=" + expected + ")";
        }
        if (bad == 0) return List.of();
        return List.of("instance " + instance + ": violated: stock S_YTD + pending = units ordered (warehouse " + w
                + "): " + bad + " item(s), e.g. " + first);
    }

    private static java.util.Map<Long, Long> sums(Connection c, String sql, int w, Long since) throws SQLException {
        java.util.Map<Long, Long> out = new java.util.HashMap<>();
        try (java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setInt(1, w);
            if (since != null) ps.setLong(2, since);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.put(rs.getLong(1), rs.getLong(2));
            }
        }
        return out;
    }
}
