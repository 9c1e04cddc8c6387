package dev.gyro.bench;

import dev.gyro.app.Application;
import dev.gyro.app.Audit;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.check.ReplicaCheck;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The checks that make a run worth believing, done on the instances' databases directly once the ring is quiet:
 * replica convergence (every table written by global requests is equal on every instance) and the application's
 * own consistency conditions ({@link Audit}).
 */
public final class Checks {

    /**
     * @param replicas   per replicated table, its digest on every instance
     * @param conditions the audit's conditions, as stated
     * @param violations everything that does not hold, in words; empty when all hold
     */
    public record Result(List<List<ReplicaCheck.TableDigest>> replicas, List<String> conditions,
                         List<String> violations) {
        public boolean ok() {
            return violations.isEmpty();
        }
    }

    private Checks() {}

    public static Result run(Application app, Audit audit, List<Connection> instances, PartitionMap map)
            throws SQLException {
        List<String> violations = new ArrayList<>();
        List<List<ReplicaCheck.TableDigest>> replicas = new ArrayList<>();
        for (String table : app.replicatedTables()) {
            List<ReplicaCheck.TableDigest> digests = new ArrayList<>();
            for (int i = 0; i < instances.size(); i++) digests.add(ReplicaCheck.digest(instances.get(i), table, i));
            replicas.add(digests);
            ReplicaCheck.TableDigest first = digests.get(0);
            for (ReplicaCheck.TableDigest d : digests)
                if (d.rows() != first.rows() || !d.sha256().equals(first.sha256()))
                    violations.add("replicated table " + table + " differs: instance " + first.instance() + " has "
                            + first.rows() + " rows (" + first.sha256().substring(0, 12) + "), instance "
                            + d.instance() + " has " + d.rows() + " rows (" + d.sha256().substring(0, 12) + ")");
        }
        violations.addAll(audit.check(instances, map));
        return new Result(replicas, audit.conditions(), List.copyOf(violations));
    }
}
