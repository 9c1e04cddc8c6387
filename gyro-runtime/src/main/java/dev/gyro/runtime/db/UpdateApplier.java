package dev.gyro.runtime.db;

import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Applies state updates (row images, docs/decisions.md, decision 4) to an instance's database: each
 * {@link RowChange.Kind#UPSERT} as an upsert by primary key that leaves exactly the image's values, each
 * {@link RowChange.Kind#DELETE} as a delete by key. Both are idempotent, so applying an update twice, or
 * re-applying after a crash, leaves the same state (Algorithm 1, line 12; docs/decisions.md, decision 5).
 *
 * <p>Everything runs on the caller's connection, inside the caller's transaction: the runtime applies a
 * token's updates and records the new last gsn ({@link MetadataStore#recordReceived}) in ONE transaction
 * (Action.ApplyUpdates). Nothing is committed or rolled back here. Foreign-key checks are deferred to commit
 * ({@link Dialect#beforeApply}) because row images come in the origin's write order, which need not satisfy
 * them row by row.
 *
 * <p>Consecutive changes of the same shape (table, kind, columns) run as one JDBC batch. A token's updates are applied
 * as one run of changes ({@link #applyAll}): the dialect's set-up and catch-up statements run once per token, not once
 * per update, and a run of one shape may span two updates. Order is kept exactly, so the result is the same.
 */
public final class UpdateApplier {

    private UpdateApplier() {}

    /** Applies the changes of each update in order, with the dialect of {@code connection}'s DBMS. */
    public static void applyAll(Connection connection, List<StateUpdate> updates) throws SQLException {
        applyAll(connection, Dialect.of(connection), updates);
    }

    /**
     * Applies the changes of each update in order, as one run of changes (the updates a token brings, Algorithm 1,
     * lines 11-12): on a database server every statement saved is a round trip saved at every hop.
     */
    public static void applyAll(Connection connection, Dialect dialect, List<StateUpdate> updates) throws SQLException {
        if (updates.size() == 1) {
            apply(connection, dialect, updates.get(0).changes());
            return;
        }
        List<RowChange> all = new ArrayList<>();
        for (StateUpdate u : updates) all.addAll(u.changes());
        apply(connection, dialect, all);
    }

    /** Applies {@code changes} in order, with the dialect of {@code connection}'s DBMS. */
    public static void apply(Connection connection, List<RowChange> changes) throws SQLException {
        apply(connection, Dialect.of(connection), changes);
    }

    /**
     * Applies {@code changes} in order on {@code connection}, inside its current transaction.
     *
     * @throws SQLException naming the table (and columns) when a change cannot be applied -- unknown table or
     *                      column, constraint violation -- with the DBMS's SQLState and error code kept so a lost
     *                      race is still recognisable as one; the caller must roll back
     */
    public static void apply(Connection connection, Dialect dialect, List<RowChange> changes) throws SQLException {
        if (changes.isEmpty()) return;
        CapturingConnection capture = CapturingConnection.of(connection);
        if (capture != null) { // a replicated group's transaction: applied as they are, carried as they are
            try {
                apply(capture.real(), dialect, changes);
            } catch (SQLException | RuntimeException e) {
                capture.spoil(e instanceof SQLException s ? s : new SQLException(e.toString(), e));
                throw e;
            }
            capture.record(changes);
            return;
        }
        dialect.beforeApply(connection);
        Set<String> upserted = new LinkedHashSet<>();
        int i = 0;
        while (i < changes.size()) {
            RowChange first = changes.get(i);
            int end = i + 1;
            while (end < changes.size() && sameShape(first, changes.get(end))) end++;
            applyRun(connection, dialect, changes.subList(i, end));
            if (first.kind() == RowChange.Kind.UPSERT) upserted.add(first.table());
            i = end;
        }
        if (!upserted.isEmpty())
            dialect.afterApply(connection, upserted, TableCatalog.forUrl(connection.getMetaData().getURL()));
    }

    private static boolean sameShape(RowChange a, RowChange b) {
        return a.kind() == b.kind() && a.table().equals(b.table()) && a.columns().equals(b.columns())
                && a.keyColumns().equals(b.keyColumns());
    }

    private static void applyRun(Connection connection, Dialect dialect, List<RowChange> run) throws SQLException {
        RowChange first = run.get(0);
        boolean upsert = first.kind() == RowChange.Kind.UPSERT;
        String sql = upsert
                ? dialect.upsertSql(first.table(), first.columns(), first.keyColumns())
                : dialect.deleteSql(first.table(), first.keyColumns());
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            for (RowChange change : run) {
                List<Value> values = upsert ? change.values() : change.keyValues();
                for (int p = 0; p < values.size(); p++) dialect.bind(ps, p + 1, values.get(p));
                if (run.size() == 1) {
                    ps.executeUpdate();
                } else {
                    ps.addBatch();
                }
            }
            if (run.size() > 1) ps.executeBatch();
        } catch (SQLException e) {
            throw new SQLException("cannot apply " + run.size() + " row change(s) (" + first.kind() + ") to table "
                    + first.table() + " with columns " + (upsert ? first.columns() : first.keyColumns()) + ": "
                    + e.getMessage(), e.getSQLState(), e.getErrorCode(), e);
        }
    }
}
