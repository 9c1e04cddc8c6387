package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;
import dev.gyro.apps.Rows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * View User Info: a user's profile and rating, then the 20 latest comments about them. Read-only. Returns nickname,
 * first name, last name, rating, member since, then rows of (rating, date, comment, author nickname).
 */
public final class ViewUserInfo implements Transaction {

    static final String USER = "SELECT U_NICKNAME, U_FIRSTNAME, U_LASTNAME, U_RATING, U_CREATION_DATE FROM USERS WHERE U_ID = ?";
    static final String COMMENTS = "SELECT CM.CM_RATING, CM.CM_DATE, CM.CM_COMMENT, U.U_NICKNAME FROM COMMENTS CM, USERS U "
            + "WHERE CM.CM_TO_USER_ID = ? AND U.U_ID = CM.CM_FROM_USER_ID ORDER BY CM.CM_SEQ DESC LIMIT 20";

    public List<Object> run(TxContext ctx, long userId) throws SQLException {
        List<Object> out = new ArrayList<>();
        try (PreparedStatement ps = ctx.connection().prepareStatement(USER)) {
            ps.setLong(1, userId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no user " + userId);
                out.addAll(Rows.current(rs, 5));
            }
        }
        try (PreparedStatement ps = ctx.connection().prepareStatement(COMMENTS)) {
            ps.setLong(1, userId);
            try (ResultSet rs = ps.executeQuery()) {
                out.addAll(Rows.all(rs, 4));
            }
        }
        return out;
    }
}
