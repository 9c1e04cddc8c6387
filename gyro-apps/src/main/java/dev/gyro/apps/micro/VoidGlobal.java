package dev.gyro.apps.micro;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;

/**
 * A void global operation: ordered by the token like any global request, takes {@code serviceMillis}, sends no
 * statement and so ships an empty state update.
 */
public final class VoidGlobal implements Transaction {

    public long run(TxContext ctx, long partition, int serviceMillis) {
        Micro.serve(serviceMillis);
        return partition;
    }
}
