package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;
import dev.gyro.apps.Rows;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * About Me: the user's own page. Read-only. Returns nickname, rating, then five counted sections, each as its row
 * count followed by its rows: bids placed (item, seq, bid), purchases (item, seq, quantity), auctions selling (item,
 * name, initial price, end date), comments received (from, rating, comment), comments written (to, rating, comment).
 */
public final class AboutMe implements Transaction {

    static final String USER = "SELECT U_NICKNAME, U_RATING FROM USERS WHERE U_ID = ?";
    static final String BIDS = "SELECT B_ITEM_ID, B_SEQ, B_BID FROM BIDS WHERE B_USER_ID = ? ORDER BY B_DATE DESC, B_ITEM_ID LIMIT 20";
    static final String BOUGHT = "SELECT BN_ITEM_ID, BN_SEQ, BN_QTY FROM BUY_NOW WHERE BN_BUYER_ID = ? ORDER BY BN_DATE DESC, BN_ITEM_ID LIMIT 20";
    static final String SELLING = "SELECT I_ID, I_NAME, I_INITIAL_PRICE, I_END_DATE FROM ITEMS WHERE I_SELLER = ? ORDER BY I_ID LIMIT 20";
    static final String COMMENTS = "SELECT CM_FROM_USER_ID, CM_RATING, CM_COMMENT FROM COMMENTS WHERE CM_TO_USER_ID = ? "
            + "ORDER BY CM_SEQ DESC LIMIT 20";
    static final String WRITTEN = "SELECT CM_TO_USER_ID, CM_RATING, CM_COMMENT FROM COMMENTS WHERE CM_FROM_USER_ID = ? "
            + "ORDER BY CM_DATE DESC, CM_TO_USER_ID, CM_SEQ LIMIT 20";

    public List<Object> run(TxContext ctx, long userId) throws SQLException {
        Connection c = ctx.connection();
        List<Object> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(USER)) {
            ps.setLong(1, userId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no user " + userId);
                out.addAll(Rows.current(rs, 2));
            }
        }
        try (PreparedStatement ps = c.prepareStatement(BIDS)) {
            ps.setLong(1, userId);
            try (ResultSet rs = ps.executeQuery()) {
                section(out, Rows.all(rs, 3), 3);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(BOUGHT)) {
            ps.setLong(1, userId);
            try (ResultSet rs = ps.executeQuery()) {
                section(out, Rows.all(rs, 3), 3);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(SELLING)) {
            ps.setLong(1, userId);
            try (ResultSet rs = ps.executeQuery()) {
                section(out, Rows.all(rs, 4), 4);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(COMMENTS)) {
            ps.setLong(1, userId);
            try (ResultSet rs = ps.executeQuery()) {
                section(out, Rows.all(rs, 3), 3);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(WRITTEN)) {
            ps.setLong(1, userId);
            try (ResultSet rs = ps.executeQuery()) {
                section(out, Rows.all(rs, 3), 3);
            }
        }
        return out;
    }

    private static void section(List<Object> out, List<Object> rows, int width) {
        out.add((long) (rows.size() / width));
        out.addAll(rows);
    }
}
