package dev.gyro.runtime.db;

import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.Value;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Row-image capture for a global request (docs/decisions.md, decision 4; paper Appendix B, "Extracting state updates").
 * {@link #wrap} gives a {@link Connection} (a {@link Proxy} over the transaction's real connection) that the
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
 * nothing (docs/decisions.md, decision 10): statements that are not understood, non-DML statements (DDL, PRAGMA
 * assignments, transaction control), writes to a table without a primary key, UPDATEs (and upsert actions) that
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

    private final Connection real;
    private final Dialect dialect;
    private final TableCatalog catalog;
    private final CaptureLog log_ = new CaptureLog();
    private final Connection proxy;
    private SQLException spoiled;
    private long writes; // captured write executions so far (the driver's last_insert_rowid changes only with them)
    private WrittenRows lastWritten = WrittenRows.none(); // the rows of the last captured write, for generated keys

    private CapturingConnection(Connection real, Dialect dialect, TableCatalog catalog) {
        this.real = real;
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
        return new CapturingConnection(real, dialect, TableCatalog.forUrl(real.getMetaData().getURL()));
    }

    /** Wraps {@code real}, a connection inside a transaction, reading table metadata through {@code catalog}. */
    public static CapturingConnection wrap(Connection real, Dialect dialect, TableCatalog catalog) {
        return new CapturingConnection(real, dialect, catalog);
    }

    /** The connection to hand to the application's transaction. */
    public Connection connection() {
        return proxy;
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

    private void checkNotSpoiled() throws SQLException {
        if (spoiled != null)
            throw new SQLException("an earlier write of this transaction failed, so its row images are incomplete;"
                    + " the transaction must roll back: " + spoiled.getMessage(), spoiled.getSQLState(),
                    spoiled.getErrorCode(), spoiled);
    }

    // ------------------------------------------------------------------------------------------- statements

    /**
     * A write statement, checked and rewritten: what it does, to which table, and the SQL actually run; with
     * {@code reRead} not null, the SQL is the application's own and the rows are read by key around it.
     */
    private record Target(WriteStatement statement, TableInfo table, String runSql, KeyedReRead reRead) {}

    private Target target(WriteStatement ws) throws SQLException {
        String schema = dialect.captureSchema(real, ws.schema(), ws.table());
        if (ws.table().toLowerCase(Locale.ROOT).startsWith(MetadataStore.PREFIX))
            throw WriteStatement.refused("cannot capture " + ws.describe() + ": " + ws.table()
                    + " is one of Gyro's own metadata tables");
        TableInfo info;
        try {
            info = catalog.table(real, schema, ws.table());
        } catch (SQLException e) {
            throw new SQLException("cannot capture " + ws.describe() + ": " + e.getMessage(), e.getSQLState(),
                    e.getErrorCode(), e);
        }
        if (!info.hasPrimaryKey())
            throw WriteStatement.refused("cannot capture " + ws.describe() + ": table " + info.name()
                    + " has no primary key, and row images are keyed by primary key (docs/decisions.md, decision 4)");
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
    private long runCaptured(PreparedStatement ps, Target target, Map<Integer, Object[]> params) throws SQLException {
        checkNotSpoiled();
        TableInfo table = target.table();
        WrittenRows written;
        long count;
        List<RowChange> rows;
        try {
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
            rows = changes(written, target);
        } catch (SQLException | RuntimeException e) {
            // The statement ran (or may have): whatever it wrote is not described by the capture.
            spoiled = e instanceof SQLException s ? s : new SQLException(e.toString(), e);
            throw e;
        }
        writes++;
        lastWritten = written;
        for (RowChange r : rows) log_.add(r, table.otherUniqueIndex() != null);
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

    /** The written rows as row images: whole rows for inserts and updates, keys for deletes. */
    private List<RowChange> changes(WrittenRows written, Target target) throws SQLException {
        TableInfo table = target.table();
        boolean delete = target.statement().kind() == WriteKind.DELETE;
        List<String> columns = delete ? table.keyColumns() : table.columns();
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
            RowChange change = new RowChange(table.name(), delete ? RowChange.Kind.DELETE : RowChange.Kind.UPSERT,
                    columns, values, table.keyColumns());
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
        KeyedReRead plan = target.reRead();
        List<List<Object>> keys = new ArrayList<>();
        try (PreparedStatement ps = real.prepareStatement(plan.keySelect(dialect, target.table().keyColumns()))) {
            for (Map.Entry<Integer, Object[]> e : params.entrySet()) {
                int index = e.getKey() - plan.firstWhereParameter();
                if (index < 1) continue; // a parameter of the SET clause
                Object[] args = ((Object[]) e.getValue()[1]).clone();
                args[0] = index;
                invokeSetter((Method) e.getValue()[0], ps, args);
            }
            try (ResultSet rs = ps.executeQuery()) {
                int n = target.table().keyColumns().size();
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

    private static void invokeSetter(Method setter, PreparedStatement ps, Object[] args) throws SQLException {
        try {
            call(setter, ps, args);
        } catch (SQLException | RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new SQLException(t);
        }
    }

    // ---------------------------------------------------------------------------------------- the handlers

    private final class ConnectionHandler implements InvocationHandler {
        @Override
        public Object invoke(Object self, Method m, Object[] args) throws Throwable {
            String name = m.getName();
            if (m.getDeclaringClass() == Object.class) {
                switch (name) {
                    case "equals": return self == args[0];
                    case "hashCode": return System.identityHashCode(self);
                    case "toString": return "CapturingConnection[" + real + "]";
                    default: return call(m, real, args);
                }
            }
            switch (name) {
                case "createStatement": {
                    Statement st = (Statement) call(m, real, args);
                    StatementHandler h = new StatementHandler(st);
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
                    return call(m, real, args);
            }
        }

        private Object prepare(Method m, Object[] args) throws Throwable {
            String sql = (String) args[0];
            WriteStatement ws = WriteStatement.classify(sql);
            if (!ws.isWrite()) {
                PreparedStatement ps = (PreparedStatement) call(m, real, args);
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
                ps = (PreparedStatement) call(m, real, runArgs);
            }
            return new WriteHandler(ps, target, keys).proxy;
        }
    }

    private static SQLException ownedByRuntime(String method) {
        return new SQLException(method + "() is not allowed on the connection of a global request: the Gyro runtime"
                + " owns its transaction (it commits the request's writes together with their state update)",
                "0A000");
    }

    /** Plain statements: each SQL string is classified when executed; writes run as captured prepared statements. */
    private final class StatementHandler implements InvocationHandler {
        final Statement st;
        final Statement proxy;
        final List<String> batch = new ArrayList<>();
        final GeneratedKeys keys = new GeneratedKeys();
        long lastCount = -1;
        boolean lastWasCaptured;

        StatementHandler(Statement st) {
            this.st = st;
            this.proxy = (Statement) Proxy.newProxyInstance(CapturingConnection.class.getClassLoader(),
                    new Class<?>[] {Statement.class}, this);
        }

        @Override
        public Object invoke(Object self, Method m, Object[] args) throws Throwable {
            String name = m.getName();
            if (m.getDeclaringClass() == Object.class) return objectMethod(self, m, args, st);
            boolean sqlArg = args != null && args.length >= 1 && args[0] instanceof String;
            switch (name) {
                case "executeQuery":
                case "executeUpdate":
                case "executeLargeUpdate":
                case "execute":
                    if (sqlArg) return execute(m, args);
                    break;
                case "addBatch":
                    if (sqlArg) {
                        batch.add((String) args[0]);
                        return null;
                    }
                    break;
                case "clearBatch":
                    batch.clear();
                    return call(m, st, args);
                case "executeBatch":
                case "executeLargeBatch":
                    return executeBatch(name.equals("executeLargeBatch"));
                case "getUpdateCount":
                    if (lastWasCaptured) return (int) Math.min(Integer.MAX_VALUE, lastCount);
                    break;
                case "getLargeUpdateCount":
                    if (lastWasCaptured) return lastCount;
                    break;
                case "getResultSet":
                    if (lastWasCaptured) return null;
                    break;
                case "getMoreResults":
                    if (lastWasCaptured) {
                        lastCount = -1;
                        return false;
                    }
                    break;
                case "getGeneratedKeys":
                    if (lastWasCaptured) return keys.get();
                    break;
                case "getConnection":
                    return CapturingConnection.this.proxy;
                case "close":
                    keys.close();
                    break;
                default:
                    break;
            }
            return call(m, st, args);
        }

        private Object execute(Method m, Object[] args) throws Throwable {
            checkNotSpoiled();
            String sql = (String) args[0];
            WriteStatement ws = WriteStatement.classify(sql);
            if (!ws.isWrite()) {
                keys.close();
                lastWasCaptured = false;
                return call(m, st, args);
            }
            if (m.getName().equals("executeQuery"))
                throw new SQLException("executeQuery() called with a write statement: ["
                        + WriteStatement.abbreviate(sql) + "]; use executeUpdate()");
            Target target = target(ws);
            keys.close();
            lastWasCaptured = false;
            long count;
            try (PreparedStatement ps = real.prepareStatement(target.runSql())) {
                count = runCaptured(ps, target, Map.of());
            }
            keys.afterWrite(ws.kind(), KeyRequest.of(args));
            lastWasCaptured = true;
            lastCount = count;
            switch (m.getName()) {
                case "executeUpdate": return (int) Math.min(Integer.MAX_VALUE, count);
                case "executeLargeUpdate": return count;
                default: return false; // execute(): the first result is an update count
            }
        }

        private Object executeBatch(boolean large) throws SQLException {
            checkNotSpoiled();
            List<String> sqls = new ArrayList<>(batch);
            batch.clear();
            long[] counts = new long[sqls.size()];
            for (int i = 0; i < sqls.size(); i++) {
                try {
                    String sql = sqls.get(i);
                    WriteStatement ws = WriteStatement.classify(sql);
                    if (!ws.isWrite()) {
                        counts[i] = st.executeLargeUpdate(sql);
                        continue;
                    }
                    Target target = target(ws);
                    try (PreparedStatement ps = real.prepareStatement(target.runSql())) {
                        counts[i] = runCaptured(ps, target, Map.of());
                    }
                } catch (SQLException e) {
                    throw batchFailure(e, Arrays.copyOf(counts, i));
                }
            }
            keys.close();
            lastWasCaptured = false;
            return large ? counts : toInts(counts);
        }
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
            if (m.getDeclaringClass() == Object.class) return objectMethod(self, m, args, ps);
            if (m.getName().equals("getConnection")) return CapturingConnection.this.proxy;
            if (isSqlStringExecution(m, args)) throw sqlOnPrepared(m);
            if (m.getName().startsWith("execute")) checkNotSpoiled();
            return call(m, ps, args);
        }
    }

    /**
     * A prepared write. Parameters are recorded as well as set (streams read into values once), so that each
     * batch entry can be run as its own captured query: the driver's own batch cannot return rows.
     */
    private final class WriteHandler implements InvocationHandler {
        final PreparedStatement ps;
        final Target target;
        final PreparedStatement proxy;
        final TreeMap<Integer, Object[]> params = new TreeMap<>(); // index -> {Method, args}
        final List<TreeMap<Integer, Object[]>> batch = new ArrayList<>();
        final GeneratedKeys keys = new GeneratedKeys();
        final KeyRequest keyRequest;
        long lastCount = -1;

        WriteHandler(PreparedStatement ps, Target target, KeyRequest keyRequest) {
            this.ps = ps;
            this.target = target;
            this.keyRequest = keyRequest;
            this.proxy = (PreparedStatement) Proxy.newProxyInstance(CapturingConnection.class.getClassLoader(),
                    new Class<?>[] {PreparedStatement.class}, this);
        }

        @Override
        public Object invoke(Object self, Method m, Object[] args) throws Throwable {
            if (m.getDeclaringClass() == Object.class) return objectMethod(self, m, args, ps);
            String name = m.getName();
            if (isSqlStringExecution(m, args)) throw sqlOnPrepared(m);
            if (isParameterSetter(m, args)) {
                Object[] call = materialize(m, args);
                Method setter = (Method) call[0];
                Object[] setterArgs = (Object[]) call[1];
                params.put((Integer) setterArgs[0], call);
                return call(setter, ps, setterArgs);
            }
            switch (name) {
                case "clearParameters":
                    params.clear();
                    return call(m, ps, args);
                case "executeUpdate":
                    run();
                    return (int) Math.min(Integer.MAX_VALUE, lastCount);
                case "executeLargeUpdate":
                    run();
                    return lastCount;
                case "execute":
                    run();
                    return false;
                case "executeQuery":
                    throw new SQLException("executeQuery() called on a write statement: ["
                            + WriteStatement.abbreviate(target.statement().sql()) + "]; use executeUpdate()");
                case "addBatch":
                    batch.add(new TreeMap<>(params));
                    return null;
                case "clearBatch":
                    batch.clear();
                    return null;
                case "executeBatch":
                case "executeLargeBatch":
                    return executeBatch(name.equals("executeLargeBatch"));
                case "getUpdateCount":
                    return (int) Math.min(Integer.MAX_VALUE, lastCount);
                case "getLargeUpdateCount":
                    return lastCount;
                case "getMoreResults":
                    lastCount = -1;
                    return false;
                case "getResultSet":
                    return null;
                case "getMetaData":
                    return null; // a write produces no result set
                case "getGeneratedKeys":
                    return keys.get();
                case "getConnection":
                    return CapturingConnection.this.proxy;
                case "close":
                    keys.close();
                    return call(m, ps, args);
                default:
                    return call(m, ps, args);
            }
        }

        private void run() throws SQLException {
            keys.close();
            lastCount = runCaptured(ps, target, params);
            keys.afterWrite(target.statement().kind(), keyRequest);
        }

        private Object executeBatch(boolean large) throws SQLException {
            List<TreeMap<Integer, Object[]>> entries = new ArrayList<>(batch);
            batch.clear();
            long[] counts = new long[entries.size()];
            WrittenRows all = WrittenRows.none();
            try {
                for (int i = 0; i < entries.size(); i++) {
                    try {
                        bind(entries.get(i));
                        counts[i] = runCaptured(ps, target, entries.get(i));
                        all = all.plus(lastWritten);
                    } catch (SQLException e) {
                        throw batchFailure(e, Arrays.copyOf(counts, i));
                    }
                }
            } finally {
                bind(params); // the current parameters stay as the application last set them
            }
            lastWritten = all;
            keys.afterWrite(target.statement().kind(), keyRequest);
            lastCount = -1;
            return large ? counts : toInts(counts);
        }

        private void bind(TreeMap<Integer, Object[]> values) throws SQLException {
            ps.clearParameters();
            for (Object[] call : values.values()) {
                try {
                    call((Method) call[0], ps, (Object[]) call[1]);
                } catch (SQLException | RuntimeException e) {
                    throw e;
                } catch (Throwable t) {
                    throw new SQLException(t);
                }
            }
        }
    }

    /**
     * Generated keys as the driver would report them for the application's statement. Read right after the write
     * when the statement asked for keys; otherwise on demand, which is exact while no other write has run since.
     */
    private final class GeneratedKeys {
        private ResultSet keys;
        private WriteKind kind;
        private WrittenRows written = WrittenRows.none();
        private long atWrite = -1;

        void afterWrite(WriteKind kind, KeyRequest request) throws SQLException {
            close();
            this.kind = kind;
            this.atWrite = writes;
            this.written = lastWritten;
            if (request.requested()) keys = dialect.generatedKeys(real, kind, written, request);
        }

        ResultSet get() throws SQLException {
            if (keys != null) return keys;
            if (atWrite >= 0 && atWrite != writes)
                throw new SQLException("generated keys of this statement are no longer known: another write ran"
                        + " since; prepare the statement with Statement.RETURN_GENERATED_KEYS");
            keys = dialect.generatedKeys(real, kind, written, KeyRequest.NONE);
            return keys;
        }

        void close() throws SQLException {
            if (keys != null) {
                ResultSet rs = keys;
                keys = null;
                Statement st = rs.getStatement();
                rs.close();
                if (st != null) st.close();
            }
        }
    }

    // --------------------------------------------------------------------------------------------- helpers

    private static Object objectMethod(Object self, Method m, Object[] args, Object target) throws Throwable {
        switch (m.getName()) {
            case "equals": return self == args[0];
            case "hashCode": return System.identityHashCode(self);
            case "toString": return "Captured[" + target + "]";
            default: return call(m, target, args);
        }
    }

    private static boolean isSqlStringExecution(Method m, Object[] args) {
        String n = m.getName();
        return (n.startsWith("execute") || n.equals("addBatch")) && args != null && args.length >= 1
                && m.getParameterTypes()[0] == String.class;
    }

    private static SQLException sqlOnPrepared(Method m) {
        return new SQLException(m.getName() + "(String) cannot be called on a PreparedStatement");
    }

    private static boolean isParameterSetter(Method m, Object[] args) {
        return m.getDeclaringClass() == PreparedStatement.class && m.getName().startsWith("set") && args != null
                && args.length >= 2 && m.getParameterTypes()[0] == int.class;
    }

    private static final Method SET_BYTES;
    private static final Method SET_STRING;

    static {
        try {
            SET_BYTES = PreparedStatement.class.getMethod("setBytes", int.class, byte[].class);
            SET_STRING = PreparedStatement.class.getMethod("setString", int.class, String.class);
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {Method, args} to record for a parameter setter: streams and readers are read into bytes or text once. */
    private static Object[] materialize(Method m, Object[] args) throws SQLException {
        Object value = args[1];
        long limit = args.length >= 3 && args[2] instanceof Number n ? n.longValue() : -1;
        try {
            if (value instanceof InputStream in && !m.getName().equals("setUnicodeStream")) {
                byte[] bytes = limit < 0 ? in.readAllBytes() : in.readNBytes((int) Math.min(Integer.MAX_VALUE, limit));
                if (m.getName().equals("setAsciiStream"))
                    return new Object[] {SET_STRING, new Object[] {args[0], new String(bytes, StandardCharsets.US_ASCII)}};
                return new Object[] {SET_BYTES, new Object[] {args[0], bytes}};
            }
            if (value instanceof Reader r) {
                StringBuilder sb = new StringBuilder();
                char[] buf = new char[8192];
                long left = limit < 0 ? Long.MAX_VALUE : limit;
                int n;
                while (left > 0 && (n = r.read(buf, 0, (int) Math.min(buf.length, left))) > 0) {
                    sb.append(buf, 0, n);
                    left -= n;
                }
                return new Object[] {SET_STRING, new Object[] {args[0], sb.toString()}};
            }
        } catch (IOException e) {
            throw new SQLException("cannot read the stream given for parameter " + args[0], e);
        }
        return new Object[] {m, args.clone()};
    }

    private static BatchUpdateException batchFailure(SQLException e, long[] done) {
        return new BatchUpdateException("batch entry " + (done.length + 1) + " failed: " + e.getMessage(),
                e.getSQLState(), e.getErrorCode(), done, e);
    }

    private static int[] toInts(long[] counts) {
        int[] out = new int[counts.length];
        for (int i = 0; i < counts.length; i++) out[i] = (int) Math.min(Integer.MAX_VALUE, counts[i]);
        return out;
    }

    private static Object call(Method m, Object target, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
