package dev.gyro.runtime.check;

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
 * Records, for one attempt of one request, the rows it reads and writes, through JDBC only. Writes come from the
 * row-image capture (their keys). A read is a SELECT: for a single-table SELECT whose parameters all sit in its
 * WHERE clause, the recorder re-runs {@code SELECT <key columns> FROM <table> WHERE <same condition>} with the same
 * parameters in the same transaction and records those keys; any other SELECT (joins, sub-selects, parameters
 * elsewhere) is recorded as a read of the whole table, which can only make the check stricter. Reads of rows that
 * do not exist are not recorded. For tests and diagnosis: it runs every read twice.
 */
public final class RequestRecorder {

    private final CapturingConnection capture;
    private final Connection connection;
    private final TableCatalog tables;
    private final Set<RowRef> reads = new HashSet<>();

    public RequestRecorder(Connection real, Dialect dialect, TableCatalog tables) {
        this.capture = CapturingConnection.wrap(real, dialect, tables);
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
        for (RowChange c : capture.changes()) out.add(new RowRef(c.table(), c.keyValues()));
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
        if (!(parsed instanceof PlainSelect ps)) {
            wholeTables(parsed);
            return;
        }
        if (!(ps.getFromItem() instanceof Table table) || (ps.getJoins() != null && !ps.getJoins().isEmpty())
                || ps.getWhere() == null) {
            wholeTables(parsed);
            return;
        }
        String where = ps.getWhere().toString();
        if (count(where) != count(sql) || count(where) != parameters.size()) {
            read(RowRef.wholeTable(table.getName()));
            return;
        }
        TableInfo info = tables.table(c, table.getSchemaName(), table.getName());
        if (info == null || !info.hasPrimaryKey()) {
            read(RowRef.wholeTable(table.getName()));
            return;
        }
        String keys = "SELECT " + String.join(", ", info.keyColumns()) + " FROM " + table + " WHERE " + where;
        try (PreparedStatement q = c.prepareStatement(keys)) {
            for (Map.Entry<Integer, Object> p : parameters.entrySet()) q.setObject(p.getKey(), p.getValue());
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    List<Value> key = new ArrayList<>();
                    for (int i = 1; i <= info.keyColumns().size(); i++) key.add(Value.of(rs.getObject(i)));
                    read(new RowRef(info.name(), key));
                }
            }
        }
    }

    private void wholeTables(Statement parsed) {
        try {
            for (String t : new net.sf.jsqlparser.util.TablesNamesFinder<Void>().getTables(parsed))
                read(RowRef.wholeTable(t));
        } catch (RuntimeException ignored) {
            // a statement without tables reads nothing
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
