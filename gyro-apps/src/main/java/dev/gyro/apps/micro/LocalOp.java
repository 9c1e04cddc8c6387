package dev.gyro.apps.micro;

import dev.gyro.app.Transaction;
import dev.gyro.app.TxContext;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * A local operation of the micro-benchmark (paper Section VII-B): takes {@code serviceMillis} of execution time,
 * then counts itself in its own partition's rows. Local: MICRO_ROWS and MICRO_PARTITION rows of a partition are
 * read and written only by requests of that partition.
 */
public final class LocalOp implements Transaction {

    static final String BUMP_ROW = "UPDATE MICRO_ROWS SET MR_VALUE = MR_VALUE + 1 WHERE MR_PARTITION = ? AND MR_KEY = ?";
    static final String INSERT_ROW = "INSERT INTO MICRO_ROWS (MR_PARTITION, MR_KEY, MR_VALUE) VALUES (?, ?, 1)";
    static final String BUMP_PARTITION = "UPDATE MICRO_PARTITION SET MP_OPS = MP_OPS + 1 WHERE MP_PARTITION = ?";
    static final String INSERT_PARTITION = "INSERT INTO MICRO_PARTITION (MP_PARTITION, MP_OPS) VALUES (?, 1)";

    public long run(TxContext ctx, long partition, int key, int serviceMillis) throws SQLException {
        Micro.serve(serviceMillis);
        Connection c = ctx.connection();
        int updated;
        try (PreparedStatement ps = c.prepareStatement(BUMP_ROW)) {
            ps.setLong(1, partition);
            ps.setInt(2, key);
            updated = ps.executeUpdate();
        }
        if (updated == 0) {
            try (PreparedStatement ps = c.prepareStatement(INSERT_ROW)) {
                ps.setLong(1, partition);
                ps.setInt(2, key);
                ps.executeUpdate();
            }
        }
        try (PreparedStatement ps = c.prepareStatement(BUMP_PARTITION)) {
            ps.setLong(1, partition);
            updated = ps.executeUpdate();
        }
        if (updated == 0) {
            try (PreparedStatement ps = c.prepareStatement(INSERT_PARTITION)) {
                ps.setLong(1, partition);
                ps.executeUpdate();
            }
        }
        return partition;
    }
}
