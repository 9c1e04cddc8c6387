package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** Put Comment: the comment form, with the rated user's and the author's nicknames. Read-only. */
public final class PutComment implements Transaction {

    static final String FORM = "SELECT T.U_NICKNAME, F.U_NICKNAME FROM USERS T, USERS F WHERE T.U_ID = ? AND F.U_ID = ?";

    public List<Object> run(TxContext ctx, long toUserId, long fromUserId) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement(FORM)) {
            ps.setLong(1, toUserId);
            ps.setLong(2, fromUserId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no user " + toUserId + " or " + fromUserId);
                return Rows.current(rs, 2);
            }
        }
    }
}
