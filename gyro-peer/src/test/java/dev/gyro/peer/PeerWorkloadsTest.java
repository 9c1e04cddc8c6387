package dev.gyro.peer;

import dev.gyro.app.Application;
import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.micro.Micro;
import dev.gyro.apps.rubis.Rubis;
import dev.gyro.apps.tpcc.Tpcc;
import dev.gyro.apps.tpcw.Tpcw;
import dev.gyro.cluster.Backend;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import org.junit.jupiter.api.Tag;

/**
 * Every benchmark application runs through the peer on PostgreSQL and MariaDB: its mix for 400 calls over three
 * throwaway servers, then placement, replicas and the application's audit over the union of the shards. Calls
 * of transactions the peer cannot run ({@link Unsupported}) must fail with their reason; nothing else may fail.
 */
@Tag("servers")
class PeerWorkloadsTest {

    private static void runs(Backend backend, String name, Application app, int scale, WorkloadOptions options)
            throws Exception {
        PeerRuns.Run run = PeerRuns.run(PeerRuns.setup(app, backend, name, scale), 4, 400, options);
        assertThat(run.problems()).as(name + " on " + backend + ": checks").isEmpty();
        assertThat(run.committed()).as(name + " on " + backend + ": committed transactions").isPositive();
        assertThat(run.crossShard()).as(name + " on " + backend + ": cross-shard commits").isPositive();
        var unsupported = Unsupported.of(app.name(), backend);
        run.result().byTransaction().forEach((tx, counts) -> {
            if (unsupported.containsKey(tx))
                assertThat(counts.ok()).as(tx + " is listed as unsupported yet ran").isZero();
            else
                assertThat(counts.failed()).as(tx + " failed on " + backend + ": " + run.result().failures()).isZero();
        });
        assertThat(run.result().failures()).allSatisfy(f -> assertThat(f).contains("cannot run"));
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"POSTGRES", "MARIADB"})
    void micro(Backend backend) throws Exception {
        PeerRuns.require(backend);
        runs(backend, "micro", new Micro(), 1, WorkloadOptions.of(Map.of("local", "90", "service-ms", "1")));
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"POSTGRES", "MARIADB"})
    void tpcw(Backend backend) throws Exception {
        PeerRuns.require(backend);
        runs(backend, "tpcw", new Tpcw(new Tpcw.Size(300, 400)), 1, WorkloadOptions.of(Map.of("mix", "shopping")));
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"POSTGRES", "MARIADB"})
    void rubis(Backend backend) throws Exception {
        PeerRuns.require(backend);
        runs(backend, "rubis", new Rubis(new Rubis.Size(300, 200, 100)), 1, WorkloadOptions.of(Map.of("mix", "bidding")));
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"POSTGRES", "MARIADB"})
    void tpcc(Backend backend) throws Exception {
        PeerRuns.require(backend);
        runs(backend, "tpcc", new Tpcc(new Tpcc.Size(500, 20)), 3, WorkloadOptions.of(Map.of("remote-lines", "20",
                "remote-payments", "40")));
    }
}
