package dev.gyro.runtime.db;

import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Applies state updates (row images, docs/decisions/04-row-images.md) to an instance's database: each
 * {@link RowChange.Kind#UPSERT} as an upsert by primary key that leaves exactly the image's values, each
 * {@link RowChange.Kind#DELETE} as a delete by key. Both are idempotent, so applying an update twice, or
 * re-applying after a crash, leaves the same state (Algorithm 1, line 12; docs/decisions/05-exactly-once.md).
 * In a table without a primary key, an {@link RowChange.Kind#APPEND} is a plain insert and a
 * {@link RowChange.Kind#REMOVE} deletes one row equal in every column: they are applied once because the position
 * recorded in the same transaction says what was applied (docs/decisions/05-exactly-once.md).
 *
 * <p>Everything runs on the caller's connection, inside the caller's transaction: the runtime applies a
 * token's updates and records the new last gsn ({@link MetadataStore#recordReceived}) in ONE transaction
 * (Action.ApplyUpdates). Nothing is committed or rolled back here. Foreign-key checks are deferred to commit
 * ({@link Dialect#beforeApply}) because row images come in the origin's write order, which need not satisfy
 * them row by row.
 *
 * <p>Changes of the same shape (table, kind, columns) run as one JDBC batch, grouped across a token's updates
 * ({@link #applyAll}, {@link #groupedRuns}): the dialect's set-up and catch-up statements run once per token, not once
 * per update. Every row's changes keep their order, so the result is the one the origin's order gives.
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
        TableCatalog catalog = TableCatalog.forUrl(connection.getMetaData().getURL());
        List<List<RowChange>> runs = consecutiveRuns(changes);
        List<List<RowChange>> grouped = groupedRuns(changes, orderKeeper(connection, catalog));
        if (grouped.size() < runs.size()) {
            // Grouped by shape, a change may run before one of another row that the origin wrote first: a foreign
            // key or a unique index other than the key can then refuse it although the origin's order would not.
            // That order is the fallback, from a savepoint, so the result is always the one the origin's order gives.
            Savepoint before = connection.setSavepoint();
            try {
                applyRuns(connection, dialect, grouped);
                connection.releaseSavepoint(before);
                afterApply(connection, dialect, catalog, changes);
                return;
            } catch (SQLException refused) {
                try {
                    connection.rollback(before);
                } catch (SQLException e) { // the connection itself failed: the caller rolls back everything
                    refused.addSuppressed(e);
                    throw refused;
                }
            }
        }
        applyRuns(connection, dialect, runs);
        afterApply(connection, dialect, catalog, changes);
    }

    private static void applyRuns(Connection connection, Dialect dialect, List<List<RowChange>> runs)
            throws SQLException {
        for (List<RowChange> run : runs) applyRun(connection, dialect, run);
    }

    private static void afterApply(Connection connection, Dialect dialect, TableCatalog catalog,
                                   List<RowChange> changes) throws SQLException {
        Set<String> upserted = new LinkedHashSet<>();
        for (RowChange c : changes) if (c.kind() != RowChange.Kind.DELETE) upserted.add(c.table());
        if (!upserted.isEmpty()) dialect.afterApply(connection, upserted, catalog);
    }

    /** Runs of consecutive changes of one shape, in the origin's order. */
    static List<List<RowChange>> consecutiveRuns(List<RowChange> changes) {
        List<List<RowChange>> runs = new ArrayList<>();
        List<RowChange> run = null;
        for (RowChange c : changes) {
            if (run == null || !shape(run.get(0)).equals(shape(c))) runs.add(run = new ArrayList<>());
            run.add(c);
        }
        return runs;
    }

    /**
     * The changes as few runs of one shape as keep the origin's order wherever it can matter: a change joins the last
     * run of its shape unless a later run already holds a change it must follow, so a token's updates (TPC-C's new
     * orders alternate stock rows and order lines) cost one batch per table and kind rather than one statement per
     * row. What a change must follow is given by {@code mustFollow}: the changes of the same row for a plain table,
     * for then changes of different rows commute ({@link #rowsOf}); more where constraints tie rows together. Where
     * the grouped order is refused all the same, {@link #apply} falls back to the origin's.
     */
    static List<List<RowChange>> groupedRuns(List<RowChange> changes, Function<RowChange, Object> mustFollow) {
        List<List<RowChange>> runs = new ArrayList<>();
        Map<List<Object>, Integer> lastRunOfShape = new HashMap<>();
        Map<Object, Integer> lastRunOf = new HashMap<>();
        for (RowChange c : changes) {
            List<Object> shape = shape(c);
            Object tie = mustFollow.apply(c);
            Integer r = lastRunOfShape.get(shape);
            Integer touched = lastRunOf.get(tie);
            if (r == null || (touched != null && touched > r)) {
                r = runs.size();
                runs.add(new ArrayList<>());
                lastRunOfShape.put(shape, r);
            }
            runs.get(r).add(c);
            lastRunOf.put(tie, r);
        }
        return runs;
    }

    /** Ties each change to its row only: for tables without constraints between rows. */
    static Object rowsOf(RowChange c) {
        return List.of(c.table().toLowerCase(Locale.ROOT), c.identity());
    }

    /**
     * What a change must follow on {@code connection}'s database ({@link #groupedRuns}): its row's earlier changes on a
     * plain table; every earlier change of its table where a UNIQUE index other than the key ties rows together (on
     * MariaDB an upsert resolves a clash on such an index by overwriting the other row, without an error to fall back
     * on); every earlier change of any table in a foreign key, where a delete may cascade to rows of another table.
     * A table the catalog cannot read keeps its order, and its apply names the problem.
     */
    private static Function<RowChange, Object> orderKeeper(Connection connection, TableCatalog catalog) {
        Map<String, Object> byTable = new HashMap<>();
        return c -> {
            Object tie = byTable.computeIfAbsent(c.table(), t -> {
                try {
                    TableInfo info = catalog.table(connection, null, t);
                    if (info.foreignKeys()) return FOREIGN_KEYS;
                    return info.otherUniqueIndex() != null ? wholeTable(t) : ROW;
                } catch (SQLException e) {
                    return wholeTable(t);
                }
            });
            return tie == ROW ? rowsOf(c) : tie;
        };
    }

    private static final Object ROW = new Object(), FOREIGN_KEYS = new Object();

    /** Ties every change of table {@code t} to the table's earlier changes. */
    private static Object wholeTable(String t) {
        return List.of("table", t.toLowerCase(Locale.ROOT));
    }

    /** What changes one JDBC batch can carry share: kind, table, columns and key columns (one statement's text). */
    private static List<Object> shape(RowChange c) {
        return List.of(c.kind(), c.table(), c.columns(), c.keyColumns());
    }

    /**
     * A REMOVE that found no equal row means this instance's copy of the table is not the origin's: the apply fails
     * rather than leave the row here (docs/decisions/04-row-images.md).
     */
    private static void removed(RowChange first, int[] counts) throws SQLException {
        if (first.kind() != RowChange.Kind.REMOVE) return;
        for (int c : counts)
            if (c == 0) throw new SQLException("no row of table " + first.table() + " equal to a row the origin removed"
                    + " is here: this instance's copy of the table differs from the origin's");
    }

    private static void applyRun(Connection connection, Dialect dialect, List<RowChange> run) throws SQLException {
        RowChange first = run.get(0);
        boolean upsert = first.kind() != RowChange.Kind.DELETE;
        String sql = switch (first.kind()) {
            case UPSERT -> dialect.upsertSql(first.table(), first.columns(), first.keyColumns());
            case DELETE -> dialect.deleteSql(first.table(), first.keyColumns());
            case APPEND -> dialect.appendSql(first.table(), first.columns());
            case REMOVE -> dialect.removeOneSql(first.table(), first.columns());
        };
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            for (RowChange change : run) {
                List<Value> values = upsert ? change.values() : change.keyValues();
                for (int p = 0; p < values.size(); p++) dialect.bind(ps, p + 1, values.get(p));
                if (run.size() == 1) {
                    removed(first, new int[] {ps.executeUpdate()});
                } else {
                    ps.addBatch();
                }
            }
            if (run.size() > 1) removed(first, ps.executeBatch());
        } catch (SQLException e) {
            throw new SQLException("cannot apply " + run.size() + " row change(s) (" + first.kind() + ") to table "
                    + first.table() + " with columns " + (upsert ? first.columns() : first.keyColumns()) + ": "
                    + e.getMessage(), e.getSQLState(), e.getErrorCode(), e);
        }
    }
}
