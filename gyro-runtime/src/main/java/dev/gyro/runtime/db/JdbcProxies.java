package dev.gyro.runtime.db;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.sql.BatchUpdateException;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** What the capturing proxies ({@link CapturingConnection}) need of JDBC through reflection, in one place. */
final class JdbcProxies {

    private JdbcProxies() {}

    static void invokeSetter(Method setter, PreparedStatement ps, Object[] args) throws SQLException {
        try {
            call(setter, ps, args);
        } catch (SQLException | RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new SQLException(t);
        }
    }


    static Object objectMethod(Object self, Method m, Object[] args, Object target) throws Throwable {
        switch (m.getName()) {
            case "equals": return self == args[0];
            case "hashCode": return System.identityHashCode(self);
            case "toString": return "Captured[" + target + "]";
            default: return call(m, target, args);
        }
    }

    static boolean isSqlStringExecution(Method m, Object[] args) {
        String n = m.getName();
        return (n.startsWith("execute") || n.equals("addBatch")) && args != null && args.length >= 1
                && m.getParameterTypes()[0] == String.class;
    }

    static SQLException sqlOnPrepared(Method m) {
        return new SQLException(m.getName() + "(String) cannot be called on a PreparedStatement");
    }

    static boolean isParameterSetter(Method m, Object[] args) {
        return m.getDeclaringClass() == PreparedStatement.class && m.getName().startsWith("set") && args != null
                && args.length >= 2 && m.getParameterTypes()[0] == int.class;
    }

    static final Method SET_BYTES;
    static final Method SET_STRING;

    static {
        try {
            SET_BYTES = PreparedStatement.class.getMethod("setBytes", int.class, byte[].class);
            SET_STRING = PreparedStatement.class.getMethod("setString", int.class, String.class);
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {Method, args} to record for a parameter setter: streams and readers are read into bytes or text once. */
    static Object[] materialize(Method m, Object[] args) throws SQLException {
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

    static BatchUpdateException batchFailure(SQLException e, long[] done) {
        return new BatchUpdateException("batch entry " + (done.length + 1) + " failed: " + e.getMessage(),
                e.getSQLState(), e.getErrorCode(), done, e);
    }

    static int[] toInts(long[] counts) {
        int[] out = new int[counts.length];
        for (int i = 0; i < counts.length; i++) out[i] = (int) Math.min(Integer.MAX_VALUE, counts[i]);
        return out;
    }

    static Object call(Method m, Object target, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
