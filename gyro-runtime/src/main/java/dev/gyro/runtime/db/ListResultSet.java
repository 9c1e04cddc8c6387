package dev.gyro.runtime.db;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Types;
import java.util.List;

/**
 * A forward-only, read-only {@link ResultSet} over rows held in memory: how generated keys derived from captured
 * rows are handed to the application. Supports the getters an application reads keys with ({@code getLong},
 * {@code getInt}, {@code getString}, {@code getObject}, ...), by index or label, and {@code getMetaData}.
 */
final class ListResultSet {

    private ListResultSet() {}

    static ResultSet of(List<String> labels, List<List<Object>> rows) {
        return (ResultSet) Proxy.newProxyInstance(ListResultSet.class.getClassLoader(), new Class<?>[] {ResultSet.class},
                new Handler(List.copyOf(labels), rows));
    }

    private static final class Handler implements InvocationHandler {
        final List<String> labels;
        final List<List<Object>> rows;
        int row = -1;
        boolean closed;
        boolean wasNull;

        Handler(List<String> labels, List<List<Object>> rows) {
            this.labels = labels;
            this.rows = rows;
        }

        @Override
        public Object invoke(Object self, Method m, Object[] args) throws Throwable {
            String name = m.getName();
            if (m.getDeclaringClass() == Object.class) {
                return switch (name) {
                    case "equals" -> self == args[0];
                    case "hashCode" -> System.identityHashCode(self);
                    default -> "ListResultSet" + labels + rows;
                };
            }
            switch (name) {
                case "close": closed = true; return null;
                case "isClosed": return closed;
                case "next":
                    open();
                    if (row < rows.size()) row++;
                    return row < rows.size();
                case "wasNull": return wasNull;
                case "getMetaData": return metaData();
                case "getStatement": return null;
                case "findColumn": return column(args[0]);
                case "isBeforeFirst": return row < 0 && !rows.isEmpty();
                case "isAfterLast": return row >= rows.size() && !rows.isEmpty();
                case "isFirst": return row == 0 && !rows.isEmpty();
                case "isLast": return row == rows.size() - 1 && !rows.isEmpty();
                case "getRow": return row >= 0 && row < rows.size() ? row + 1 : 0;
                case "getType": return ResultSet.TYPE_FORWARD_ONLY;
                case "getConcurrency": return ResultSet.CONCUR_READ_ONLY;
                case "getHoldability": return ResultSet.CLOSE_CURSORS_AT_COMMIT;
                case "getFetchDirection": return ResultSet.FETCH_FORWARD;
                case "getFetchSize": return 0;
                case "setFetchSize": case "setFetchDirection": case "clearWarnings": return null;
                case "getWarnings": return null;
                case "isWrapperFor": return ((Class<?>) args[0]).isInstance(self);
                case "unwrap":
                    if (((Class<?>) args[0]).isInstance(self)) return self;
                    throw new SQLException("not a wrapper for " + args[0]);
                default:
                    break;
            }
            if (name.startsWith("get") && args != null && args.length >= 1
                    && (args[0] instanceof Integer || args[0] instanceof String)) {
                Object v = value(column(args[0]));
                return convert(name, v, m.getReturnType(), args);
            }
            throw new SQLFeatureNotSupportedException(name + " is not supported on generated keys held in memory");
        }

        private void open() throws SQLException {
            if (closed) throw new SQLException("result set is closed");
        }

        private int column(Object key) throws SQLException {
            if (key instanceof Integer i) {
                if (i < 1 || i > labels.size()) throw new SQLException("column index " + i + " out of range 1.."
                        + labels.size());
                return i;
            }
            for (int i = 0; i < labels.size(); i++) if (labels.get(i).equalsIgnoreCase((String) key)) return i + 1;
            throw new SQLException("no column labelled " + key + " (columns: " + labels + ")");
        }

        private Object value(int column) throws SQLException {
            open();
            if (row < 0 || row >= rows.size()) throw new SQLException("no current row");
            Object v = rows.get(row).get(column - 1);
            wasNull = v == null;
            return v;
        }

        private static Object convert(String getter, Object v, Class<?> type, Object[] args) throws SQLException {
            if (getter.equals("getObject") && args.length == 2 && args[1] instanceof Class<?> c) type = c;
            if (type == Object.class) return v;
            if (v == null) {
                if (type == long.class) return 0L;
                if (type == int.class) return 0;
                if (type == short.class) return (short) 0;
                if (type == byte.class) return (byte) 0;
                if (type == double.class) return 0.0;
                if (type == float.class) return 0.0f;
                if (type == boolean.class) return false;
                return null;
            }
            try {
                if (type == long.class || type == Long.class) return number(v).longValue();
                if (type == int.class || type == Integer.class) return number(v).intValue();
                if (type == short.class || type == Short.class) return number(v).shortValue();
                if (type == byte.class || type == Byte.class) return number(v).byteValue();
                if (type == double.class || type == Double.class) return number(v).doubleValue();
                if (type == float.class || type == Float.class) return number(v).floatValue();
                if (type == boolean.class || type == Boolean.class) return number(v).longValue() != 0;
                if (type == BigDecimal.class) return new BigDecimal(v.toString());
                if (type == String.class) return v instanceof byte[] b ? new String(b) : v.toString();
                if (type == byte[].class && v instanceof byte[] b) return b.clone();
            } catch (NumberFormatException e) {
                throw new SQLException("value '" + v + "' is not a number");
            }
            if (type.isInstance(v)) return v;
            throw new SQLException("cannot read " + v.getClass().getSimpleName() + " value as " + type.getSimpleName());
        }

        private static Number number(Object v) {
            if (v instanceof Number n) return n;
            if (v instanceof Boolean b) return b ? 1 : 0;
            return new BigDecimal(v.toString());
        }

        private ResultSetMetaData metaData() {
            return (ResultSetMetaData) Proxy.newProxyInstance(ListResultSet.class.getClassLoader(),
                    new Class<?>[] {ResultSetMetaData.class}, (p, m, a) -> {
                        switch (m.getName()) {
                            case "getColumnCount": return labels.size();
                            case "getColumnLabel": case "getColumnName": return labels.get((Integer) a[0] - 1);
                            case "getColumnType": return Types.JAVA_OBJECT;
                            case "getColumnTypeName": return "JAVA_OBJECT";
                            case "getColumnClassName": return Object.class.getName();
                            case "isNullable": return ResultSetMetaData.columnNullableUnknown;
                            case "getTableName": case "getSchemaName": case "getCatalogName": return "";
                            case "isReadOnly": return true;
                            case "isWrapperFor": return false;
                            case "hashCode": return System.identityHashCode(p);
                            case "equals": return p == a[0];
                            case "toString": return "metadata of generated keys " + labels;
                            default: throw new SQLFeatureNotSupportedException(m.getName());
                        }
                    });
        }
    }
}
