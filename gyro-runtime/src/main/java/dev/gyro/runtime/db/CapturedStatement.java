package dev.gyro.runtime.db;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** Plain statements: each SQL string is classified when executed; owner.writes run as captured prepared statements. */
final class CapturedStatement implements InvocationHandler {
    private final CapturingConnection owner;
    final Statement st;
    final Statement proxy;
    final List<String> batch = new ArrayList<>();
    final GeneratedKeys keys;
    long lastCount = -1;
    boolean lastWasCaptured;
    private java.sql.ResultSet returned; // the rows of the last captured write's own RETURNING clause

    CapturedStatement(CapturingConnection owner, Statement st) {
        this.owner = owner;
        this.st = st;
        this.keys = new GeneratedKeys(owner);
        this.proxy = (Statement) Proxy.newProxyInstance(CapturingConnection.class.getClassLoader(),
                new Class<?>[] {Statement.class}, this);
    }

    @Override
    public Object invoke(Object self, Method m, Object[] args) throws Throwable {
        String name = m.getName();
        if (m.getDeclaringClass() == Object.class) return JdbcProxies.objectMethod(self, m, args, st);
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
                return JdbcProxies.call(m, st, args);
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
                if (lastWasCaptured) return returned;
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
                return owner.proxy;
            case "close":
                keys.close();
                break;
            default:
                break;
        }
        return JdbcProxies.call(m, st, args);
    }

    private Object execute(Method m, Object[] args) throws Throwable {
        owner.checkNotSpoiled();
        String sql = (String) args[0];
        WriteStatement ws = WriteStatement.classify(sql);
        if (!ws.isWrite()) {
            keys.close();
            lastWasCaptured = false;
            return JdbcProxies.call(m, st, args);
        }
        if (m.getName().equals("executeQuery") && ws.returning() == null)
            throw new SQLException("executeQuery() called with a write statement: ["
                    + WriteStatement.abbreviate(sql) + "]; use executeUpdate()");
        CapturingConnection.Target target = owner.target(ws);
        keys.close();
        lastWasCaptured = false;
        long count;
        try (PreparedStatement ps = owner.real.prepareStatement(target.runSql())) {
            count = owner.runCaptured(ps, target, Map.of());
        }
        keys.afterWrite(ws.kind(), KeyRequest.of(args));
        lastWasCaptured = true;
        lastCount = count;
        returned = ws.returning() == null ? null : owner.lastWritten.returned(ws.returning());
        switch (m.getName()) {
            case "executeUpdate": return (int) Math.min(Integer.MAX_VALUE, count);
            case "executeLargeUpdate": return count;
            case "executeQuery": return returned;
            default: return returned != null; // execute(): rows when the statement returns them, else a count
        }
    }

    private Object executeBatch(boolean large) throws SQLException {
        owner.checkNotSpoiled();
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
                CapturingConnection.Target target = owner.target(ws);
                try (PreparedStatement ps = owner.real.prepareStatement(target.runSql())) {
                    counts[i] = owner.runCaptured(ps, target, Map.of());
                }
            } catch (SQLException e) {
                throw JdbcProxies.batchFailure(e, Arrays.copyOf(counts, i));
            }
        }
        keys.close();
        lastWasCaptured = false;
        return large ? counts : JdbcProxies.toInts(counts);
    }
}
