package dev.gyro.check;

import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.CapturingConnection;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.runtime.db.TableCatalog;
import dev.gyro.runtime.db.TableInfo;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.PlainSelect;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Records, for one attempt of one request, the rows and columns it reads and writes, through JDBC only.
 * <ul>
 *   <li>Writes: the keys come from the row-image capture; the columns are, per table, the SET columns of the
 *       request's UPDATEs, or every column once it inserted, replaced or deleted a row of the table.</li>
 *   <li>Reads: a SELECT reads, of each table it names, the columns of that table it mentions (every column for a
 *       {@code *}). For a single-table SELECT whose parameters all sit in its WHERE clause, the recorder re-runs
 *       {@code SELECT <key columns> FROM <table> WHERE <same condition>} with the same parameters in the same
 *       transaction and records those keys (all columns of a table without a key: its rows are told apart by their
 *       values, as {@link RowChange#identity()} tells its written rows); any other SELECT (joins, sub-selects, parameters elsewhere) reads every
 *       row of its tables, which can only make the check stricter. Reads of rows that do not exist are not
 *       recorded.</li>
 * </ul>
 * For tests and diagnosis: it runs every read twice.
 */
public final class RequestRecorder {

    private final CapturingConnection capture;
    private final Connection connection;
    private final TableCatalog tables;
    private final Set<RowRef> reads = new HashSet<>();
    // Per table (upper case): the columns the request's writes set; null once a write touched whole rows.
    private final java.util.Map<String, Set<String>> writtenColumns = new java.util.HashMap<>();
    private final Set<String> wholeRowWrites = new HashSet<>();

    public RequestRecorder(Connection real, Dialect dialect, TableCatalog tables) {
        this(CapturingConnection.wrap(real, dialect, tables), tables);
    }

    /** Records through {@code capture}: for a global request, whose capture also makes its state update. */
    public RequestRecorder(CapturingConnection capture, TableCatalog tables) {
        this.capture = capture;
        this.tables = tables;
        Connection captured = capture.connection();
        this.connection = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, new ConnectionHandler(captured));
    }

    /** The connection the request must use. */
    public Connection connection() {
        return connection;
    }

    public Set<RowRef> reads() {
        return Set.copyOf(reads);
    }

    /** The rows written, by key. Call inside the transaction, after the request ran. */
    public Set<RowRef> writes() throws SQLException {
        Set<RowRef> out = new HashSet<>();
        for (RowChange c : capture.changes()) {
            String table = c.table().toUpperCase(java.util.Locale.ROOT);
            Set<String> columns = wholeRowWrites.contains(table) ? null : writtenColumns.get(table);
            out.add(new RowRef(c.table(), c.identity(), columns));
        }
        return out;
    }

    /** The capture, for a global request whose writes also become its state update. */
    public CapturingConnection capture() {
        return capture;
    }

    private void recordRead(Connection c, String sql, Map<Integer, Object> parameters) throws SQLException {
        Statement parsed;
        try {
            parsed = CCJSqlParserUtil.parse(sql);
        } catch (Exception | Error unparsable) {
            return; // not SQL the recorder understands; the driver will say what is wrong with it
        }
        // Every SELECT of the statement (the outer one and those nested in its conditions), each pinned down with
        // the parameters that sit in its own text, found by where that text stands in the whole statement.
        List<PlainSelect> selects = new ArrayList<>();
        try {
            new net.sf.jsqlparser.util.TablesNamesFinder<Void>() {
                @Override
                public <S> Void visit(PlainSelect select, S context) {
                    selects.add(select);
                    return super.visit(select, context);
                }
            }.getTables(parsed);
        } catch (RuntimeException e) {
            selects.clear();
        }
        String full = parsed.toString();
        List<Object> values = new ArrayList<>(parameters.values());
        Set<String> pinned = new HashSet<>();
        if (count(full) == parameters.size()) {
            for (PlainSelect ps : selects) {
                String text = ps.toString();
                int at = full.indexOf(text);
                if (at < 0 || at != full.lastIndexOf(text)) continue; // ambiguous: left to the whole-table fallback
                int offset = count(full.substring(0, at));
                if (pinDown(c, ps, sql, values.subList(offset, offset + count(text)))) {
                    pinned.add(ps.getFromItem().toString());
                    if (ps.getJoins() != null)
                        for (net.sf.jsqlparser.statement.select.Join j : ps.getJoins()) pinned.add(j.getRightItem().toString());
                }
            }
        }
        // Tables no SELECT could pin down: every row.
        try {
            for (String t : new net.sf.jsqlparser.util.TablesNamesFinder<Void>().getTables(parsed)) {
                String bare = t.contains(".") ? t.substring(t.lastIndexOf('.') + 1) : t;
                boolean done = false;
                for (String item : pinned) done |= item.equals(t) || item.startsWith(t + " ") || item.equals(bare)
                        || item.startsWith(bare + " ");
                if (!done) read(new RowRef(bare, null, mentioned(tables.table(c, null, bare), sql)));
            }
        } catch (RuntimeException noTables) {
            // nothing more
        }
    }

    /**
     * Records the keys of the rows of each table of {@code ps}'s FROM list that took part in it, re-running its FROM
     * and WHERE with {@code own} (its parameters, in order) and selecting the tables' keys. GROUP BY, HAVING, ORDER
     * BY and LIMIT are dropped: that only adds rows. Returns false (records nothing) if it cannot.
     */
    private boolean pinDown(Connection c, PlainSelect ps, String sql, List<Object> own) throws SQLException {
        if (!(ps.getFromItem() instanceof Table first)) return false;
        List<Table> from = new ArrayList<>();
        from.add(first);
        StringBuilder fromText = new StringBuilder(first.toString());
        if (ps.getJoins() != null) {
            for (net.sf.jsqlparser.statement.select.Join j : ps.getJoins()) {
                if (!(j.getRightItem() instanceof Table t)) return false;
                from.add(t);
                fromText.append(j.isSimple() ? ", " : " ").append(j);
            }
        }
        String body = " FROM " + fromText + (ps.getWhere() == null ? "" : " WHERE " + ps.getWhere());
        if (count(body) != own.size()) return false; // parameters outside FROM and WHERE
        List<TableInfo> infos = new ArrayList<>();
        for (Table t : from) {
            TableInfo info = tables.table(c, t.getSchemaName(), t.getName());
            if (info == null) return false;
            infos.add(info);
        }
        for (int i = 0; i < from.size(); i++) {
            Table t = from.get(i);
            TableInfo info = infos.get(i);
            Set<String> columns = mentioned(info, sql);
            String alias = t.getAlias() != null ? t.getAlias().getName() : t.getName();
            // A row is told from others by its key, or by all its columns in a table without one (RowChange.identity)
            List<String> keyCols = new ArrayList<>();
            for (String k : info.hasPrimaryKey() ? info.keyColumns() : info.columns()) keyCols.add(alias + "." + k);
            try (PreparedStatement q = c.prepareStatement("SELECT DISTINCT " + String.join(", ", keyCols) + body)) {
                for (int p = 0; p < own.size(); p++) q.setObject(p + 1, own.get(p));
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        List<Value> key = new ArrayList<>();
                        for (int k = 1; k <= keyCols.size(); k++) {
                            try {
                                key.add(capture.dialect().toValue(rs.getObject(k)));
                            } catch (IllegalArgumentException unsupported) {
                                return false; // a value no row image can hold: the whole table, then
                            }
                        }
                        read(new RowRef(info.name(), key, columns));
                    }
                }
            }
        }
        return true;
    }

    private void wholeTables(Connection c, Statement parsed, String sql) throws SQLException {
        Set<String> names;
        try {
            names = new net.sf.jsqlparser.util.TablesNamesFinder<Void>().getTables(parsed);
        } catch (RuntimeException noTables) {
            return; // a statement without tables reads nothing
        }
        for (String t : names) {
            String bare = t.contains(".") ? t.substring(t.lastIndexOf('.') + 1) : t;
            read(new RowRef(bare, null, mentioned(tables.table(c, null, bare), sql)));
        }
    }

    /** The table's columns that the statement names; null (every column) for a star or an unknown table. */
    private static Set<String> mentioned(TableInfo info, String sql) {
        if (info == null || sql.matches("(?is).*(select|,)\\s*([A-Za-z_][A-Za-z0-9_]*\\.)?\\*.*")) return null;
        Set<String> words = new HashSet<>();
        for (String w : sql.toUpperCase(java.util.Locale.ROOT).split("[^A-Z0-9_]+")) words.add(w);
        Set<String> out = new HashSet<>();
        for (String col : info.columns()) if (words.contains(col.toUpperCase(java.util.Locale.ROOT))) out.add(col);
        return out;
    }

    /** Notes which columns a write statement sets, so the writes can say which columns of their rows changed. */
    private void noteWrite(String sql) {
        Statement parsed;
        try {
            parsed = CCJSqlParserUtil.parse(sql);
        } catch (Exception | Error unparsable) {
            return; // the capture refuses it with its own message
        }
        if (parsed instanceof net.sf.jsqlparser.statement.update.Update u && u.getTable() != null) {
            String table = u.getTable().getName().toUpperCase(java.util.Locale.ROOT);
            Set<String> cols = writtenColumns.computeIfAbsent(table, t -> new HashSet<>());
            for (net.sf.jsqlparser.statement.update.UpdateSet set : u.getUpdateSets())
                for (net.sf.jsqlparser.schema.Column col : set.getColumns()) cols.add(col.getColumnName().toUpperCase(java.util.Locale.ROOT));
        } else {
            try {
                for (String t : new net.sf.jsqlparser.util.TablesNamesFinder<Void>().getTables(parsed)) {
                    String bare = t.contains(".") ? t.substring(t.lastIndexOf('.') + 1) : t;
                    wholeRowWrites.add(bare.toUpperCase(java.util.Locale.ROOT));
                }
            } catch (RuntimeException noTables) {
                // nothing written
            }
        }
    }

    private synchronized void read(RowRef ref) {
        reads.add(ref);
    }

    private static int count(String sql) {
        int n = 0;
        boolean quoted = false;
        for (int i = 0; i < sql.length(); i++) {
            char ch = sql.charAt(i);
            if (ch == '\'') quoted = !quoted;
            else if (ch == '?' && !quoted) n++;
        }
        return n;
    }

    private static Object call(Object target, Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private final class ConnectionHandler implements InvocationHandler {
        private final Connection target;

        ConnectionHandler(Connection target) {
            this.target = target;
        }

        @Override
        public Object invoke(Object self, Method m, Object[] args) throws Throwable {
            Object result = call(target, m, args);
            if (m.getName().equals("prepareStatement") && args != null && args[0] instanceof String sql)
                return Proxy.newProxyInstance(Connection.class.getClassLoader(),
                        new Class<?>[] {PreparedStatement.class}, new StatementHandler(result, sql));
            if (m.getName().equals("createStatement"))
                return Proxy.newProxyInstance(Connection.class.getClassLoader(),
                        new Class<?>[] {java.sql.Statement.class}, new StatementHandler(result, null));
            return result;
        }
    }

    private final class StatementHandler implements InvocationHandler {
        private final Object target;
        private final String sql;
        private final Map<Integer, Object> parameters = new TreeMap<>();

        StatementHandler(Object target, String sql) {
            this.target = target;
            this.sql = sql;
        }

        @Override
        public Object invoke(Object self, Method m, Object[] args) throws Throwable {
            String name = m.getName();
            if (name.startsWith("set") && args != null && args.length >= 2 && args[0] instanceof Integer index)
                parameters.put(index, name.equals("setNull") ? null : args[1]);
            if (name.equals("clearParameters")) parameters.clear();
            if ((name.equals("executeUpdate") || name.equals("execute") || name.equals("executeLargeUpdate")
                    || name.equals("addBatch")) && (sql != null || (args != null && args.length > 0 && args[0] instanceof String))) {
                String text = sql != null ? sql : (String) args[0];
                if (!text.trim().toUpperCase(java.util.Locale.ROOT).startsWith("SELECT")) noteWrite(text);
            }
            Object result = call(target, m, args);
            if (name.equals("executeQuery")) {
                String text = sql != null ? sql : (String) args[0];
                recordRead(connectionOf(), text, sql != null ? parameters : Map.of());
            }
            return result;
        }

        private Connection connectionOf() throws SQLException {
            return ((java.sql.Statement) target).getConnection();
        }
    }
}
