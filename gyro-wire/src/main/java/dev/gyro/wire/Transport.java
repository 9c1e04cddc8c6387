package dev.gyro.wire;

import dev.gyro.wire.tls.Certificates;
import dev.gyro.wire.tls.TlsFiles;
import io.grpc.Attributes;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettySslContextChannelCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettySslContextServerCredentials;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;

import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;

/**
 * How an instance or a client talks to instances: mutual TLS with the cluster's certificates (the default of every
 * command, docs/decisions/13-secure-by-default.md), or plaintext when asked for. With TLS, a connection whose peer has
 * no certificate signed by the cluster's CA fails at the handshake, before any message reaches the belt or the
 * database; the certificate's identity ({@code instance-I} or {@code client}) then says who sent each message.
 */
public final class Transport {

    private static final Transport INSECURE = new Transport(null, null, null);

    static {
        // A replicated group's channel tries its replicas in turn (GroupResolver), and gRPC's original pick-first waits
        // for the first one's connection for as long as it hangs: a replica frozen with its port open (a stopped
        // process, a long pause) accepts the TCP connection and never answers, and the group's listening leader was
        // never tried (docs/decisions/39-frozen-replica.md). Its newer pick-first tries the next replica after 250 ms
        // without an answer (happy eyeballs). gRPC reads these switches when its first channel is made; a value set
        // by the user is kept.
        if (System.getenv("GRPC_EXPERIMENTAL_ENABLE_NEW_PICK_FIRST") == null)
            System.getProperties().putIfAbsent("GRPC_EXPERIMENTAL_ENABLE_NEW_PICK_FIRST", "true");
        if (System.getenv("GRPC_PF_USE_HAPPY_EYEBALLS") == null)
            System.getProperties().putIfAbsent("GRPC_PF_USE_HAPPY_EYEBALLS", "true");
    }

    private final TlsFiles files;
    private final String identity;
    private final String clusterId;
    private volatile ChannelCredentials channelCredentials; // built on first use (TLS only)
    private volatile ServerCredentials serverCredentials;

    private Transport(TlsFiles files, String identity, String clusterId) {
        this.files = files;
        this.identity = identity;
        this.clusterId = clusterId;
    }

    /** Plaintext, no authentication: for tests and for clusters run with {@code --insecure}. */
    public static Transport insecure() {
        return INSECURE;
    }

    /**
     * Mutual TLS as {@code identity} ({@code instance-I} or {@code client}) with the certificates in {@code files}.
     *
     * @throws IllegalArgumentException when a file is missing or the certificate is not the cluster's
     */
    public static Transport mutualTls(TlsFiles files, String identity) {
        files.require(identity);
        X509Certificate own = Certificates.read(files.certificate(identity));
        String cluster = Certificates.clusterOf(own);
        if (cluster == null || !identity.equals(Certificates.identityOf(own)))
            throw new IllegalArgumentException(files.certificate(identity) + " is not a Gyro certificate of " + identity
                    + " (its subject is " + own.getSubjectX500Principal() + ")");
        return new Transport(files, identity, cluster);
    }

    /** The certificate identity of instance {@code id} of a ring. */
    public static String instanceIdentity(int id) {
        return Certificates.instanceIdentity(id);
    }

    /** The instance id an identity names, or -1 when it is no instance's ({@code client}, or null). */
    public static int instanceOf(String identity) {
        if (identity == null || !identity.startsWith("instance-")) return -1;
        try {
            return Integer.parseInt(identity.substring("instance-".length()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    public boolean secure() {
        return files != null;
    }

    /** This side's identity in its certificate, or null without TLS. */
    public String identity() {
        return identity;
    }

    /** The cluster the certificates belong to, or null without TLS. */
    public String clusterId() {
        return clusterId;
    }

    /** This side's certificate file ({@code NAME.crt}, PEM), or null without TLS. */
    public java.nio.file.Path certificateFile() {
        return secure() ? files.certificate(identity) : null;
    }

    /** This side's private key file ({@code NAME.key}, PKCS#8 PEM), or null without TLS. */
    public java.nio.file.Path keyFile() {
        return secure() ? files.key(identity) : null;
    }

    /**
     * For a port that speaks another protocol than Gyro's gRPC services (the group log's Ratis,
     * docs/decisions/32-group-log-tls.md): a trust manager that accepts only certificates the cluster's CA signed whose
     * identity is {@code peer} of this cluster, as a client checking a server and as a server checking a client.
     *
     * @throws IllegalStateException without TLS
     */
    public javax.net.ssl.X509ExtendedTrustManager trustManager(String peer) {
        if (!secure()) throw new IllegalStateException("a plaintext transport trusts no certificates");
        return dev.gyro.wire.tls.IdentityTrustManager.of(Certificates.read(files.ca()), peer, clusterId);
    }

    /** Between the replica addresses of a ring position that is a replicated group: {@code A+B+C}. */
    public static final String REPLICA_SEPARATOR = "+";

    /**
     * The replica addresses of one ring position's address: itself for a single instance, each of {@code A+B+C} for a
     * replicated group (docs/decisions/24-ring-on-groups.md).
     */
    public static java.util.List<String> replicaAddresses(String address) {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (String a : address.split(java.util.regex.Pattern.quote(REPLICA_SEPARATOR), -1)) {
            if (a.isBlank()) throw new IllegalArgumentException("address '" + address + "' names an empty replica");
            out.add(a.strip());
        }
        return java.util.List.copyOf(out);
    }

    /**
     * A channel to the instance at {@code address} (host:port); for a replicated group ({@code A+B+C}), to whichever
     * of its replicas leads it (only the leader listens), found again after a failover.
     */
    public ManagedChannel channel(String address) {
        java.util.List<String> replicas = replicaAddresses(address);
        if (replicas.size() > 1)
            return Grpc.newChannelBuilder(GroupResolver.target(replicas), channelCredentials())
                    .maxInboundMessageSize(Wire.MAX_MESSAGE_BYTES)
                    .build();
        return Grpc.newChannelBuilder(address, channelCredentials())
                .maxInboundMessageSize(Wire.MAX_MESSAGE_BYTES)
                .build();
    }

    /**
     * What a channel of this transport presents and accepts: with TLS, this identity's certificate, and only servers
     * with a certificate of the cluster's CA. Built once: a TLS context per channel cost a new leader's instance some
     * 100 ms per peer on a loaded machine (docs/decisions/41-failover-on-a-loaded-machine.md).
     */
    public ChannelCredentials channelCredentials() {
        if (!secure()) return InsecureChannelCredentials.create();
        ChannelCredentials c = channelCredentials;
        if (c == null) {
            try {
                c = NettySslContextChannelCredentials.create(GrpcSslContexts.forClient()
                        .keyManager(files.certificate(identity).toFile(), files.key(identity).toFile())
                        .trustManager(files.ca().toFile())
                        .build());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the TLS files in " + files.dir(), e);
            }
            channelCredentials = c; // racing builders build equal contexts
        }
        return c;
    }

    /** What a server of this transport accepts: with TLS, only peers with a certificate of the cluster's CA. Built once. */
    public ServerCredentials serverCredentials() {
        if (!secure()) return InsecureServerCredentials.create();
        ServerCredentials c = serverCredentials;
        if (c == null) {
            try {
                c = NettySslContextServerCredentials.create(GrpcSslContexts
                        .forServer(files.certificate(identity).toFile(), files.key(identity).toFile())
                        .trustManager(files.ca().toFile())
                        .clientAuth(ClientAuth.REQUIRE)
                        .build());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the TLS files in " + files.dir(), e);
            }
            serverCredentials = c;
        }
        return c;
    }

    /**
     * The identity in the certificate the other side of a call presented, or null on a plaintext connection.
     *
     * @param attributes the call's transport attributes ({@code ServerCall.getAttributes()})
     */
    public static String peerIdentity(Attributes attributes) {
        SSLSession session = attributes == null ? null : attributes.get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
        if (session == null) return null;
        try {
            Certificate[] chain = session.getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate x ? Certificates.identityOf(x) : null;
        } catch (SSLPeerUnverifiedException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return secure() ? "mutual TLS as " + identity + " of cluster " + clusterId : "plaintext (insecure)";
    }
}
