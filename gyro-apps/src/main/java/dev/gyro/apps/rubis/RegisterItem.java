package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Register Item: a new auction with the next id from IDS, ending {@code durationDays} from now. Returns the new id.
 * Global: the searches of every instance read the set of open auctions.
 */
public final class RegisterItem implements Transaction {

    static final String SELLER = "SELECT U_ID FROM USERS WHERE U_ID = ?";
    static final String CATEGORY = "SELECT CA_ID FROM CATEGORIES WHERE CA_ID = ?";
    static final String NEXT_ID = "SELECT ID_NEXT FROM IDS WHERE ID_NAME = 'ITEMS'";
    static final String TAKE_ID = "UPDATE IDS SET ID_NEXT = ? WHERE ID_NAME = 'ITEMS'";
    static final String INSERT_ITEM = "INSERT INTO ITEMS (I_ID, I_NAME, I_DESCRIPTION, I_INITIAL_PRICE, I_QUANTITY, "
            + "I_RESERVE_PRICE, I_BUY_NOW, I_NB_OF_BIDS, I_MAX_BID, I_START_DATE, I_END_DATE, I_SELLER, I_CATEGORY) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?, ?, ?)";

    public long run(TxContext ctx, long sellerId, int categoryId, String name, String description, long initialPrice,
                    long reservePrice, long buyNowPrice, int quantity, int durationDays) throws SQLException {
        if (initialPrice <= 0 || quantity < 1 || durationDays < 1 || reservePrice < 0 || buyNowPrice < 0)
            throw new UserAbort("prices, quantity and duration must be positive");
        Connection c = ctx.connection();
        try (PreparedStatement ps = c.prepareStatement(SELLER)) {
            ps.setLong(1, sellerId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no user " + sellerId);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(CATEGORY)) {
            ps.setInt(1, categoryId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new UserAbort("no category " + categoryId);
            }
        }
        long id;
        try (PreparedStatement ps = c.prepareStatement(NEXT_ID); ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) throw new SQLException("IDS has no ITEMS counter");
            id = rs.getLong(1);
        }
        try (PreparedStatement ps = c.prepareStatement(TAKE_ID)) {
            ps.setLong(1, id + 1);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_ITEM)) {
            ps.setLong(1, id);
            ps.setString(2, name);
            ps.setString(3, description);
            ps.setLong(4, initialPrice);
            ps.setInt(5, quantity);
            ps.setLong(6, reservePrice);
            ps.setLong(7, buyNowPrice);
            ps.setLong(8, ctx.now());
            ps.setLong(9, ctx.now() + durationDays * 86_400_000L);
            ps.setLong(10, sellerId);
            ps.setInt(11, categoryId);
            ps.executeUpdate();
        }
        return id;
    }
}
