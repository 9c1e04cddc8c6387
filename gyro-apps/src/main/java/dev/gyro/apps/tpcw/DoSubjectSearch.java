package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** Search Results by subject: up to 50 books, by title. Read-only. Rows of (id, title, author first, last name). */
public final class DoSubjectSearch implements Transaction {

    static final String SEARCH = "SELECT I.I_ID, I.I_TITLE, A.A_FNAME, A.A_LNAME FROM ITEM I, AUTHOR A "
            + "WHERE I.I_SUBJECT = ? AND A.A_ID = I.I_A_ID ORDER BY I.I_TITLE, I.I_ID LIMIT 50";

    public List<Object> run(TxContext ctx, String subject) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(SEARCH)) {
            ps.setString(1, subject);
            try (ResultSet rs = ps.executeQuery()) {
                return Rows.all(rs, 4);
            }
        }
    }
}
