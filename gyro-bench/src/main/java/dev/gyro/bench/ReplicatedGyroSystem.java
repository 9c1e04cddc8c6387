package dev.gyro.bench;

import dev.gyro.app.Application;
import dev.gyro.cluster.Backend;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.emulation.Capacity;
import dev.gyro.emulation.wan.Wan;
import dev.gyro.replication.GroupTimeouts;
import dev.gyro.replication.ReplicatedRing;
import dev.gyro.runtime.InstanceConfig;

import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Gyro with every instance a replicated group of R replicas (docs/decisions/24-ring-on-groups.md), named
 * {@code gyro-rR}: the same application, classification and emulated servers as {@code gyro}, each position's leader
 * passing through its position's emulated server. LAN only. Checked as {@code gyro} is, on one replica of each group,
 * once every replica holds its group's whole log.
 */
record ReplicatedGyroSystem(int replicas) implements SystemUnderTest {

    static final String PREFIX = "gyro-r";

    public String name() {
        return PREFIX + replicas;
    }

    public String describe() {
        return "Gyro with every instance a replicated group of " + replicas + " replicas (Apache Ratis), each with its"
                + " own database";
    }

    @Override
    public Deployment deploy(Setup setup) throws Exception {
        if (setup.wan() != Wan.OFF) throw new IllegalArgumentException(name() + " runs on a LAN only");
        Application app = setup.app();
        int n = setup.instances();
        LocalCluster dbs = setup.createDatabases(app, n * replicas, k -> {});
        try {
            List<List<String>> databases = new ArrayList<>();
            for (int p = 0; p < n; p++) {
                List<String> group = new ArrayList<>();
                for (int r = 0; r < replicas; r++)
                    group.add(dbs.backend() == Backend.SQLITE ? dbs.databaseFile(p * replicas + r).toString()
                            : dbs.jdbcUrl(p * replicas + r));
                databases.add(group);
            }
            List<Capacity> servers = new ArrayList<>();
            for (int p = 0; p < n; p++) servers.add(setup.capacity().copy()); // each position is its own small server
            ReplicatedRing ring = ReplicatedRing.start(databases, setup.dir().resolve("group-logs-" + n), "bench",
                    GroupTimeouts.DEFAULT, (p, addresses) -> InstanceConfig.of(p, addresses, databases.get(p).get(0), app)
                            .withGate(servers.get(p)));
            if (!ring.awaitLeaders(Duration.ofSeconds(120))) {
                ring.close();
                throw new IllegalStateException("not every group elected a leader within 120 s");
            }
            PhaseBreakdown.Log phases = new PhaseBreakdown.Log();
            for (int p = 0; p < n; p++) ring.instance(p).observePhases(phases);
            GyroTarget target = new GyroTarget(ring.addresses());
            return new Deployment() {
                public PhaseBreakdown.Log phases() {
                    return phases;
                }

                public Target target() {
                    return target;
                }

                public int databases() {
                    return n * replicas;
                }

                public List<String> settleAndCheck() throws Exception {
                    List<String> problems = new ArrayList<>();
                    if (!ring.awaitQuiet(Duration.ofSeconds(60))) problems.add("the ring did not become quiet within 60 s");
                    if (!ring.awaitReplicasCaughtUp(Duration.ofSeconds(60)))
                        problems.add("the replicas did not catch up with their groups' logs within 60 s");
                    List<Connection> conns = new ArrayList<>();
                    try {
                        for (List<String> group : databases)
                            conns.add(DriverManager.getConnection(dev.gyro.runtime.db.Dialect.forTarget(group.get(0))
                                    .jdbcUrl(group.get(0))));
                        problems.addAll(Checks.run(app, app.audit(setup.scale(), setup.seed()), conns,
                                ring.instance(0).routing().map()).violations());
                    } finally {
                        for (Connection c : conns) c.close();
                    }
                    return problems;
                }

                public List<Capacity> servers() {
                    return List.copyOf(servers);
                }

                public void close() {
                    try {
                        target.close();
                    } finally {
                        try {
                            ring.close();
                        } finally {
                            dbs.close();
                        }
                    }
                }
            };
        } catch (Exception | Error e) {
            dbs.close();
            throw e;
        }
    }
}
