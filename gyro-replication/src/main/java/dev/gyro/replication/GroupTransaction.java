package dev.gyro.replication;

import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.runtime.db.UpdateApplier;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The leader's DBMS transaction of one request (docs/decisions.md, decisions 4 and 22). Everything it changes reaches
 * the group's log as row images, by one of three ways:
 * <ul>
 *   <li>{@link #connection()}: the application's transaction, captured, its writes to Gyro's own tables refused as
 *       always;</li>
 *   <li>{@link #applyUpdates}: state updates of other ring positions (a token's, Action.ApplyUpdates), which already
 *       are row images: applied with the runtime's applier and carried as they are;</li>
 *   <li>{@link #metadata()}: the runtime's writes of Gyro's metadata ({@code MetadataStore}), captured.</li>
 * </ul>
 * The log entry carries the applied updates, then the application's row images, then the metadata's: the order in which
 * the runtime writes them (a token's updates, or a global request's writes, before the gsn and token that record them;
 * the two never share a transaction, Action.ApplyUpdates and Action.ExecuteGlobal).
 */
public final class GroupTransaction {

    private final Connection real;
    private final Dialect dialect;
    private final Connection application;
    private final Connection metadata;
    private final List<RowChange> applied = new ArrayList<>();

    GroupTransaction(Connection real, Dialect dialect, Connection application, Connection metadata) {
        this.real = real;
        this.dialect = dialect;
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

    /** Applies {@code updates} in this transaction ({@link UpdateApplier}) and carries their row images in the entry. */
    public void applyUpdates(List<StateUpdate> updates) throws SQLException {
        for (StateUpdate u : updates) {
            UpdateApplier.apply(real, dialect, u.changes());
            applied.addAll(u.changes());
        }
    }

    List<RowChange> applied() {
        return applied;
    }
}
