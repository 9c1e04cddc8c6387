package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;

/**
 * Search Results by title: books whose title contains the words, up to 50. Read-only. Comparing upper cases keeps
 * LIKE case-insensitive on every backend (SQLite's LIKE ignores case, PostgreSQL's does not).
 */
public final class DoTitleSearch implements Transaction {

    static final String SEARCH = "SELECT I.I_ID, I.I_TITLE, A.A_FNAME, A.A_LNAME FROM ITEM I, AUTHOR A "
            + "WHERE UPPER(I.I_TITLE) LIKE ? AND A.A_ID = I.I_A_ID ORDER BY I.I_TITLE, I.I_ID LIMIT 50";

    public List<Object> run(TxContext ctx, String title) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(SEARCH)) {
            ps.setString(1, "%" + title.toUpperCase(Locale.ROOT) + "%");
            try (ResultSet rs = ps.executeQuery()) {
                return Rows.all(rs, 4);
            }
        }
    }
}
