package dev.gyro.peer;

import dev.gyro.bench.SystemUnderTest;
import dev.gyro.bench.Target;
import dev.gyro.bench.sharded.ShardedDatabases;
import dev.gyro.cluster.Backend;
import dev.gyro.emulation.Capacity;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The peer baseline of the benchmark harness: what a Java team would pick to scale the same application out over
 * the same database instances without Gyro, Apache ShardingSphere-JDBC 5.3.2 with XA transactions (Atomikos). The
 * data is sharded as the application's {@link dev.gyro.app.Sharding} says ({@link ShardedDatabases}); every call
 * runs as one serializable XA transaction through ShardingSphere, which routes each statement to the shards that
 * hold its rows and commits with two-phase commit when it touched more than one ({@link PeerDataSource},
 * {@link PeerTarget}). Found by {@code Systems.byName("peer")} through {@link java.util.ServiceLoader}.
 *
 * <p>Capacity emulation: every instance gets its own copy of the setup's {@link Capacity}; a transaction is
 * charged on each instance it sends SQL to ({@link ShardCharges}).
 *
 * <p>Runs on PostgreSQL and MariaDB only: SQLite has no XA interface.
 */
public final class ShardingSphereSystem implements SystemUnderTest {

    private static final Logger log = LoggerFactory.getLogger(ShardingSphereSystem.class);

    static final String NO_XA_ON_SQLITE = "the peer (ShardingSphere-JDBC with XA transactions) cannot run on sqlite: "
            + "SQLite has no XA (two-phase commit) interface; run it on postgres or mariadb";

    /**
     * Connections per instance, and so also transactions in flight at once: a transaction holds one connection on
     * each instance it touches until it commits, so with more transactions than connections, two of them could each
     * hold one shard's last connection and wait for the other's. Further clients wait for a turn, as requests wait
     * for a worker thread in an application server.
     */
    static final int IN_FLIGHT = 64;

    @Override
    public String name() {
        return "peer";
    }

    @Override
    public String describe() {
        return "Apache ShardingSphere-JDBC 5.3.2 over the sharded instances, every call one serializable XA "
                + "transaction (Atomikos two-phase commit across shards)";
    }

    @Override
    public Deployment deploy(Setup setup) throws Exception {
        if (setup.backend() == Backend.SQLITE) throw new IllegalArgumentException(NO_XA_ON_SQLITE);
        if (setup.wan().emulated())
            throw new UnsupportedOperationException("the ShardingSphere peer runs on a LAN only, as the paper measures "
                    + "two-phase commit (Section VII-C): it does not emulate WAN delays");
        setup.app().sharding(); // an application without a sharding spec fails here, before any server starts
        ShardedDatabases dbs = ShardedDatabases.create(setup, n -> log.debug("peer: {} of {} databases loaded", n,
                setup.instances()));
        try {
            PeerDataSource ds = PeerDataSource.open(dbs, IN_FLIGHT, setup.dir().resolve("atomikos"));
            Map<String, Capacity> servers = new LinkedHashMap<>();
            for (String name : ds.dataSourceNames()) servers.put(name, setup.capacity().copy());
            PeerTarget target = new PeerTarget(setup.app(), ds.dataSource(), dbs.backend(), servers, IN_FLIGHT);
            return new PeerDeployment(dbs, ds, target, servers);
        } catch (Exception | Error e) {
            dbs.close();
            throw e;
        }
    }

    private record PeerDeployment(ShardedDatabases dbs, PeerDataSource ds, PeerTarget peerTarget,
                                  Map<String, Capacity> byName) implements Deployment {
        public Target target() {
            return peerTarget;
        }

        public int databases() {
            return dbs.size();
        }

        /** Nothing to settle: an XA transaction is applied on all its shards when its commit returns. */
        public List<String> settleAndCheck() throws Exception {
            return dbs.check();
        }

        public List<Capacity> servers() {
            return List.copyOf(byName.values());
        }

        public void close() {
            try {
                peerTarget.close();
                ds.close();
            } finally {
                dbs.close();
            }
        }
    }
}
