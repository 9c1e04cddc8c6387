package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** The promotional strip of Home, Search Request and others: a book's five related books. Read-only. */
public final class GetRelated implements Transaction {

    static final String RELATED = "SELECT J.I_ID, J.I_THUMBNAIL FROM ITEM I, ITEM J WHERE I.I_ID = ? AND "
            + "J.I_ID IN (I.I_RELATED1, I.I_RELATED2, I.I_RELATED3, I.I_RELATED4, I.I_RELATED5) ORDER BY J.I_ID";

    public List<Object> run(TxContext ctx, long itemId) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(RELATED)) {
            ps.setLong(1, itemId);
            try (ResultSet rs = ps.executeQuery()) {
                return Rows.all(rs, 2);
            }
        }
    }
}
