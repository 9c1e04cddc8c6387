package dev.gyro.runtime.db;

import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.Value;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Row-image capture for a global request (docs/decisions/04-row-images.md; paper Appendix B, "Extracting state
 * updates"). {@link #wrap} gives a {@link Connection} (a {@link Proxy} over the transaction's real connection) that the
 * application's transaction uses with plain JDBC. Every INSERT, INSERT OR REPLACE / REPLACE, upsert, UPDATE and
 * DELETE it executes is rewritten to also return what it wrote ({@link Dialect#returningAll}: on SQLite,
 * {@code RETURNING *} appended), and turned into keyed row images: for inserts and updates the whole row after
 * the write, generated keys included; for deletes the primary key. {@link #changes()} lists them in write order.
 *
 * <p>What the application sees does not change: {@code executeUpdate} returns the affected row count,
 * {@code getGeneratedKeys()} is the driver's own (the rewritten statement is prepared with the same
 * generated-keys request), SELECTs run untouched on the real connection.
 *
 * <p>Refused with an {@link SQLException} at prepare (or execute) time, so the request rolls back and ships
 * nothing (docs/decisions/10-errors.md): statements that are not understood, non-DML statements (DDL, PRAGMA
 * assignments, transaction control), REPLACE and upserts on a table without a primary key (whose rows travel
 * whole, as APPENDs and REMOVEs), UPDATEs (and upsert actions) that
 * set a primary-key column, REPLACE on a table with other UNIQUE constraints (its hidden deletes would be lost),
 * writes with their own RETURNING clause, stored-procedure calls, and {@code commit}/{@code rollback}/
 * {@code setAutoCommit}/savepoints: the runtime owns the transaction ({@code close()} is ignored for the same
 * reason). If a write fails while executing, the capture is spoiled (the statement may have written part of its
 * rows): every later statement and {@link #changes()} throw, and the transaction must roll back.
 *
 * <p>Not captured (see the limits in {@code package-info}): rows written by triggers and by foreign-key actions
 * (ON DELETE CASCADE ...). {@code unwrap} reaches the real connection, outside capture.
 *
 * <p>One instance per transaction attempt, used by one thread.
 */
public final class CapturingConnection {

    private static final Logger log = LoggerFactory.getLogger(CapturingConnection.class);
    private static final Set<String> OWNED_BY_RUNTIME = Set.of("commit", "rollback", "setSavepoint",
            "releaseSavepoint", "setTransactionIsolation", "setReadOnly", "setCatalog", "setSchema", "abort");

    final Connection real;
    final Dialect dialect;
    private final TableCatalog catalog;
    private final CaptureLog log_ = new CaptureLog();
    final Connection proxy;
    /** Whether writes to Gyro's own metadata tables are captured too, or refused as the application's. */
    private final boolean includesMetadata;
    private SQLException spoiled;
    /**
     * The capture this one is nested in, or null: a global request captured on a replicated group's connection
     * (docs/decisions/24-ring-on-groups.md) records its rows here for its state update and in the group's capture for
     * the group's log.
     */
    private final CapturingConnection parent;
    long writes; // captured write executions so far (the driver's last_insert_rowid changes only with them)
    WrittenRows lastWritten = WrittenRows.none(); // the rows of the last captured write, for generated keys

    private CapturingConnection(Connection real, Dialect dialect, TableCatalog catalog, boolean includesMetadata) {
        CapturingConnection outer = of(real);
        this.parent = outer;
        if (outer != null) {
            real = outer.real; // statements rewritten once, run on the real connection, recorded in both captures
            includesMetadata = includesMetadata && outer.includesMetadata;
        }
        this.real = real;
        this.includesMetadata = includesMetadata;
        this.dialect = dialect;
        this.catalog = catalog;
        this.proxy = (Connection) Proxy.newProxyInstance(CapturingConnection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, new ConnectionHandler());
    }

    /**
     * Wraps {@code real}, a connection inside a transaction, with the table metadata cache shared by all
     * connections to the same database URL.
     */
    public static CapturingConnection wrap(Connection real, Dialect dialect) throws SQLException {
        return new CapturingConnection(real, dialect, TableCatalog.forUrl(real.getMetaData().getURL()), false);
    }

    /** Wraps {@code real}, a connection inside a transaction, reading table metadata through {@code catalog}. */
    public static CapturingConnection wrap(Connection real, Dialect dialect, TableCatalog catalog) {
        return new CapturingConnection(real, dialect, catalog, false);
    }

    /**
     * Like {@link #wrap(Connection, Dialect, TableCatalog)}, but the writes of Gyro's own metadata tables
     * ({@link MetadataStore}) made on {@link #connection()} are captured as row images too: a replicated group ships
     * every change of a replica's database through its log, the protocol state included
     * (docs/decisions/12-replicated-groups.md). The application's statements are still the runtime's to judge: pass
     * this connection to the runtime's own metadata writes, never to an application's transaction.
     */
    public static CapturingConnection wrapIncludingMetadata(Connection real, Dialect dialect, TableCatalog catalog) {
        return new CapturingConnection(real, dialect, catalog, true);
    }

    /** The capture whose {@link #connection()} {@code c} is, or null when {@code c} is not a capturing connection. */
    public static CapturingConnection of(Connection c) {
        if (c != null && Proxy.isProxyClass(c.getClass()) && Proxy.getInvocationHandler(c) instanceof ConnectionHandler h)
            return h.capture();
        return null;
    }

    /**
     * Records {@code changes}, already row images and written on {@link #real()} by the caller (a token's updates,
     * applied by {@link UpdateApplier}), as this transaction's next writes.
     */
    void record(List<RowChange> changes) throws SQLException {
        checkNotSpoiled();
        for (RowChange r : changes) log_.add(r, true); // folded only with an immediately preceding write of the row
        if (parent != null) parent.record(changes);
    }

    /** Marks the capture spoiled: a write on its real connection failed midway ({@link #runCaptured}). */
    void spoil(SQLException e) {
        spoiled = e;
        if (parent != null) parent.spoil(e);
    }

    /** The connection under the capture, outside it. */
    Connection real() {
        return real;
    }

    /** The connection to hand to the application's transaction. */
    public Connection connection() {
        return proxy;
    }

    /** The dialect whose values the row images hold ({@link Dialect#toValue}). */
    public Dialect dialect() {
        return dialect;
    }

    /**
     * The row changes captured so far, in write order, repeated writes of a row folded (see {@link CaptureLog}).
     *
     * @throws SQLException when a write failed during the transaction: the capture does not describe what the
     *                      transaction did, and it must roll back
     */
    public List<RowChange> changes() throws SQLException {
        checkNotSpoiled();
        return log_.changes();
    }

    void checkNotSpoiled() throws SQLException {
        if (spoiled != null)
            throw new SQLException("an earlier write of this transaction failed, so its row images are incomplete;"
                    + " the transaction must roll back: " + spoiled.getMessage(), spoiled.getSQLState(),
                    spoiled.getErrorCode(), spoiled);
    }

    // ------------------------------------------------------------------------------------------- statements

    /**
     * A write statement, checked and rewritten: what it does, to which table, and the SQL actually run; with
     * {@code reRead} not null, the SQL is the application's own and the rows are read by key around it; with
     * {@code before} not null (an UPDATE of a table without a key), the rows it will write are read whole first.
     */
    record Target(WriteStatement statement, TableInfo table, String runSql, KeyedReRead reRead, KeyedReRead before) {

        Target(WriteStatement statement, TableInfo table, String runSql, KeyedReRead reRead) {
            this(statement, table, runSql, reRead, null);
        }
    }

    Target target(WriteStatement ws) throws SQLException {
        String schema = dialect.captureSchema(real, ws.schema(), ws.table());
        if (!includesMetadata && ws.table().toLowerCase(Locale.ROOT).startsWith(MetadataStore.PREFIX))
            throw WriteStatement.refused("cannot capture " + ws.describe() + ": " + ws.table()
                    + " is one of Gyro's own metadata tables");
        TableInfo info;
        try {
            info = catalog.table(real, schema, ws.table());
        } catch (SQLException e) {
            throw new SQLException("cannot capture " + ws.describe() + ": " + e.getMessage(), e.getSQLState(),
                    e.getErrorCode(), e);
        }
        if (!info.hasPrimaryKey() && (ws.replaces() || ws.kind() == WriteKind.INSERT && !ws.setColumns().isEmpty()))
            throw WriteStatement.refused("cannot capture " + ws.describe() + ": table " + info.name()
                    + " has no primary key, so no conflict can be resolved on one: insert, update or delete its rows"
                    + " instead (docs/decisions/04-row-images.md)");
        for (String col : ws.setColumns()) {
            if (info.isKeyColumn(col) || dialect.rowIdAliases().contains(col.toLowerCase(Locale.ROOT)))
                throw WriteStatement.refused("cannot capture " + ws.describe() + ": it sets primary-key column "
                        + col + " of table " + info.name() + "; a key change would leave the old row on the other"
                        + " instances (delete the row and insert it under the new key instead)");
        }
        if (ws.replaces() && info.otherUniqueIndex() != null)
            throw WriteStatement.refused("cannot capture " + ws.describe() + ": REPLACE on table " + info.name()
                    + ", which has a UNIQUE constraint besides its primary key (" + info.otherUniqueIndex()
                    + "), may delete rows it does not report; use INSERT ... ON CONFLICT (key) DO UPDATE instead");
        String runSql = dialect.returningAll(ws.sql(), ws.kind());
        if (!info.hasPrimaryKey() && ws.kind() == WriteKind.UPDATE) {
            if (runSql == null)
                throw WriteStatement.refused("cannot capture " + ws.describe() + ": table " + info.name() + " has no"
                        + " primary key, and the " + dialect.name() + " dialect cannot return the rows an UPDATE"
                        + " writes, so they cannot be told apart afterwards (docs/decisions/04-row-images.md)");
            return new Target(ws, info, runSql, null, KeyedReRead.ofUpdate(ws.sql()));
        }
        if (runSql != null) return new Target(ws, info, runSql, null);
        if (ws.kind() != WriteKind.UPDATE)
            throw WriteStatement.refused("cannot capture " + ws.describe() + ": the " + dialect.name()
                    + " dialect cannot return the rows a " + ws.kind() + " writes");
        return new Target(ws, info, ws.sql(), KeyedReRead.ofUpdate(ws.sql()));
    }

    /**
     * Runs the rewritten statement (or, for a keyed re-read, reads the keys, runs the application's statement and
     * reads the rows back), records its rows as row images, and returns how many rows it wrote.
     *
     * @param params the statement's parameters as set ({index: {setter, args}}), for the key read
     */
    long runCaptured(PreparedStatement ps, Target target, Map<Integer, Object[]> params) throws SQLException {
        checkNotSpoiled();
        TableInfo table = target.table();
        WrittenRows written;
        long count;
        List<RowChange> rows = new ArrayList<>();
        try {
            if (target.before() != null) // the rows as they were, each replaced by its row as it becomes (returned)
                rows.addAll(removals(selectRows(target.before(), params, table.columns()), target));
            if (target.reRead() == null) {
                try (ResultSet rs = ps.executeQuery()) {
                    written = read(rs, table);
                }
                count = written.rows().size();
            } else {
                List<List<Object>> keys = selectKeys(target, params);
                count = ps.executeUpdate();
                written = readBack(target, keys);
            }
            rows.addAll(changes(written, target));
        } catch (SQLException | RuntimeException e) {
            // The statement ran (or may have): whatever it wrote is not described by the capture.
            spoil(e instanceof SQLException s ? s : new SQLException(e.toString(), e));
            throw e;
        }
        writes++;
        lastWritten = written;
        for (CapturingConnection c = this; c != null; c = c.parent)
            for (RowChange r : rows) c.log_.add(r, table.otherUniqueIndex() != null);
        return count;
    }

    private static WrittenRows read(ResultSet rs, TableInfo table) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        int n = md.getColumnCount();
        List<String> labels = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) labels.add(md.getColumnLabel(i));
        List<List<Object>> rows = new ArrayList<>();
        while (rs.next()) {
            List<Object> row = new ArrayList<>(n);
            for (int i = 1; i <= n; i++) row.add(rs.getObject(i));
            rows.add(row);
        }
        return new WrittenRows(table, labels, rows);
    }

    /**
     * The written rows as row images: whole rows for inserts and updates, keys for deletes; a row inserted into a table
     * without a primary key is an APPEND of the whole row.
     */
    private List<RowChange> changes(WrittenRows written, Target target) throws SQLException {
        TableInfo table = target.table();
        boolean delete = target.statement().kind() == WriteKind.DELETE;
        RowChange.Kind kind = table.hasPrimaryKey() ? (delete ? RowChange.Kind.DELETE : RowChange.Kind.UPSERT)
                : delete ? RowChange.Kind.REMOVE : RowChange.Kind.APPEND;
        List<String> columns = delete && table.hasPrimaryKey() ? table.keyColumns() : table.columns();
        int[] index = new int[columns.size()];
        for (int c = 0; c < columns.size(); c++) {
            index[c] = written.indexOf(columns.get(c));
            if (index[c] < 0)
                throw new SQLException("capturing " + target.statement().describe() + ": the returned rows lack"
                        + " column " + columns.get(c) + " of table " + table.name());
        }
        List<RowChange> out = new ArrayList<>(written.rows().size());
        for (List<Object> row : written.rows()) {
            List<Value> values = new ArrayList<>(columns.size());
            for (int c = 0; c < columns.size(); c++) {
                Object o = row.get(index[c]);
                try {
                    values.add(dialect.toValue(o));
                } catch (IllegalArgumentException e) {
                    throw new SQLException("capturing " + target.statement().describe() + ": column "
                            + columns.get(c) + " holds a value of unsupported type " + o.getClass().getName());
                }
            }
            RowChange change = new RowChange(table.name(), kind, columns, values, table.keyColumns());
            for (Value v : change.keyValues())
                if (v instanceof Value.Null)
                    throw new SQLException("capturing " + target.statement().describe() + ": a row of table "
                            + table.name() + " has NULL in its primary key " + table.keyColumns()
                            + ", so it cannot be addressed on the other instances");
            out.add(change);
        }
        return out;
    }

    /** Keyed re-read, step 1: the keys of the rows the UPDATE is about to write, locked. */
    private List<List<Object>> selectKeys(Target target, Map<Integer, Object[]> params) throws SQLException {
        return selectRows(target.reRead(), params, target.table().keyColumns());
    }

    /**
     * The rows an UPDATE of a table without a key is about to write, as they are, each a REMOVE (it is replaced by
     * the APPEND of the row as the UPDATE returns it).
     */
    private List<RowChange> removals(List<List<Object>> before, Target target) throws SQLException {
        TableInfo table = target.table();
        List<RowChange> out = new ArrayList<>(before.size());
        for (List<Object> row : before) {
            List<Value> values = new ArrayList<>(row.size());
            for (int c = 0; c < row.size(); c++) {
                try {
                    values.add(dialect.toValue(row.get(c)));
                } catch (IllegalArgumentException e) {
                    throw new SQLException("capturing " + target.statement().describe() + ": column "
                            + table.columns().get(c) + " holds a value of unsupported type " + row.get(c).getClass().getName());
                }
            }
            out.add(new RowChange(table.name(), RowChange.Kind.REMOVE, table.columns(), values, List.of()));
        }
        return out;
    }

    /** {@code columns} of the rows the UPDATE of {@code plan} is about to write, locked where the dialect locks. */
    private List<List<Object>> selectRows(KeyedReRead plan, Map<Integer, Object[]> params, List<String> columns)
            throws SQLException {
        List<List<Object>> keys = new ArrayList<>();
        try (PreparedStatement ps = real.prepareStatement(plan.keySelect(dialect, columns))) {
            for (Map.Entry<Integer, Object[]> e : params.entrySet()) {
                int index = e.getKey() - plan.firstWhereParameter();
                if (index < 1) continue; // a parameter of the SET clause
                Object[] args = ((Object[]) e.getValue()[1]).clone();
                args[0] = index;
                JdbcProxies.invokeSetter((Method) e.getValue()[0], ps, args);
            }
            try (ResultSet rs = ps.executeQuery()) {
                int n = columns.size();
                while (rs.next()) {
                    List<Object> key = new ArrayList<>(n);
                    for (int i = 1; i <= n; i++) key.add(rs.getObject(i));
                    keys.add(key);
                }
            }
        }
        return keys;
    }

    /** Keyed re-read, step 2: the rows with {@code keys}, after the write, in the order the keys were read. */
    private WrittenRows readBack(Target target, List<List<Object>> keys) throws SQLException {
        TableInfo table = target.table();
        List<String> keyColumns = table.keyColumns();
        if (keys.isEmpty()) return new WrittenRows(table, table.columns(), List.of());
        Map<List<Value>, List<Object>> byKey = new HashMap<>();
        List<String> labels = null;
        for (int from = 0; from < keys.size(); from += KeyedReRead.CHUNK) {
            List<List<Object>> chunk = keys.subList(from, Math.min(keys.size(), from + KeyedReRead.CHUNK));
            try (PreparedStatement ps = real.prepareStatement(
                    KeyedReRead.rowSelect(dialect, table.name(), keyColumns, chunk.size()))) {
                int p = 1;
                for (List<Object> key : chunk) for (Object v : key) ps.setObject(p++, v);
                try (ResultSet rs = ps.executeQuery()) {
                    WrittenRows part = read(rs, table);
                    labels = part.labels();
                    int[] at = new int[keyColumns.size()];
                    for (int k = 0; k < at.length; k++) at[k] = part.indexOf(keyColumns.get(k));
                    for (List<Object> row : part.rows()) {
                        List<Value> key = new ArrayList<>(at.length);
                        for (int i : at) key.add(dialect.toValue(row.get(i)));
                        byKey.put(key, row);
                    }
                }
            }
        }
        List<List<Object>> rows = new ArrayList<>(keys.size());
        for (List<Object> key : keys) {
            List<Value> k = new ArrayList<>(key.size());
            for (Object v : key) k.add(dialect.toValue(v));
            List<Object> row = byKey.get(k);
            if (row == null)
                throw new SQLException("capturing " + target.statement().describe() + ": the row of table "
                        + table.name() + " with key " + k + " could not be read back after the update");
            rows.add(row);
        }
        return new WrittenRows(table, labels, rows);
    }

    // ---------------------------------------------------------------------------------------- the handlers

    private final class ConnectionHandler implements InvocationHandler {
        CapturingConnection capture() {
            return CapturingConnection.this;
        }

        @Override
        public Object invoke(Object self, Method m, Object[] args) throws Throwable {
            String name = m.getName();
            if (m.getDeclaringClass() == Object.class) {
                switch (name) {
                    case "equals": return self == args[0];
                    case "hashCode": return System.identityHashCode(self);
                    case "toString": return "CapturingConnection[" + real + "]";
                    default: return JdbcProxies.call(m, real, args);
                }
            }
            switch (name) {
                case "createStatement": {
                    Statement st = (Statement) JdbcProxies.call(m, real, args);
                    CapturedStatement h = new CapturedStatement(CapturingConnection.this, st);
                    return h.proxy;
                }
                case "prepareStatement":
                    return prepare(m, args);
                case "prepareCall":
                    throw WriteStatement.refused("stored-procedure calls cannot be captured in a global request: ["
                            + WriteStatement.abbreviate((String) args[0]) + "]");
                case "close":
                    log.debug("close() on a captured connection ignored: the runtime owns the transaction");
                    return null;
                case "setAutoCommit":
                    if ((Boolean) args[0] == real.getAutoCommit()) return null;
                    throw ownedByRuntime(name);
                default:
                    if (OWNED_BY_RUNTIME.contains(name)) throw ownedByRuntime(name);
                    return JdbcProxies.call(m, real, args);
            }
        }

        private Object prepare(Method m, Object[] args) throws Throwable {
            String sql = (String) args[0];
            WriteStatement ws = WriteStatement.classify(sql);
            if (!ws.isWrite()) {
                PreparedStatement ps = (PreparedStatement) JdbcProxies.call(m, real, args);
                return new ReadHandler(ps).proxy;
            }
            Target target = target(ws);
            KeyRequest keys = KeyRequest.of(args);
            PreparedStatement ps;
            if (keys.requested() && !dialect.forwardsKeyRequest()) {
                ps = real.prepareStatement(target.runSql()); // the keys come from the captured rows
            } else {
                Object[] runArgs = args.clone();
                runArgs[0] = target.runSql();
                ps = (PreparedStatement) JdbcProxies.call(m, real, runArgs);
            }
            return new CapturedWrite(CapturingConnection.this, ps, target, keys).proxy;
        }
    }

    private static SQLException ownedByRuntime(String method) {
        return new SQLException(method + "() is not allowed on the connection of a global request: the Gyro runtime"
                + " owns its transaction (it commits the request's writes together with their state update)",
                "0A000");
    }

    /** A prepared SELECT (or other read): everything goes to the driver's statement. */
    private final class ReadHandler implements InvocationHandler {
        final PreparedStatement ps;
        final PreparedStatement proxy;

        ReadHandler(PreparedStatement ps) {
            this.ps = ps;
            this.proxy = (PreparedStatement) Proxy.newProxyInstance(CapturingConnection.class.getClassLoader(),
                    new Class<?>[] {PreparedStatement.class}, this);
        }

        @Override
        public Object invoke(Object self, Method m, Object[] args) throws Throwable {
            if (m.getDeclaringClass() == Object.class) return JdbcProxies.objectMethod(self, m, args, ps);
            if (m.getName().equals("getConnection")) return CapturingConnection.this.proxy;
            if (JdbcProxies.isSqlStringExecution(m, args)) throw JdbcProxies.sqlOnPrepared(m);
            if (m.getName().startsWith("execute")) checkNotSpoiled();
            return JdbcProxies.call(m, ps, args);
        }
    }


}
