package dev.gyro.runtime.db;

import java.sql.SQLException;
import java.util.Optional;

/**
 * Whether write capture accepts an SQL text, asked without a database: the same judgement a global request's
 * connection makes when the statement runs (docs/decisions/04-row-images.md), so that an application whose global
 * transactions use SQL Gyro cannot capture is refused when it is loaded, not on its first global request.
 */
public final class CapturePolicy {

    private CapturePolicy() {}

    /** Why capture refuses {@code sql}, or empty when it accepts it (table-dependent checks happen at run time). */
    public static Optional<String> refusal(String sql) {
        try {
            WriteStatement.classify(sql);
            return Optional.empty();
        } catch (SQLException e) {
            return Optional.of(e.getMessage());
        }
    }
}
