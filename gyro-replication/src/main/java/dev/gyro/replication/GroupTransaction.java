package dev.gyro.replication;

import dev.gyro.protocol.StateUpdate;
import dev.gyro.runtime.db.CapturingConnection;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.runtime.db.TableCatalog;
import dev.gyro.runtime.db.UpdateApplier;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The leader's DBMS transaction of one request (docs/decisions/04-row-images.md, docs/decisions/22-group-log.md and
 * docs/decisions/24-ring-on-groups.md). Everything it changes is captured, in write order, for the group's log, by one
 * of three ways:
 * <ul>
 *   <li>{@link #connection()}: the application's transaction, captured, its writes to Gyro's own tables refused as
 *       always;</li>
 *   <li>{@link #applyUpdates}: state updates of other ring positions (a token's, Action.ApplyUpdates), which already
 *       are row images: applied with the runtime's applier and carried as they are;</li>
 *   <li>{@link #metadata()}: the runtime's writes of Gyro's metadata ({@code MetadataStore}), captured.</li>
 * </ul>
 */
public final class GroupTransaction {

    private final Connection replicated;
    private final Dialect dialect;
    private final Connection application;

    /** @param replicated the transaction's connection as {@link GroupReplica#begin()} gave it (it captures everything) */
    GroupTransaction(Connection replicated, Dialect dialect, TableCatalog tables) {
        this.replicated = replicated;
        this.dialect = dialect;
        this.application = CapturingConnection.wrap(replicated, dialect, tables).connection();
    }

    /** The connection the application's transaction runs on. */
    public Connection connection() {
        return application;
    }

    /** The connection Gyro's metadata writes of this request go through. */
    public Connection metadata() {
        return replicated;
    }

    /** Applies {@code updates} in this transaction ({@link UpdateApplier}) and carries their row images in the entry. */
    public void applyUpdates(List<StateUpdate> updates) throws SQLException {
        for (StateUpdate u : updates) UpdateApplier.apply(replicated, dialect, u.changes());
    }
}
