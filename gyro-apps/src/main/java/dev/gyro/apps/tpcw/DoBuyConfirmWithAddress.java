package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;

import java.sql.SQLException;

/** Buy Confirm with another shipping address, entered first. Returns the new order's id. */
public final class DoBuyConfirmWithAddress implements Transaction {

    public long run(TxContext ctx, long shoppingId, long customerId, String ccType, String ccNumber, String ccName,
                    long ccExpiry, String shipType, String street1, String street2, String city, String state,
                    String zip, int countryId) throws SQLException {
        long shipTo = Addresses.enter(ctx.connection(), street1, street2, city, state, zip, countryId);
        return Purchase.confirm(ctx, shoppingId, customerId, ccType, ccNumber, ccName, ccExpiry, shipType, shipTo);
    }
}
