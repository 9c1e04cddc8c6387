package dev.gyro.bench;

import dev.gyro.app.Application;
import dev.gyro.cluster.Backend;
import dev.gyro.emulation.Capacity;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.emulation.wan.Wan;

import java.nio.file.Path;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * A system the harness measures: Gyro, or a baseline, deployed over the same application code
 * and the same kind of database instances. A scenario deploys it fresh for every measured point, drives load
 * through its {@link Target}, then asks it to settle and checks it. The systems of this slice are in
 * {@link Systems}; two-phase commit and ShardingSphere-JDBC slot in as further implementations.
 */
public interface SystemUnderTest {

    /** The name in results and plots: {@code gyro}, {@code centralized}, {@code read-only}. */
    String name();

    /** One sentence for summaries. */
    String describe();

    /**
     * Where and how to deploy a system: the same for every system measured at one point.
     *
     * @param instances how many database instances the scaled-out systems use (a centralized system uses one)
     * @param capacity  the emulated capacity of one database instance; every instance gets its own copy
     * @param wan       the emulated WAN ({@link Wan#OFF}, the default, for none): a system places its instances with
     *                  {@link Wan#place} (a centralized system's one database at the first site, Germany) and its
     *                  clients at the five sites ({@link Target#open}); a system that cannot emulate it refuses a
     *                  setup whose WAN is {@link Wan#emulated()}
     */
    record Setup(Application app, Path dir, int instances, int scale, long seed, Capacity capacity, Backend backend,
                 Wan wan, ServerPool servers) {
        public Setup {
            if (instances < 1) throw new IllegalArgumentException("instances must be at least 1, not " + instances);
            if (wan == null) wan = Wan.OFF;
        }

        /** Servers of its own under {@code dir}, no pool. */
        public Setup(Application app, Path dir, int instances, int scale, long seed, Capacity capacity,
                     Backend backend, Wan wan) {
            this(app, dir, instances, scale, seed, capacity, backend, wan, null);
        }

        /** No WAN emulation. */
        public Setup(Application app, Path dir, int instances, int scale, long seed, Capacity capacity,
                     Backend backend) {
            this(app, dir, instances, scale, seed, capacity, backend, Wan.OFF);
        }

        public Setup withDir(Path d) {
            return new Setup(app, d, instances, scale, seed, capacity, backend, wan, servers);
        }

        /** This setup on an emulated WAN ({@link Wan#paper()}), or on none ({@link Wan#OFF}). */
        public Setup withWan(Wan w) {
            return new Setup(app, dir, instances, scale, seed, capacity, backend, w, servers);
        }

        /**
         * {@code n} databases of the backend holding {@code application}'s initial data, as a cluster not started:
         * SQLite files under {@link #dir()}; server databases on the pool's servers when there is a pool, else on
         * servers of their own under {@link #dir()}, stopped when the cluster closes.
         */
        public LocalCluster createDatabases(Application application, int n, IntConsumer progress) throws Exception {
            if (servers == null || backend.serverKind() == null)
                return LocalCluster.create(backend, dir, application, n, scale, seed, progress);
            return LocalCluster.attach(servers.freshDatabases(backend, n), application, scale, seed, progress);
        }
    }

    /** Deploys the system: creates and loads its databases under the setup's directory and starts what runs in front. */
    Deployment deploy(Setup setup) throws Exception;

    /** A running deployment. */
    interface Deployment extends AutoCloseable {

        Target target();

        /** How many database instances it runs on. */
        int databases();

        /**
         * Waits until everything sent has been applied everywhere (a quiet ring), then runs replica convergence
         * and the application's audit on the databases directly.
         *
         * @return the problems found, in words; empty when the run is valid
         */
        List<String> settleAndCheck() throws Exception;

        /**
         * Where the phases of its global requests and its token's visits are collected, from deployment on (Gyro's
         * instances tell it; {@link PhaseBreakdown.Log#window} takes the measured window's share); null for a system
         * without a token.
         */
        default PhaseBreakdown.Log phases() {
            return null;
        }

        /** Every database instance's emulated server, in instance order ({@code Capacity.PLAIN}: none emulated). */
        List<Capacity> servers();

        /** Transactions every database instance's emulated server served, in instance order. */
        default List<Long> served() {
            return servers().stream().map(Capacity::served).toList();
        }

        @Override
        void close() throws Exception;
    }
}
