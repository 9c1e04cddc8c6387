package dev.gyro.replication;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.runtime.InstanceConfig;
import dev.gyro.runtime.LeaderWarmUp;
import dev.gyro.wire.Transport;
import dev.gyro.wire.tls.Certificates;
import dev.gyro.wire.tls.TlsFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A follower's warm-up of its instance's serving path (docs/decisions/41-failover-on-a-loaded-machine.md) runs to its
 * end, one call over the instance's own transport included, with mutual TLS and in plaintext, and leaves no port open.
 */
class LeaderWarmUpTest {

    @TempDir
    Path dir;

    private InstanceConfig config(Transport transport) {
        return InstanceConfig.of(0, List.of("127.0.0.1:1", "127.0.0.1:2"), dir.resolve("unused.db").toString(),
                        new OnlineStore())
                .withNetwork(new InstanceConfig.Network(transport, "127.0.0.1", transport.secure() ? transport.clusterId()
                        : InstanceConfig.Network.UNNAMED));
    }

    @Test
    void makesOneCallOverTheInstancesOwnMutualTls() {
        TlsFiles files = Certificates.createCluster(dir.resolve("tls"), "warm-up", 2, List.of());
        Transport tls = Transport.mutualTls(files, Transport.instanceIdentity(0));
        assertThat(LeaderWarmUp.run(config(tls))).isTrue();
    }

    @Test
    void makesOneCallInPlaintext() {
        assertThat(LeaderWarmUp.run(config(Transport.insecure()))).isTrue();
    }
}
