package dev.gyro.replication;

import java.sql.Connection;

/**
 * The leader's DBMS transaction of one request, seen through two capturing connections over the same JDBC connection
 * (docs/decisions.md, decisions 4 and 21): {@link #connection()} for the application's transaction, whose writes to
 * Gyro's own tables are refused as always, and {@link #metadata()} for the runtime's writes of Gyro's metadata
 * ({@code MetadataStore}), captured too. The log entry carries the application's row images, then the metadata's, the
 * order in which the runtime writes them (a global request's gsn and update after its writes, Action.ExecuteGlobal).
 */
public final class GroupTransaction {

    private final Connection application;
    private final Connection metadata;

    GroupTransaction(Connection application, Connection metadata) {
        this.application = application;
        this.metadata = metadata;
    }

    /** The connection the application's transaction runs on. */
    public Connection connection() {
        return application;
    }

    /** The connection Gyro's metadata writes of this request go through. */
    public Connection metadata() {
        return metadata;
    }
}
