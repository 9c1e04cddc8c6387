package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;

/** Search Results by author: books by authors whose last name starts with the text, up to 50. Read-only. */
public final class DoAuthorSearch implements Transaction {

    static final String SEARCH = "SELECT I.I_ID, I.I_TITLE, A.A_FNAME, A.A_LNAME FROM AUTHOR A, ITEM I "
            + "WHERE UPPER(A.A_LNAME) LIKE ? AND I.I_A_ID = A.A_ID ORDER BY I.I_TITLE, I.I_ID LIMIT 50";

    public List<Object> run(TxContext ctx, String lastName) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(SEARCH)) {
            ps.setString(1, lastName.toUpperCase(Locale.ROOT) + "%");
            try (ResultSet rs = ps.executeQuery()) {
                return Rows.all(rs, 4);
            }
        }
    }
}
