package dev.gyro.runtime.db;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

/**
 * A prepared write. Parameters are recorded as well as set (streams read into values once), so that each
 * batch entry can be run as its own captured query: the driver's own batch cannot return rows.
 */
final class CapturedWrite implements InvocationHandler {
    private final CapturingConnection owner;
    final PreparedStatement ps;
    final CapturingConnection.Target target;
    final PreparedStatement proxy;
    final TreeMap<Integer, Object[]> params = new TreeMap<>(); // index -> {Method, args}
    final List<TreeMap<Integer, Object[]>> batch = new ArrayList<>();
    final GeneratedKeys keys;
    final KeyRequest keyRequest;
    long lastCount = -1;
    private java.sql.ResultSet returned; // the rows of the statement's own RETURNING clause, from its last run

    CapturedWrite(CapturingConnection owner, PreparedStatement ps, CapturingConnection.Target target,
                  KeyRequest keyRequest) {
        this.owner = owner;
        this.ps = ps;
        this.target = target;
        this.keyRequest = keyRequest;
        this.keys = new GeneratedKeys(owner);
        this.proxy = (PreparedStatement) Proxy.newProxyInstance(CapturingConnection.class.getClassLoader(),
                new Class<?>[] {PreparedStatement.class}, this);
    }

    @Override
    public Object invoke(Object self, Method m, Object[] args) throws Throwable {
        if (m.getDeclaringClass() == Object.class) return JdbcProxies.objectMethod(self, m, args, ps);
        String name = m.getName();
        if (JdbcProxies.isSqlStringExecution(m, args)) throw JdbcProxies.sqlOnPrepared(m);
        if (JdbcProxies.isParameterSetter(m, args)) {
            Object[] call = JdbcProxies.materialize(m, args);
            Method setter = (Method) call[0];
            Object[] setterArgs = (Object[]) call[1];
            params.put((Integer) setterArgs[0], call);
            return JdbcProxies.call(setter, ps, setterArgs);
        }
        switch (name) {
            case "clearParameters":
                params.clear();
                return JdbcProxies.call(m, ps, args);
            case "executeUpdate":
                run();
                return (int) Math.min(Integer.MAX_VALUE, lastCount);
            case "executeLargeUpdate":
                run();
                return lastCount;
            case "execute":
                run();
                return returned != null;
            case "executeQuery":
                if (target.statement().returning() == null)
                    throw new SQLException("executeQuery() called on a write statement: ["
                            + WriteStatement.abbreviate(target.statement().sql()) + "]; use executeUpdate()");
                run();
                return returned;
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
                return returned;
            case "getMetaData":
                return returned == null ? null : returned.getMetaData(); // a write returns rows only when it asks
            case "getGeneratedKeys":
                return keys.get();
            case "getConnection":
                return owner.proxy;
            case "close":
                keys.close();
                return JdbcProxies.call(m, ps, args);
            default:
                return JdbcProxies.call(m, ps, args);
        }
    }

    private void run() throws SQLException {
        keys.close();
        returned = null;
        lastCount = owner.runCaptured(ps, target, params);
        keys.afterWrite(target.statement().kind(), keyRequest);
        if (target.statement().returning() != null) returned = owner.lastWritten.returned(target.statement().returning());
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
                    counts[i] = owner.runCaptured(ps, target, entries.get(i));
                    all = all.plus(owner.lastWritten);
                } catch (SQLException e) {
                    throw JdbcProxies.batchFailure(e, Arrays.copyOf(counts, i));
                }
            }
        } finally {
            bind(params); // the current parameters stay as the application last set them
        }
        owner.lastWritten = all;
        keys.afterWrite(target.statement().kind(), keyRequest);
        lastCount = -1;
        return large ? counts : JdbcProxies.toInts(counts);
    }

    private void bind(TreeMap<Integer, Object[]> values) throws SQLException {
        ps.clearParameters();
        for (Object[] call : values.values()) {
            try {
                JdbcProxies.call((Method) call[0], ps, (Object[]) call[1]);
            } catch (SQLException | RuntimeException e) {
                throw e;
            } catch (Throwable t) {
                throw new SQLException(t);
            }
        }
    }
}
