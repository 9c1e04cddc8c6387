package dev.gyro.bench.twopc;

import dev.gyro.app.Application;
import dev.gyro.app.Call;
import dev.gyro.app.Outcome;
import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.micro.Micro;
import dev.gyro.apps.rubis.Rubis;
import dev.gyro.apps.tpcc.Tpcc;
import dev.gyro.apps.tpcw.Tpcw;
import dev.gyro.bench.SystemUnderTest;
import dev.gyro.bench.Systems;
import dev.gyro.bench.RequireBackend;
import dev.gyro.bench.Target;
import dev.gyro.bench.WorkloadRunner;
import dev.gyro.cluster.Backend;
import dev.gyro.emulation.Capacity;
import dev.gyro.servers.ThrowawayServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The 2pc baseline on real PostgreSQL and MariaDB servers: every benchmark application's workload runs through the
 * router unchanged and leaves valid shards (placement, replicas, the application's audit over the union, no
 * prepared transaction left behind); a call across shards commits on both or on neither.
 */
@Tag("servers")
class TwoPhaseCommitSystemTest {

    @TempDir
    Path tmp;

    static void require(Backend backend) {
        RequireBackend.require(backend);
    }

    private static SystemUnderTest.Setup setup(Application app, Backend backend, String name, int scale) {
        return new SystemUnderTest.Setup(app, ThrowawayServers.base().resolve("2pc-" + backend.label() + "-" + name),
                3, scale, 21, Capacity.PLAIN, backend);
    }

    private static void run(Backend backend, String name, Application app, int scale, WorkloadOptions options)
            throws Exception {
        SystemUnderTest system = Systems.byName("2pc");
        try (SystemUnderTest.Deployment d = system.deploy(setup(app, backend, name, scale))) {
            TwoPhaseCommitSystem.TwoPcTarget t = (TwoPhaseCommitSystem.TwoPcTarget) d.target();
            // Runs of 200 calls until a call has spanned shards (an event, not a time), at most 20, each with a seed
            // of its own.
            WorkloadRunner.Result r;
            int window = 0;
            do {
                r = WorkloadRunner.run(app.workload(scale, options), d.target(),
                        WorkloadRunner.Settings.calls(4, 200, Duration.ofSeconds(30), 21 + window), (a, b, c) -> {});
                assertThat(r.failures()).as(name + " on " + backend).isEmpty();
            } while (t.twoPhase.sum() == 0 && ++window < 20);
            assertThat(d.settleAndCheck()).as(name + " on " + backend).isEmpty();
            // progress over the whole run: a window of seconds can be all lock waits on a loaded machine
            assertThat(t.committed.sum()).as(name + " on " + backend + ": committed calls").isPositive();
            System.out.printf("2pc %s on %s: %d calls, %d committed across shards with 2PC, %d retries%n", name,
                    backend, r.completed(), t.twoPhase.sum(), t.retries.sum());
            assertThat(t.twoPhase.sum()).as(name + ": some calls span shards").isPositive();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"POSTGRES", "MARIADB"})
    void everyApplicationRunsThroughTheRouter(Backend backend) throws Exception {
        require(backend);
        run(backend, "micro", new Micro(), 1, WorkloadOptions.of(Map.of("local", "50", "service-ms", "0")));
        run(backend, "tpcw", new Tpcw(new Tpcw.Size(300, 400)), 1, WorkloadOptions.NONE);
        run(backend, "rubis", new Rubis(new Rubis.Size(300, 200, 100)), 1, WorkloadOptions.NONE);
        run(backend, "tpcc", new Tpcc(new Tpcc.Size(500, 20)), 3,
                WorkloadOptions.of(Map.of("remote-lines", "20", "remote-payments", "40")));
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"POSTGRES", "MARIADB"})
    void aCallAcrossShardsCommitsEverywhereOrNowhere(Backend backend) throws Exception {
        require(backend);
        Micro app = new Micro();
        try (SystemUnderTest.Deployment d = Systems.byName("2pc").deploy(setup(app, backend, "atomic", 1))) {
            Target.Channel ch = d.target().open();
            long before = sharedTotal(d, 0);
            // globalOp writes its partition's rows on the partition's shard and the shared rows on every shard
            Outcome ok = ch.execute(Call.of("globalOp", 7L, 1, 0)).outcome();
            assertThat(ok.status()).as(ok.message()).isEqualTo(Outcome.Status.OK);
            for (int i = 0; i < 3; i++) assertThat(sharedTotal(d, i)).as("shard " + i).isEqualTo(before + 2);

            // A transaction that wrote on every shard, then failed: nothing of it stays anywhere.
            TwoPhaseCommitSystem.TwoPcTarget t = (TwoPhaseCommitSystem.TwoPcTarget) d.target();
            DistributedTransaction tx = t.transaction(0);
            try (var ps = t.connection(tx).prepareStatement(
                    "UPDATE MICRO_SHARED SET MS_VALUE = MS_VALUE + 100 WHERE MS_KEY = ?")) {
                ps.setInt(1, 1);
                assertThat(ps.executeUpdate()).isEqualTo(1);
            }
            assertThat(tx.touched()).isEqualTo(3);
            tx.rollback();
            for (int i = 0; i < 3; i++) assertThat(sharedTotal(d, i)).as("shard " + i).isEqualTo(before + 2);
            assertThat(d.settleAndCheck()).isEmpty();
        }
    }

    @Test
    void sqliteIsRefusedWithTheReason() {
        assertThatThrownBy(() -> Systems.byName("2pc").deploy(new SystemUnderTest.Setup(new Micro(), tmp, 3, 1, 1,
                Capacity.PLAIN, Backend.SQLITE)))
                .hasMessageContaining("SQLite has no prepared transactions").hasMessageContaining("--backend postgres");
    }

    private static long sharedTotal(SystemUnderTest.Deployment d, int shard) throws Exception {
        var t = ((TwoPhaseCommitSystem.TwoPcTarget) d.target());
        try (Connection c = t.dbs.connect(shard); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT SUM(MS_VALUE) FROM MICRO_SHARED")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
