package dev.gyro.cli;

import dev.gyro.app.TransactionCatalog;
import dev.gyro.apps.store.OnlineStore;
import dev.gyro.client.GyroClient;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.runtime.InstanceConfig;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Transport;
import dev.gyro.wire.tls.Certificates;
import dev.gyro.wire.tls.TlsFiles;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Fuzzer} against a real three-instance cluster on SQLite with mutual TLS: thousands of random and mutated
 * requests and peer messages, each answered with an error of a known kind, no instance crashed or hung, no replica
 * changed, and the ring still runs global requests afterwards.
 */
@Tag("slow")
class FuzzTest {

    @Test
    void aLiveClusterSurvivesThousandsOfRandomAndMutatedMessagesUnchanged(@TempDir Path dir) throws Exception {
        TlsFiles tls = Certificates.createCluster(dir.resolve("tls"), "fuzzed", 3, List.of());
        OnlineStore store = new OnlineStore();
        try (LocalCluster cluster = LocalCluster.create(dir, store, 3, 1, 42, n -> {}).withTls(tls).startAll();
             GyroClient client = GyroClient.connect(cluster.addresses(), cluster.clientTransport())) {
            List<String> urls = new ArrayList<>();
            for (int i = 0; i < 3; i++) urls.add(cluster.jdbcUrl(i));
            Fuzzer.Target target = new Fuzzer.Target(cluster.addresses(), 1, cluster.clientTransport(),
                    Transport.mutualTls(tls, Transport.instanceIdentity(2)), "fuzzed",
                    InstanceConfig.of(0, cluster.addresses(), Path.of("unused.db"), store).ringFingerprint(),
                    new TransactionCatalog(store.transactions()), urls);
            List<String> progress = new ArrayList<>();
            Fuzzer.Result result = new Fuzzer(target).run(3_000, Duration.ofMinutes(5), 7, progress::add);

            assertThat(result.messages()).isEqualTo(3_000);
            assertThat(result.crashes()).as(result.summary()).isZero();
            assertThat(result.hangs()).as(result.summary()).isZero();
            assertThat(result.changed()).as(result.summary()).isEmpty();
            assertThat(result.answers()).as(result.summary()).doesNotContainKey(Fuzzer.UNEXPECTED_OK)
                    .containsKeys("request: malformed", "request: unknown transaction", "request: wrong arity",
                            "request: wrong type", "peer: malformed", "peer: refused")
                    .satisfies(kinds -> assertThat(kinds.keySet()).isSubsetOf("peer: accepted", "peer: malformed",
                            "peer: refused", "peer: position told", "request: malformed", "request: unknown transaction",
                            "request: wrong arity", "request: wrong type"));
            assertThat(result.answers().values().stream().mapToLong(Long::longValue).sum()).isEqualTo(3_000);
            assertThat(result.clean()).isTrue();
            assertThat(result.summary()).startsWith("fuzz: 3000 messages in ").contains("0 crashes, 0 hangs")
                    .endsWith("replicas unchanged");

            // the ring still runs: a global request from the fuzzed instance's partition reaches every instance
            long cart = 1;
            while (client.routing().decide("createCart", List.of(new dev.gyro.protocol.Value.Int(cart)), 0).owner() != 1)
                cart++;
            assertThat(client.call("createCart", cart).ok()).isTrue();
            assertThat(client.call("addItem", cart, 3L, 1).ok()).isTrue();
            Reply order = client.call("order", cart);
            assertThat(order.ok()).as(order.toString()).isTrue();
            assertThat(cluster.awaitQuiet(60_000)).isTrue();
            for (int i = 0; i < 3; i++) assertThat(cluster.instance(i).appliedGsn()).isEqualTo(order.gsn());
        }
    }

    @Test
    void theCommandRefusesAFolderWithoutAClusterAndAPointlessCountInOneLine(@TempDir Path dir) {
        java.io.StringWriter err = new java.io.StringWriter();
        picocli.CommandLine cl = Gyro.commandLine();
        cl.setErr(new java.io.PrintWriter(err, true));
        assertThat(cl.execute("fuzz", "--cluster", dir.toString())).isEqualTo(1);
        assertThat(err.toString()).startsWith("gyro fuzz: no cluster in " + dir.toAbsolutePath() + " (no cluster.json)");
        err.getBuffer().setLength(0);
        assertThat(cl.execute("fuzz", "--cluster", dir.toString(), "--count", "0")).isEqualTo(1);
        assertThat(err.toString()).contains("--count and --seconds must be positive");
    }
}
