package dev.gyro.apps.rubis;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The seller edits an open auction's description and buy-now price. Local: only requests of the same item read them
 * (the searches and the seller's page list names and prices, which only global requests write).
 */
public final class UpdateItem implements Transaction {

    static final String UPDATE_ITEM = "UPDATE ITEMS SET I_DESCRIPTION = ?, I_BUY_NOW = ? WHERE I_ID = ? AND I_SELLER = ?";

    public long run(TxContext ctx, long itemId, long sellerId, String description, long buyNowPrice) throws SQLException {
        if (buyNowPrice < 0) throw new UserAbort("the buy-now price must not be negative");
        try (PreparedStatement ps = ctx.connection().prepareStatement(UPDATE_ITEM)) {
            ps.setString(1, description);
            ps.setLong(2, buyNowPrice);
            ps.setLong(3, itemId);
            ps.setLong(4, sellerId);
            if (ps.executeUpdate() == 0) throw new UserAbort("user " + sellerId + " sells no open auction " + itemId);
        }
        return itemId;
    }
}
