package dev.gyro.bench.twopc;

import dev.gyro.app.Application;
import dev.gyro.app.Sharding;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.Value;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The 2pc baseline's statement router: what the application's unchanged transaction code sees as its JDBC
 * connection. Each statement goes to the shards that hold the rows it touches ({@link Route}): a read to the one
 * shard its sharded tables are pinned to (replicated tables are read at the transaction's home shard), a write to
 * the shard of its row or, for a replicated table, to every shard; a read spanning shards is federated. Statements
 * join the call's {@link DistributedTransaction}, which commits them atomically.
 *
 * <p>Only what the applications' transactions use is offered: {@code prepareStatement(sql)}, the {@code setXxx}
 * binders, {@code executeQuery}, {@code executeUpdate} and {@code execute}; anything else fails naming the method.
 */
final class Router implements AutoCloseable {

    private final Sharding sharding;
    private final PartitionMap map;
    private final Map<String, SqlPlan> plans = new ConcurrentHashMap<>();
    final Federation federation;

    Router(Application app, PartitionMap map) {
        this.sharding = app.sharding();
        this.map = map;
        this.federation = new Federation(app, sharding);
    }

    int shardOf(Object value) {
        return map.instanceOf(Value.of(value));
    }

    SqlPlan plan(String sql) {
        return plans.computeIfAbsent(sql, q -> SqlPlan.of(q, sharding));
    }

    /** The connection a call's transaction code runs on. */
    Connection connection(DistributedTransaction tx) {
        Connection[] self = new Connection[1];
        self[0] = (Connection) Proxy.newProxyInstance(Router.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "prepareStatement" -> {
                        if (args.length != 1) throw unsupported("prepareStatement with options");
                        yield statement(self[0], tx, (String) args[0]);
                    }
                    case "setAutoCommit", "setTransactionIsolation", "clearWarnings", "close" -> null;
                    case "getAutoCommit", "isClosed", "isReadOnly" -> false;
                    case "getTransactionIsolation" -> Connection.TRANSACTION_SERIALIZABLE;
                    case "getWarnings" -> null;
                    case "toString" -> "2pc router connection (transaction home shard " + tx.home() + ")";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw unsupported("Connection." + method.getName());
                });
        return self[0];
    }

    private PreparedStatement statement(Connection connection, DistributedTransaction tx, String sql) {
        SqlPlan plan = plan(sql); // parse errors surface at prepare, as a driver's would
        RoutedStatement st = new RoutedStatement(plan, tx);
        InvocationHandler h = (proxy, method, args) -> {
            try {
                return st.invoke(connection, proxy, method.getName(), args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (PreparedStatement) Proxy.newProxyInstance(Router.class.getClassLoader(),
                new Class<?>[] {PreparedStatement.class}, h);
    }

    private static SQLFeatureNotSupportedException unsupported(String what) {
        return new SQLFeatureNotSupportedException("the 2pc router does not offer " + what);
    }

    /** One prepared statement's state: its parameters and what its last execution left open. */
    private final class RoutedStatement {
        private final SqlPlan plan;
        private final DistributedTransaction tx;
        private final Map<Integer, Object> parameters = new TreeMap<>();
        private final List<PreparedStatement> open = new ArrayList<>();
        private ResultSet results;
        private long count = -1;
        private boolean closed;

        RoutedStatement(SqlPlan plan, DistributedTransaction tx) {
            this.plan = plan;
            this.tx = tx;
        }

        Object invoke(Connection connection, Object proxy, String name, Object[] args) throws Exception {
            if (name.startsWith("set") && args != null && args.length >= 2 && args[0] instanceof Integer i) {
                parameters.put(i, name.equals("setNull") ? null : args[1]);
                return null;
            }
            return switch (name) {
                case "clearParameters" -> { parameters.clear(); yield null; }
                case "executeQuery" -> {
                    if (plan.writes()) throw new SQLException("executeQuery of a write: " + plan.sql);
                    yield query();
                }
                case "executeUpdate" -> (int) update();
                case "executeLargeUpdate" -> update();
                case "execute" -> {
                    if (plan.writes()) { update(); yield false; }
                    query();
                    yield true;
                }
                case "getResultSet" -> results;
                case "getUpdateCount" -> (int) count;
                case "close" -> { closeOpen(); closed = true; yield null; }
                case "isClosed" -> closed;
                case "getConnection" -> connection;
                case "clearWarnings" -> null;
                case "getWarnings" -> null;
                case "toString" -> "2pc routed statement: " + plan.sql;
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> throw unsupported("PreparedStatement." + name);
            };
        }

        private Route route() {
            return Route.of(plan, parameters, Router.this::shardOf, tx.count(), tx.home());
        }

        private ResultSet query() throws SQLException {
            closeOpen();
            count = -1;
            Route r = route();
            if (r.federated()) return results = federation.query(plan, parameters, tx);
            int shard = r.shards().nextSetBit(0);
            PreparedStatement ps = prepared(shard);
            return results = ps.executeQuery();
        }

        private long update() throws SQLException {
            closeOpen();
            results = null;
            BitSet shards = route().shards();
            boolean replicated = !plan.refs.isEmpty() && sharding.isReplicated(plan.target);
            long total = 0;
            boolean first = true;
            for (int s = shards.nextSetBit(0); s >= 0; s = shards.nextSetBit(s + 1)) {
                long n = prepared(s).executeLargeUpdate();
                tx.wrote(s);
                // A replicated table's copies change alike: the count is one copy's; a sharded table's add up.
                if (!replicated || first) total += n;
                first = false;
            }
            return count = total;
        }

        private PreparedStatement prepared(int shard) throws SQLException {
            PreparedStatement ps = tx.on(shard).prepareStatement(plan.sql);
            open.add(ps);
            for (Map.Entry<Integer, Object> e : parameters.entrySet()) ps.setObject(e.getKey(), e.getValue());
            return ps;
        }

        private void closeOpen() throws SQLException {
            for (PreparedStatement ps : open) ps.close();
            open.clear();
        }
    }

    @Override
    public void close() {
        federation.close();
    }
}
