package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Store Comment: one user rates another (-5 to 5) about an item; the rated user's rating changes by as much.
 * Returns the comment's sequence number within the rated user.
 */
public final class StoreComment implements Transaction {

    static final String USERS = "SELECT COUNT(*) FROM USERS WHERE U_ID = ? OR U_ID = ?";
    static final String ITEM = "SELECT I_ID FROM ITEMS WHERE I_ID = ? UNION SELECT I_ID FROM OLD_ITEMS WHERE I_ID = ?";
    static final String NEXT_SEQ = "SELECT COALESCE(MAX(CM_SEQ), 0) + 1 FROM COMMENTS WHERE CM_TO_USER_ID = ?";
    static final String INSERT_COMMENT = "INSERT INTO COMMENTS (CM_TO_USER_ID, CM_SEQ, CM_FROM_USER_ID, CM_ITEM_ID, "
            + "CM_RATING, CM_DATE, CM_COMMENT) VALUES (?, ?, ?, ?, ?, ?, ?)";
    static final String RATE = "UPDATE USERS SET U_RATING = U_RATING + ? WHERE U_ID = ?";

    public long run(TxContext ctx, long toUserId, long fromUserId, long itemId, int rating, String comment)
            throws SQLException {
        if (rating < -5 || rating > 5) throw new UserAbort("rating must be -5 to 5, was " + rating);
        if (toUserId == fromUserId) throw new UserAbort("users do not rate themselves");
        Connection c = ctx.connection();
        try (PreparedStatement ps = c.prepareStatement(USERS)) {
            ps.setLong(1, toUserId);
            ps.setLong(2, fromUserId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                if (rs.getLong(1) != 2) throw new UserAbort("no user " + toUserId + " or " + fromUserId);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(ITEM)) {
            ps.setLong(1, itemId);
            ps.setLong(2, itemId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no item " + itemId);
            }
        }
        long seq;
        try (PreparedStatement ps = c.prepareStatement(NEXT_SEQ)) {
            ps.setLong(1, toUserId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                seq = rs.getLong(1);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_COMMENT)) {
            ps.setLong(1, toUserId);
            ps.setLong(2, seq);
            ps.setLong(3, fromUserId);
            ps.setLong(4, itemId);
            ps.setInt(5, rating);
            ps.setLong(6, ctx.now());
            ps.setString(7, comment);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(RATE)) {
            ps.setInt(1, rating);
            ps.setLong(2, toUserId);
            ps.executeUpdate();
        }
        return seq;
    }
}
