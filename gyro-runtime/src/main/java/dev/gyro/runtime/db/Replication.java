package dev.gyro.runtime.db;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * How the write transactions of a database commit when the database is one replica of a replicated group (the
 * paper's Section III: each Gyro instance made fault tolerant by state machine replication, each replica with its own
 * DBMS replica; docs/decisions/22-group-log.md and docs/decisions/24-ring-on-groups.md). {@link Database#replicatedBy}
 * gives the runtime a view of the replica's database whose every write transaction goes through it; read-only
 * transactions are untouched.
 *
 * <p>A write transaction begins only on the group's leader, once its database holds everything its group's log
 * committed; every row it writes, Gyro's metadata included, is captured as a row image; it commits only once a
 * majority of the group holds those images, so the leader's database never keeps an effect the group did not commit.
 * Begin and commit (or rollback) of one transaction are called on one thread.
 */
public interface Replication {

    /**
     * Begins a write transaction on this replica as its group's leader.
     *
     * @return the connection to write on: every write on it is captured as row images, Gyro's metadata included
     * @throws UnavailableException when this replica does not lead its group, or cannot catch up with its log in time
     */
    Connection begin() throws SQLException;

    /**
     * Commits the transaction begun as {@code c} once a majority of the group holds its row images (at once when it
     * wrote nothing), and closes it.
     *
     * @throws UnavailableException when the group did not commit it in time: rolled back here; its outcome says whether
     *                              it may still commit
     * @throws SQLException         when the database refused it: rolled back
     */
    void commit(Connection c) throws SQLException;

    /** Rolls back the transaction begun as {@code c} and closes it. Never throws. */
    void rollback(Connection c);

    /**
     * Before a read-only transaction: returns once this replica has proved that it still leads its group and its
     * database holds everything the group committed before now, so the read misses no committed write.
     *
     * @throws UnavailableException when it cannot prove it leads within the group's commit timeout
     */
    void beforeRead() throws SQLException;
}
