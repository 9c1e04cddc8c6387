package dev.gyro.app;

import dev.gyro.protocol.Value;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * Runs an application's transactions straight on one JDBC connection, without Gyro: for loading checks, unit tests
 * of transactions, and a plain single-database baseline. Each {@link #execute} is one DBMS transaction
 * (serializable, committed on success, rolled back on any exception); a {@link UserAbort} becomes ABORTED.
 * Not thread-safe: one executor per connection.
 */
public final class DirectExecutor {

    private final TransactionCatalog catalog;
    private final Connection connection;

    /** Takes over {@code connection}: rolls back any transaction left open on it, then runs each call serializably. */
    public DirectExecutor(Application app, Connection connection) throws SQLException {
        this.catalog = new TransactionCatalog(app.transactions());
        this.connection = connection;
        if (!connection.getAutoCommit()) connection.rollback(); // a transaction the caller left open ends here
        connection.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
        connection.setAutoCommit(false);
    }

    /**
     * Runs one call.
     *
     * @param now  the request's clock (milliseconds since the epoch)
     * @param seed the seed of the request's random source
     */
    public Outcome execute(Call call, long now, long seed) {
        List<Value> params = new ArrayList<>();
        for (Object p : call.parameters()) params.add(Value.of(p));
        TxContext ctx = new TxContext() {
            private final SplittableRandom random = new SplittableRandom(seed);
            public Connection connection() { return connection; }
            public long now() { return now; }
            public RandomGenerator random() { return random; }
        };
        try {
            Object result = catalog.get(call.transaction()).invoke(ctx, params);
            connection.commit();
            return Outcome.ok(values(result));
        } catch (Exception e) {
            rollback();
            if (e instanceof UserAbort) return new Outcome(Outcome.Status.ABORTED, List.of(), e.getMessage());
            return new Outcome(Outcome.Status.FAILED, List.of(), call.transaction() + " failed: " + e);
        }
    }

    private void rollback() {
        try {
            connection.rollback();
        } catch (SQLException ignored) {
            // the connection is broken; the next execute reports it
        }
    }

    private static List<Value> values(Object result) {
        if (result == null) return List.of();
        List<Value> out = new ArrayList<>();
        if (result instanceof List<?> list) for (Object o : list) out.add(Value.of(o));
        else out.add(Value.of(result));
        return out;
    }
}
