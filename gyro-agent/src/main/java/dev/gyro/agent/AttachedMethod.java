package dev.gyro.agent;

import dev.gyro.app.Classification;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * One transaction of an unmodified application: the classification's rule, the application's method it names, and the
 * paths to its partitioning values, all resolved against the application's classes.
 */
public record AttachedMethod(Classification.Rule rule, Method method, List<PartitionPath> partitionBy) {

    public AttachedMethod {
        partitionBy = List.copyOf(partitionBy);
    }

    /**
     * The partitioning values of one call, in the classification's order.
     *
     * @throws IllegalArgumentException naming the path when a value is missing (a null on the way, or an array too short)
     */
    public List<Object> partitionValues(Object[] args) {
        List<Object> values = new ArrayList<>(partitionBy.size());
        for (PartitionPath p : partitionBy) {
            Object v = p.valueOf(args);
            if (v == null)
                throw new IllegalArgumentException("a call of " + rule.method() + " has no partitioning value "
                        + p.text() + " (null on the way, or an array too short): Gyro cannot tell where it runs");
            values.add(v);
        }
        return values;
    }
}
