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
 * Search Items by Category: one page of a category's open auctions, soonest ending first. Read-only. Lists only what
 * global requests write (name, initial price, end date): an auction's current bid lives at its item's instance and is
 * shown by viewItem. Rows of (id, name, initial price, end date).
 */
public final class SearchItemsByCategory implements Transaction {

    static final String SEARCH = "SELECT I_ID, I_NAME, I_INITIAL_PRICE, I_END_DATE FROM ITEMS WHERE I_CATEGORY = ? "
            + "ORDER BY I_END_DATE, I_ID LIMIT ? OFFSET ?";

    public List<Object> run(TxContext ctx, int categoryId, int page, int pageSize) throws SQLException {
        if (page < 0 || pageSize < 1 || pageSize > 100) throw new UserAbort("bad page " + page + " of size " + pageSize);
        try (PreparedStatement ps = ctx.connection().prepareStatement(SEARCH)) {
            ps.setInt(1, categoryId);
            ps.setInt(2, pageSize);
            ps.setInt(3, page * pageSize);
            try (ResultSet rs = ps.executeQuery()) {
                return Rows.all(rs, 4);
            }
        }
    }
}
