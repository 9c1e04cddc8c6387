package dev.gyro.bench;

import dev.gyro.app.Application;
import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.micro.Micro;
import dev.gyro.apps.rubis.Rubis;
import dev.gyro.apps.tpcc.Tpcc;
import dev.gyro.apps.tpcw.Tpcw;
import dev.gyro.cluster.Backend;
import dev.gyro.servers.ThrowawayServers;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import org.junit.jupiter.api.Tag;

/**
 * Every benchmark application runs unchanged through Gyro on PostgreSQL or MariaDB (on both when asked): each
 * mix for a short while on three instances, each on a throwaway server the test starts on a free loopback port,
 * then replica convergence and the application's own consistency conditions. Outside CI a missing server skips
 * the test with the reason; with CI=true it fails.
 */
@Tag("servers")
class BackendWorkloadsTest {

    static void require(Backend backend) {
        RequireBackend.require(backend);
    }

    static void run(Backend backend, String name, Application app, int scale, int sessions, WorkloadOptions options)
            throws Exception {
        Path dir = ThrowawayServers.base().resolve("bench-" + backend.label() + "-" + name);
        ClusterBenchmark.Report report = ClusterBenchmark.run((new ClusterBenchmark.Spec(app, dir, 3, scale, 21,
                sessions, Bounded.AT_MOST, options, backend)).bounded(Bounded.CALLS), new ClusterBenchmark.Listener() {});
        Reports.print(report, System.out);
        assertThat(report.problems()).as(name + " on " + backend).isEmpty();
        assertThat(report.run().count("local")).as(name + " local requests on " + backend).isPositive();
        assertThat(report.run().count("global")).as(name + " global requests on " + backend).isPositive();
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"POSTGRES", "MARIADB"})
    void everyApplicationRunsOnTheBackend(Backend backend) throws Exception {
        require(backend);
        // In the suite each application on one of the two (TPC-W and TPC-C on PostgreSQL, RUBiS and the micro-benchmark
        // on MariaDB): the suite's time bound; every one on both with -Dgyro.test.long=true (docs/testing.md).
        boolean all = Boolean.getBoolean("gyro.test.long"), postgres = backend == Backend.POSTGRES;
        if (all || postgres)
            run(backend, "tpcw", new Tpcw(new Tpcw.Size(300, 400)), 1, 6, WorkloadOptions.of(Map.of("mix", "ordering")));
        if (all || !postgres) run(backend, "rubis", new Rubis(new Rubis.Size(300, 200, 100)), 1, 6, WorkloadOptions.NONE);
        if (all || postgres)
            run(backend, "tpcc", new Tpcc(new Tpcc.Size(500, 20)), 3, 6,
                    WorkloadOptions.of(Map.of("remote-lines", "20", "remote-payments", "40")));
        if (all || !postgres)
            run(backend, "micro", new Micro(), 1, 6, WorkloadOptions.of(Map.of("local", "50", "service-ms", "1")));
    }
}
