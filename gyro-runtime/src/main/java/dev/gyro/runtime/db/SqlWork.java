package dev.gyro.runtime.db;

import java.sql.Connection;

/**
 * A unit of work run inside one DBMS transaction by {@link Database#inTransaction}. It may run more than once
 * (after a busy/serialization failure the whole unit runs again on a fresh transaction), so it must not have
 * effects outside the connection that a second run would repeat wrongly. It must not commit, roll back or
 * close the connection: {@link Database} does.
 *
 * @param <T> the result
 */
@FunctionalInterface
public interface SqlWork<T> {
    T run(Connection connection) throws Exception;
}
