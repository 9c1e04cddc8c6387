package dev.gyro.runtime.db;

import java.sql.SQLException;

/**
 * A write the instance's database cannot take now, though nothing is wrong with the request: its replicated group has
 * no majority, or this replica no longer leads it (docs/decisions/10-errors.md and
 * docs/decisions/24-ring-on-groups.md). The request is answered UNAVAILABLE with this message.
 * {@link #outcomeUnknown()} says whether it may still commit (its row images are in a log that may yet reach a
 * majority) or surely changed nothing.
 */
public class UnavailableException extends SQLException {

    /** SQLState of a connection that failed (class 08): the write may be tried again elsewhere or later. */
    public static final String SQL_STATE = "08006";

    private final boolean outcomeUnknown;

    public UnavailableException(String message, boolean outcomeUnknown) {
        super(message, SQL_STATE);
        this.outcomeUnknown = outcomeUnknown;
    }

    /** True when the write may still commit; false when it surely changed nothing anywhere. */
    public boolean outcomeUnknown() {
        return outcomeUnknown;
    }
}
