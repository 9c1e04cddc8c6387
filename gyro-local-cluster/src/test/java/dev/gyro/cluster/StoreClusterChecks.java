package dev.gyro.cluster;

import dev.gyro.client.GyroClient;
import dev.gyro.protocol.Value;
import dev.gyro.check.ReplicaCheck;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the cluster tests of the online store ask of a running {@link LocalCluster}, on any backend: which cart an
 * instance owns, and what its databases hold, read directly through {@link LocalCluster#connect}, outside Gyro.
 */
final class StoreClusterChecks {

    private StoreClusterChecks() {}

    /** The first cart id from {@code from} on whose partition {@code instance} owns, by the client's routing. */
    static long cartOwnedBy(GyroClient client, int instance, long from) {
        for (long c = from; ; c++)
            if (client.routing().decide("createCart", List.of(new Value.Int(c)), 0).owner() == instance) return c;
    }

    /** The distinct digests of {@code table} over all instances: one when every copy is the same. */
    static Set<String> digests(LocalCluster cluster, String table) throws Exception {
        Set<String> distinct = new HashSet<>();
        for (int i = 0; i < cluster.size(); i++)
            try (Connection c = cluster.connect(i)) {
                ReplicaCheck.TableDigest d = ReplicaCheck.digest(c, table, i);
                distinct.add(d.rows() + "/" + d.sha256());
            }
        return distinct;
    }

    /** The single number {@code sql} reads from instance {@code instance}'s database. */
    static long count(LocalCluster cluster, int instance, String sql) throws Exception {
        try (Connection c = cluster.connect(instance); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
