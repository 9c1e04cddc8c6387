package dev.gyro.apps.micro;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;

/**
 * A void local operation (paper Section VII-A: "transactions are void: they are processed by Gyro but not
 * submitted to the DBMS"): takes {@code serviceMillis} and sends no statement. Measures pure coordination cost.
 */
public final class VoidLocal implements Transaction {

    public long run(TxContext ctx, long partition, int serviceMillis) {
        Micro.serve(serviceMillis);
        return partition;
    }
}
