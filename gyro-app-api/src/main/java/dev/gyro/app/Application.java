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
     * Loads the data every instance starts with, identically on each (seeded, no clock). Runs inside a
     * transaction on a database whose schema exists and is empty.
     *
     * @param scale the application's size unit (for the store: thousands of items)
     */
    default void load(Connection c, int scale, long seed) throws SQLException {}

    /** Whether {@link #load} has already run on this database. */
    default boolean isLoaded(Connection c) throws SQLException {
        return false;
    }
}
