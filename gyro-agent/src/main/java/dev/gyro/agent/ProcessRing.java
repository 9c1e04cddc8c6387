package dev.gyro.agent;

import dev.gyro.wire.tls.Certificates;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A ring of instances on this machine for several processes of one application, each beside its instance
 * (docs/decisions/38-attached-processes.md): free loopback ports and fresh certificates, and the agent's options that
 * put one process at its position.
 *
 * @param addresses every instance's host:port, in ring order
 * @param tls       the ring's certificates (mutual TLS)
 */
public record ProcessRing(List<String> addresses, Path tls) {

    public ProcessRing {
        addresses = List.copyOf(addresses);
    }

    /** A ring of {@code n} on free loopback ports, its certificates made in {@code dir/tls} for cluster {@code cluster}. */
    public static ProcessRing create(Path dir, int n, String cluster) throws IOException {
        List<String> addresses = new ArrayList<>();
        for (int port : dev.gyro.servers.FreePorts.take(n)) addresses.add("127.0.0.1:" + port);
        Path tls = dir.resolve("tls").toAbsolutePath();
        Certificates.createCluster(tls, cluster, n, List.of("127.0.0.1", "localhost"));
        return new ProcessRing(addresses, tls);
    }

    /** The agent's options for the process at ring position {@code p}, to append to its others. */
    public String options(int p) {
        return ",position=" + p + ",ring=" + String.join("/", addresses) + ",tls=" + tls;
    }
}
