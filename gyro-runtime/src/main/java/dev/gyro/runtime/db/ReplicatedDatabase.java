package dev.gyro.runtime.db;

import com.zaxxer.hikari.HikariPoolMXBean;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * A replica's database as its replicated group's leader sees it (docs/decisions/24-ring-on-groups.md): reads go to the
 * replica's own pools once the leader proved it still leads ({@link Replication#beforeRead}); every write transaction
 * begins and commits through {@link Replication}. Closing the view closes nothing: the replica owns the database.
 * Thread-safe.
 */
final class ReplicatedDatabase implements Database {

    private final Database replica;
    private final Replication replication;
    private final Failures failures;
    private final LongAdder retries = new LongAdder();

    ReplicatedDatabase(Database replica, Replication replication) {
        this.replica = replica;
        this.replication = replication;
        this.failures = new Failures(this, replica.failures().health()); // the replica's database is the one watched
    }

    @Override
    public boolean replicated() {
        return true;
    }

    @Override
    public Dialect dialect() {
        return replica.dialect();
    }

    @Override
    public String jdbcUrl() {
        return replica.jdbcUrl();
    }

    @Override
    public Options options() {
        return replica.options();
    }

    @Override
    public TableCatalog tables() {
        return replica.tables();
    }

    @Override
    public Failures failures() {
        return failures;
    }

    @Override
    public Map<String, HikariPoolMXBean> pools() {
        return replica.pools();
    }

    @Override
    public long retries() {
        return replica.retries() + retries.sum();
    }

    @Override
    public Connection writeConnection() throws SQLException {
        return replication.begin();
    }

    /** The leader proves it still leads before it reads (decision 24). */
    @Override
    public Connection readConnection() throws SQLException {
        replication.beforeRead();
        return replica.readConnection();
    }

    @Override
    public void commit(Connection c) throws SQLException {
        if (CapturingConnection.of(c) != null) replication.commit(c); // begun by the replication
        else replica.commit(c);
    }

    @Override
    public void rollback(Connection c) {
        if (CapturingConnection.of(c) != null) replication.rollback(c);
        else replica.rollback(c);
    }

    @Override
    public <T> T inTransaction(boolean readOnly, SqlWork<T> work) throws SQLException {
        if (readOnly) {
            replication.beforeRead();
            return replica.inTransaction(true, work);
        }
        return LostRaces.retry(this, retries, () -> {
            Connection c = replication.begin();
            boolean committing = false;
            try {
                T result = work.run(c);
                committing = true;
                replication.commit(c); // rolls back and closes itself when it fails
                return result;
            } catch (Throwable t) {
                if (!committing) replication.rollback(c);
                throw t;
            }
        });
    }

    /** Reads wait for a connection of the replica's pool by the deadline; writes go as {@link Database} says. */
    @Override
    public <T> T inTransaction(boolean readOnly, long deadlineNanos, SqlWork<T> work) throws SQLException {
        if (!readOnly) return Database.super.inTransaction(false, deadlineNanos, work);
        replication.beforeRead();
        return replica.inTransaction(true, deadlineNanos, work);
    }

    @Override
    public void close() {
        // a view: the replica owns the pools
    }

    @Override
    public String toString() {
        return replica.toString().replaceFirst("\\]$", ", replicated]"); // its URL with any password hidden
    }
}
