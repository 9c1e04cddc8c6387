package dev.gyro.apps.micro;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;
import dev.gyro.app.UserAbort;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * A global operation of the micro-benchmark: takes {@code serviceMillis}, then counts itself in one shared row and
 * in the shared total (row 0). Global: the shared rows are written by requests of every partition.
 */
public final class GlobalOp implements Transaction {

    static final String BUMP_SHARED = "UPDATE MICRO_SHARED SET MS_VALUE = MS_VALUE + 1 WHERE MS_KEY = ?";
    static final String BUMP_TOTAL = "UPDATE MICRO_SHARED SET MS_VALUE = MS_VALUE + 1 WHERE MS_KEY = 0";

    public long run(TxContext ctx, long partition, int key, int serviceMillis) throws SQLException {
        if (key <= 0) throw new UserAbort("shared key must be positive, was " + key);
        Micro.serve(serviceMillis);
        Connection c = ctx.connection();
        try (PreparedStatement ps = c.prepareStatement(BUMP_SHARED)) {
            ps.setInt(1, key);
            if (ps.executeUpdate() == 0) throw new UserAbort("no shared row " + key);
        }
        try (PreparedStatement ps = c.prepareStatement(BUMP_TOTAL)) {
            ps.executeUpdate();
        }
        return partition;
    }
}
