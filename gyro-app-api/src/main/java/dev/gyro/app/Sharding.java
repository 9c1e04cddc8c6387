package dev.gyro.app;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How a sharded deployment of the application splits its data (the benchmark's 2pc and ShardingSphere baselines):
 * each sharded table lives on the instance that owns its sharding column's value, under the same partition map
 * that routes Gyro's requests by their partitioning parameters (so a row lives where Gyro runs the local requests
 * that write it); every other table is replicated on every instance and written everywhere, as sharded deployments
 * do with tables that have no partitioning column.
 *
 * <p>Gyro itself never reads this: it replicates every table and partitions requests, not data.
 *
 * @param shardedBy  sharded table to its sharding column, upper case
 * @param replicated the tables copied on every instance, upper case
 */
public record Sharding(Map<String, String> shardedBy, List<String> replicated) {

    public Sharding {
        Map<String, String> by = new LinkedHashMap<>();
        shardedBy.forEach((t, c) -> by.put(t.toUpperCase(Locale.ROOT), c.toUpperCase(Locale.ROOT)));
        List<String> rep = new ArrayList<>();
        for (String t : replicated) rep.add(t.toUpperCase(Locale.ROOT));
        for (String t : rep)
            if (by.containsKey(t)) throw new IllegalArgumentException("table " + t + " is both sharded and replicated");
        shardedBy = java.util.Collections.unmodifiableMap(by);
        replicated = List.copyOf(rep);
    }

    /** The sharding column of {@code table}, or null when the table is replicated (or unknown). */
    public String columnOf(String table) {
        return shardedBy.get(table.toUpperCase(Locale.ROOT));
    }

    public boolean isReplicated(String table) {
        return replicated.contains(table.toUpperCase(Locale.ROOT));
    }

    /** Every table the spec names, sharded ones first. */
    public List<String> tables() {
        List<String> all = new ArrayList<>(shardedBy.keySet());
        all.addAll(replicated);
        return all;
    }
}
