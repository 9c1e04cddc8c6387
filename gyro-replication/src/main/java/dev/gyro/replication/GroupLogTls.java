package dev.gyro.replication;

import dev.gyro.wire.Transport;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.security.TlsConf;

/**
 * The TLS of a group's log (docs/decisions/32-group-log-tls.md): its Ratis server's gRPC port, the calls of its leader
 * to its followers, and every client of the group (a leader's own appends go through its server, in process) speak
 * mutual TLS with the same files as the position's instance port (gyro-wire's {@link Transport}): the instance's
 * certificate and key, and the cluster's CA. A peer must present a certificate of that CA naming the position's
 * instance ({@code instance-P}, the identity every replica of the group holds): a client certificate, another
 * position's, or another CA's is refused at the handshake, before any Ratis call is read.
 *
 * <p>A plaintext transport ({@code --insecure}, or an in-JVM group configured without TLS) leaves Ratis on plaintext.
 */
final class GroupLogTls {

    private GroupLogTls() {}

    /** Ratis' parameters for a server of {@code spec}'s group: TLS for all its services, or none. */
    static Parameters parameters(GroupSpec spec) {
        Parameters p = new Parameters();
        GrpcTlsConfig tls = config(spec.transport());
        // One setting for the server, admin and client services (they share the server's one port) and for the
        // server's own clients (the leader's log appender): Ratis falls back to it for each.
        if (tls != null) GrpcConfigKeys.TLS.setConf(p, tls);
        return p;
    }

    /**
     * Mutual TLS as {@code transport}'s identity, trusting only that same identity of its cluster; null for a plaintext
     * transport.
     */
    static GrpcTlsConfig config(Transport transport) {
        if (!transport.secure()) return null;
        return GrpcTlsConfig.newBuilder()
                .setName("gyro group log as " + transport.identity())
                .setPrivateKey(new TlsConf.PrivateKeyConf(transport.keyFile().toFile()))
                .setKeyCertificates(new TlsConf.CertificatesConf(transport.certificateFile().toFile()))
                .setTrustManager(transport.trustManager(transport.identity()))
                .setMutualTls(true)
                .build();
    }
}
