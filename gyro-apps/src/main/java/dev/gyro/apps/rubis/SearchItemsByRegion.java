package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * Search Items by Region: one page of a category's open auctions whose seller lives in the region. Read-only; like
 * {@link SearchItemsByCategory} it lists only what global requests write. Rows of (id, name, initial price, end date).
 */
public final class SearchItemsByRegion implements Transaction {

    static final String SEARCH = "SELECT I.I_ID, I.I_NAME, I.I_INITIAL_PRICE, I.I_END_DATE FROM ITEMS I, USERS U "
            + "WHERE I.I_CATEGORY = ? AND U.U_ID = I.I_SELLER AND U.U_REGION = ? ORDER BY I.I_END_DATE, I.I_ID LIMIT ? OFFSET ?";

    public List<Object> run(TxContext ctx, int regionId, int categoryId, int page, int pageSize) throws SQLException {
        if (page < 0 || pageSize < 1 || pageSize > 100) throw new UserAbort("bad page " + page + " of size " + pageSize);
        try (PreparedStatement ps = ctx.connection().prepareStatement(SEARCH)) {
            ps.setInt(1, categoryId);
            ps.setInt(2, regionId);
            ps.setInt(3, pageSize);
            ps.setInt(4, page * pageSize);
            try (ResultSet rs = ps.executeQuery()) {
                return Rows.all(rs, 4);
            }
        }
    }
}
