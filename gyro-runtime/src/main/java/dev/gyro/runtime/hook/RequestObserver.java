package dev.gyro.runtime.hook;

import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.CapturingConnection;
import dev.gyro.runtime.db.Database;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * Watches what each request reads and writes, through JDBC: the dynamic check of Definition 1 (the gyro-check
 * module) plugs in here, for tests and diagnosis. The runtime's default, {@link #NONE}, watches nothing and hands the
 * request its connection unchanged.
 *
 * <p>Contract: {@link #begin} is called once per attempt of a request, on the thread that runs it, inside the
 * attempt's DBMS transaction, before the transaction's code runs; the attempt's {@link Attempt#ran()} after the code
 * ran (still inside the transaction), {@link Attempt#committed()} after the commit. An attempt that rolls back gets
 * neither {@code committed()} nor, when the code failed, {@code ran()}. An exception from {@code begin} or
 * {@code ran()} fails the attempt (it rolls back).
 */
public interface RequestObserver {

    /** Watches nothing. */
    RequestObserver NONE = (request, connection, capture) -> () -> connection;

    /**
     * What is being watched.
     *
     * @param instance    the instance running it
     * @param transaction the transaction's name
     * @param parameters  the request's parameters
     * @param partition   the values of its partitioning parameters
     * @param global      whether it runs as a global request
     * @param database    the instance's database (its dialect and tables)
     */
    record Observed(int instance, String transaction, List<Value> parameters, List<Value> partition, boolean global,
                    Database database) {}

    /** One attempt of one request. */
    interface Attempt {
        /** The connection the request's code must use. */
        Connection connection();

        /** The code ran; the transaction is still open. */
        default void ran() throws SQLException {}

        /** The transaction committed. Must not throw: the outcome is the database's now (a throw is logged). */
        default void committed() {}
    }

    /**
     * @param connection the attempt's connection, in its transaction
     * @param capture    for a global request, the connection capturing its writes as row images (its
     *                   {@code connection()} is {@code connection}); null for a local request
     */
    Attempt begin(Observed request, Connection connection, CapturingConnection capture) throws SQLException;
}
