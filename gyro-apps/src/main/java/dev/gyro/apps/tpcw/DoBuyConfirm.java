package dev.gyro.apps.tpcw;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;

import java.sql.SQLException;

/** Buy Confirm, shipping to the customer's own address. Returns the new order's id. */
public final class DoBuyConfirm implements Transaction {

    public long run(TxContext ctx, long shoppingId, long customerId, String ccType, String ccNumber, String ccName,
                    long ccExpiry, String shipType) throws SQLException {
        return Purchase.confirm(ctx, shoppingId, customerId, ccType, ccNumber, ccName, ccExpiry, shipType, 0);
    }
}
