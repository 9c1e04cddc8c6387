package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** New Products: the 50 most recently published books of a subject. Read-only. */
public final class GetNewProducts implements Transaction {

    static final String NEWEST = "SELECT I.I_ID, I.I_TITLE, A.A_FNAME, A.A_LNAME FROM ITEM I, AUTHOR A "
            + "WHERE I.I_SUBJECT = ? AND A.A_ID = I.I_A_ID ORDER BY I.I_PUB_DATE DESC, I.I_TITLE, I.I_ID LIMIT 50";

    public List<Object> run(TxContext ctx, String subject) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(NEWEST)) {
            ps.setString(1, subject);
            try (ResultSet rs = ps.executeQuery()) {
                return Rows.all(rs, 4);
            }
        }
    }
}
