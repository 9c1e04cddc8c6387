package dev.gyro.check;

import dev.gyro.protocol.Value;

import java.util.List;
import java.util.Set;

/**
 * What one committed request read and wrote, as the recorder saw it through JDBC.
 *
 * @param instance    where it ran
 * @param transaction its transaction
 * @param parameters  its input parameters
 * @param partition   the values of its partitioning parameters: two requests with equal values are of one partition
 * @param global      whether it ran as a global request (its writes reach every instance)
 * @param startNanos  when it started, on this JVM's clock ({@link System#nanoTime()}); all instances of a test share it
 * @param endNanos    when it committed
 */
public record Access(int instance, String transaction, List<Value> parameters, List<Value> partition, boolean global,
                     long startNanos, long endNanos, Set<RowRef> reads, Set<RowRef> writes) {

    public Access {
        parameters = List.copyOf(parameters);
        partition = List.copyOf(partition);
        reads = Set.copyOf(reads);
        writes = Set.copyOf(writes);
    }

    public String describe() {
        return (global ? "global " : "local ") + transaction + parameters.toString().replace('[', '(').replace(']', ')')
                + " at instance " + instance;
    }
}
