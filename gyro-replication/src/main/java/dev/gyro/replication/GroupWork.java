package dev.gyro.replication;

import java.sql.SQLException;

/**
 * What a request does to a replica's database, run by the group's leader in one DBMS transaction whose writes are
 * captured as row images (docs/decisions/22-group-log.md). It must neither commit nor roll back: the leader commits
 * only once the group's log has committed the writes.
 */
@FunctionalInterface
public interface GroupWork<T> {
    T run(GroupTransaction tx) throws SQLException;
}
