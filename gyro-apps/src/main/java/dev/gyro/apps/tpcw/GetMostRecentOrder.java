package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Order Display: a customer's most recent order, with its lines. Read-only. Returns the order's id, date, total,
 * status, card type and shipping city, then rows of (item id, title, quantity); empty if the customer never ordered.
 */
public final class GetMostRecentOrder implements Transaction {

    static final String LAST_ORDER = "SELECT O.O_ID, O.O_DATE, O.O_TOTAL, O.O_STATUS, X.CX_TYPE, A.ADDR_CITY "
            + "FROM CUSTOMER C, ORDERS O, CC_XACTS X, ADDRESS A WHERE C.C_UNAME = ? AND O.O_C_ID = C.C_ID "
            + "AND X.CX_O_ID = O.O_ID AND A.ADDR_ID = O.O_SHIP_ADDR_ID ORDER BY O.O_DATE DESC, O.O_ID DESC LIMIT 1";
    static final String LINES = "SELECT OL.OL_I_ID, I.I_TITLE, OL.OL_QTY FROM ORDER_LINE OL, ITEM I "
            + "WHERE OL.OL_O_ID = ? AND I.I_ID = OL.OL_I_ID ORDER BY OL.OL_ID";

    public List<Object> run(TxContext ctx, String uname) throws SQLException {
        List<Object> out = new ArrayList<>();
        try (PreparedStatement ps = ctx.connection().prepareStatement(LAST_ORDER)) {
            ps.setString(1, uname);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) return out;
                out.addAll(Rows.current(rs, 6));
            }
        }
        try (PreparedStatement ps = ctx.connection().prepareStatement(LINES)) {
            ps.setLong(1, (Long) out.get(0));
            try (ResultSet rs = ps.executeQuery()) {
                out.addAll(Rows.all(rs, 3));
            }
        }
        return out;
    }
}
