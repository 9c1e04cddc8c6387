package dev.gyro.app;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * An application Gyro scales out: its transactions, its schema, its classification, and how to load the data
 * every instance starts with.
 */
public interface Application {

    String name();

    /** One stateless instance of each transaction. */
    List<Transaction> transactions();

    /** The transactions as the runtime finds them: by default, each named after its class. */
    default TransactionCatalog catalog() {
        return new TransactionCatalog(transactions());
    }

    /** Creates the application's tables (idempotent: IF NOT EXISTS). Runs inside a transaction. */
    void createSchema(Connection c) throws SQLException;

    /** The classification the runtime routes by. */
    Classification classification();

    /**
     * Tables that global requests write: replicated on every instance, so equal on all of them once the ring
     * is quiet. The demo compares their checksums.
     */
    List<String> replicatedTables();

    /**
     * How a sharded deployment splits this application's data: the 2pc and ShardingSphere baselines of the
     * benchmark harness run on it. Gyro does not use it.
     *
     * @throws UnsupportedOperationException if the application declares none
     */
    default Sharding sharding() {
        throw new UnsupportedOperationException("application " + name() + " declares no sharding");
    }

    /** {@link #load(Connection, int, long, LoadProgress)} without telling anyone how far it has come. */
    default void load(Connection c, int scale, long seed) throws SQLException {
        load(c, scale, seed, LoadProgress.NONE);
    }

    /** Whether {@link #load} has already run on this database. */
    default boolean isLoaded(Connection c) throws SQLException {
        return false;
    }

    /**
     * Loads the data every instance starts with, identically on each (seeded, no clock), telling {@code progress}
     * how far it has come. Runs inside a transaction on a database whose schema exists and is empty. Applications
     * with initial data override this one; the default loads nothing.
     *
     * @param scale the application's size unit (for the store: thousands of items)
     */
    default void load(Connection c, int scale, long seed, LoadProgress progress) throws SQLException {}

    /** What {@code scale} means in rows, for messages: {@code "1000 items, 2880 customers"}. */
    default String describeScale(int scale) {
        return "scale " + scale;
    }

    /**
     * How clients use the application: the request mix a benchmark drives.
     *
     * @param scale   the scale the databases were loaded at (sessions draw ids from the loaded ranges)
     * @param options the workload's options; unknown ones are rejected with their names
     * @throws UnsupportedOperationException if the application has no workload
     */
    default Workload workload(int scale, WorkloadOptions options) {
        throw new UnsupportedOperationException("application '" + name() + "' (" + getClass().getName()
                + ") defines no workload: implement Application.workload(int scale, WorkloadOptions options) to return"
                + " a dev.gyro.app.Workload whose ClientSession.next() picks each client's next Call"
                + " (docs/your-application.md, step 4)");
    }

    /**
     * The application's consistency conditions, checked after a run.
     *
     * @param scale the scale the databases were loaded at
     * @param seed  the seed they were loaded with
     */
    default Audit audit(int scale, long seed) {
        return Audit.NONE;
    }
}
