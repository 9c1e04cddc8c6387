package dev.gyro.app;

import dev.gyro.protocol.PartitionMap;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * An application's own consistency conditions, checked after a run directly on every instance's database (not through
 * Gyro: a checker that went through the code it checks could share that code's faults). Data of a partition lives at
 * the instance that owns it ({@code map}); data written by global requests is on every instance.
 */
public interface Audit {

    /** The conditions, one sentence each, as printed before the verdict. */
    List<String> conditions();

    /**
     * Checks every condition.
     *
     * @param instances one connection per instance, in instance order (a plain database is a list of one)
     * @param map       the partition map the run used
     * @return the violations in words, each naming the instance and the rows; empty when all hold
     */
    List<String> check(List<Connection> instances, PartitionMap map) throws SQLException;

    /** No conditions: for an application that states none. */
    Audit NONE = new Audit() {
        public List<String> conditions() { return List.of(); }
        public List<String> check(List<Connection> instances, PartitionMap map) { return List.of(); }
    };
}
