package dev.gyro.peer;

import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.Value;
import org.apache.shardingsphere.sharding.api.sharding.standard.PreciseShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.RangeShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.StandardShardingAlgorithm;

import java.util.Collection;
import java.util.List;
import java.util.Properties;

/**
 * ShardingSphere's database sharding for every sharded table of the peer: a row goes to the data source of the
 * instance that {@link PartitionMap#uniform(int)} gives its sharding value, the same function that placed the rows
 * ({@code ShardedDatabases}) and that routes Gyro's requests, so both systems see the same data on the same
 * instance. Configured as ShardingSphere's {@code CLASS_BASED} algorithm with strategy {@code STANDARD}.
 *
 * <p>Properties: {@value #INSTANCES} (how many instances) and {@value #PREFIX} (data source {@code i} is named
 * prefix + i).
 */
public final class PartitionMapShardingAlgorithm implements StandardShardingAlgorithm<Comparable<?>> {

    static final String INSTANCES = "instances";
    static final String PREFIX = "data-source-prefix";

    private PartitionMap map;
    private String prefix;

    @Override
    public void init(Properties props) {
        String n = props.getProperty(INSTANCES);
        prefix = props.getProperty(PREFIX);
        if (n == null || prefix == null)
            throw new IllegalArgumentException("PartitionMapShardingAlgorithm needs the properties " + INSTANCES
                    + " and " + PREFIX + ", got " + props);
        map = PartitionMap.uniform(Integer.parseInt(n));
    }

    @Override
    public String doSharding(Collection<String> availableTargetNames, PreciseShardingValue<Comparable<?>> value) {
        String target = prefix + map.instanceOf(Value.of(value.getValue()));
        if (!availableTargetNames.contains(target))
            throw new IllegalStateException("table " + value.getLogicTableName() + ": " + value.getColumnName() + " = "
                    + value.getValue() + " belongs on " + target + ", which is not among " + availableTargetNames);
        return target;
    }

    /**
     * A range of sharding values may hash anywhere: every data source. (The applications shard by ids they compare
     * with {@code =} only; a range would be a scan of every shard, which is what ShardingSphere then does.)
     */
    @Override
    public Collection<String> doSharding(Collection<String> availableTargetNames,
                                         RangeShardingValue<Comparable<?>> value) {
        return List.copyOf(availableTargetNames);
    }

    @Override
    public String getType() {
        return "GYRO_PARTITION_MAP";
    }
}
