package dev.gyro.apps.tpcw;

import dev.gyro.app.Audit;
import dev.gyro.apps.AuditQueries;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.Value;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * TPC-W's invariants, checked on every instance (carts: at the instance that owns each cart). No '/' in the SQL:
 * MariaDB divides integers into decimals where SQLite and PostgreSQL truncate, so rounding is checked by bounds.
 */
final class TpcwAudit implements Audit {

    static final String NEGATIVE_STOCK = "SELECT I_ID, I_STOCK FROM ITEM WHERE I_STOCK < 0 ORDER BY I_ID";
    static final String ORPHAN_LINES = "SELECT OL.OL_O_ID, OL.OL_ID FROM ORDER_LINE OL WHERE NOT EXISTS "
            + "(SELECT 1 FROM ORDERS O WHERE O.O_ID = OL.OL_O_ID) ORDER BY 1, 2";
    static final String EMPTY_ORDERS = "SELECT O.O_ID FROM ORDERS O WHERE NOT EXISTS "
            + "(SELECT 1 FROM ORDER_LINE OL WHERE OL.OL_O_ID = O.O_ID) ORDER BY 1";
    static final String UNPAID_ORDERS = "SELECT O.O_ID, O.O_TOTAL FROM ORDERS O WHERE NOT EXISTS (SELECT 1 FROM CC_XACTS X "
            + "WHERE X.CX_O_ID = O.O_ID AND X.CX_XACT_AMT = O.O_TOTAL) ORDER BY 1";
    static final String WRONG_TOTALS = "SELECT O.O_ID, O.O_SUB_TOTAL, O.O_TAX, O.O_TOTAL FROM ORDERS O "
            + "WHERE O.O_TAX * 10000 > O.O_SUB_TOTAL * 825 OR (O.O_TAX + 1) * 10000 <= O.O_SUB_TOTAL * 825 "
            + "OR O.O_TOTAL <> O.O_SUB_TOTAL + O.O_TAX + 300 + 100 * "
            + "(SELECT COALESCE(SUM(OL.OL_QTY), 0) FROM ORDER_LINE OL WHERE OL.OL_O_ID = O.O_ID) ORDER BY 1";
    static final String UNKNOWN_CUSTOMERS = "SELECT O.O_ID, O.O_C_ID FROM ORDERS O WHERE NOT EXISTS "
            + "(SELECT 1 FROM CUSTOMER C WHERE C.C_ID = O.O_C_ID) ORDER BY 1";
    static final String UNKNOWN_ADDRESSES = "SELECT O.O_ID, O.O_SHIP_ADDR_ID FROM ORDERS O WHERE NOT EXISTS "
            + "(SELECT 1 FROM ADDRESS A WHERE A.ADDR_ID = O.O_SHIP_ADDR_ID) OR NOT EXISTS "
            + "(SELECT 1 FROM ADDRESS B WHERE B.ADDR_ID = O.O_BILL_ADDR_ID) ORDER BY 1";
    static final String CART_LINES = "SELECT SCL.SCL_SC_ID, SCL.SCL_I_ID, SCL.SCL_QTY, "
            + "(SELECT COUNT(*) FROM SHOPPING_CART SC WHERE SC.SC_ID = SCL.SCL_SC_ID) FROM SHOPPING_CART_LINE SCL "
            + "ORDER BY 1, 2";

    @Override
    public List<String> conditions() {
        return List.of("stock is never negative (ITEM.I_STOCK >= 0)",
                "every order line has its order; every order has at least one line",
                "every order has its card transaction, for exactly the order's total",
                "every order's tax is 8.25% of its subtotal and its total is subtotal + tax + shipping ($3 + $1 per unit)",
                "every order's customer and addresses exist",
                "every cart line belongs to an existing cart and holds 1 to " + DoCart.MAX_QTY
                        + " units (at the instance that owns the cart)");
    }

    @Override
    public List<String> check(List<Connection> instances, PartitionMap map) throws SQLException {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < instances.size(); i++) {
            Connection c = instances.get(i);
            out.addAll(AuditQueries.violations(c, i, "stock is never negative", NEGATIVE_STOCK, "I_ID", "I_STOCK"));
            out.addAll(AuditQueries.violations(c, i, "every order line has its order", ORPHAN_LINES, "OL_O_ID", "OL_ID"));
            out.addAll(AuditQueries.violations(c, i, "every order has at least one line", EMPTY_ORDERS, "O_ID"));
            out.addAll(AuditQueries.violations(c, i, "every order has its card transaction for its total",
                    UNPAID_ORDERS, "O_ID", "O_TOTAL"));
            out.addAll(AuditQueries.violations(c, i, "order total = subtotal + tax + shipping", WRONG_TOTALS,
                    "O_ID", "O_SUB_TOTAL", "O_TAX", "O_TOTAL"));
            out.addAll(AuditQueries.violations(c, i, "every order's customer exists", UNKNOWN_CUSTOMERS, "O_ID", "O_C_ID"));
            out.addAll(AuditQueries.violations(c, i, "every order's addresses exist", UNKNOWN_ADDRESSES,
                    "O_ID", "O_SHIP_ADDR_ID"));
            int bad = 0;
            String first = null;
            try (PreparedStatement ps = c.prepareStatement(CART_LINES); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long cart = rs.getLong(1);
                    if (map.instanceOf(new Value.Int(cart)) != i) continue; // the owner holds the truth
                    long qty = rs.getLong(3);
                    if (rs.getLong(4) == 1 && qty >= 1 && qty <= DoCart.MAX_QTY) continue;
                    if (bad++ == 0) first = "(SCL_SC_ID=" + cart + ", SCL_I_ID=" + rs.getLong(2) + ", SCL_QTY=" + qty
                            + (rs.getLong(4) == 0 ? ", no such cart" : "") + ")";
                }
            }
            if (bad > 0) out.add("instance " + i + ": violated: every cart line belongs to a cart and holds 1 to "
                    + DoCart.MAX_QTY + " units: " + bad + " row(s), e.g. " + first);
        }
        return out;
    }
}
