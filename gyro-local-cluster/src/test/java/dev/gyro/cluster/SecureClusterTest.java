package dev.gyro.cluster;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.client.GyroClient;
import dev.gyro.protocol.Codec;
import dev.gyro.protocol.Message;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Token;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.GyroInstance;
import dev.gyro.runtime.InstanceConfig;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Transport;
import dev.gyro.wire.Wire;
import dev.gyro.wire.tls.Certificates;
import dev.gyro.wire.tls.TlsFiles;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A cluster that is secure by default (docs/decisions/13-secure-by-default.md): mutual TLS with the cluster's own CA,
 * peer messages only from the ring's instances and tokens only from the ring predecessor, and instances that refuse a
 * peer of another cluster or another ring, and a database of another cluster. An outsider's forged token carrying a
 * state update writes nothing and uses up no gsn.
 */
class SecureClusterTest {

    static final Metadata.Key<String> CLUSTER = Metadata.Key.of("gyro-cluster", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> RING = Metadata.Key.of("gyro-ring", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> FROM = Metadata.Key.of("gyro-from", Metadata.ASCII_STRING_MARSHALLER);

    /** The headers a peer of the ring {@code addresses} sends, claiming to be instance {@code from}. */
    static Metadata headers(String cluster, List<String> addresses, int from) {
        Metadata m = new Metadata();
        m.put(CLUSTER, cluster);
        m.put(RING, InstanceConfig.of(0, addresses, Path.of("unused.db"), new OnlineStore()).ringFingerprint());
        m.put(FROM, Integer.toString(from));
        return m;
    }

    /**
     * Delivers one belt message over {@code transport} with {@code headers} on a stream, as instances send theirs, and
     * the status the instance answered. A refused message (which changes nothing) is sent again in a call of its own,
     * and must be refused alike.
     */
    static Status deliver(String address, Transport transport, Metadata headers, Message message) {
        ManagedChannel channel = transport.channel(address);
        try {
            Channel withHeaders = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
            CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
            Status stream = status(() -> Wire.linkOnce(withHeaders, options, Codec.encodeMessage(message)).get());
            if (stream.isOk()) return stream;
            Status unary = status(() -> ClientCalls.blockingUnaryCall(withHeaders, Wire.DELIVER, options,
                    Codec.encodeMessage(message)));
            assertThat(unary.getCode()).as("in a call: " + unary).isEqualTo(stream.getCode());
            if (unary.getCode() != Status.Code.UNAVAILABLE) // else the transport's words, which vary
                assertThat(unary.getDescription()).as("in a call").isEqualTo(stream.getDescription());
            return stream;
        } finally {
            channel.shutdownNow();
        }
    }

    private static Status status(java.util.concurrent.Callable<?> call) {
        try {
            call.call();
            return Status.OK;
        } catch (Exception e) {
            return Status.fromThrowable(e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e);
        }
    }

    /** The outsider's message: a token from instance 0 carrying an update that inserts a forged item. */
    static Message forgedToken(long gsn) {
        StateUpdate forged = new StateUpdate(gsn, 0, List.of(new RowChange("ITEMS", RowChange.Kind.UPSERT,
                List.of("I_ID", "NAME", "PRICE", "STOCK"), List.of(new Value.Int(424_242),
                new Value.Text("FORGED-BY-OUTSIDER"), new Value.Real(1.0), new Value.Int(1)), List.of("I_ID"))));
        return new Message.TokenPass(0, new Token(1_000_000, List.of(forged)));
    }

    @Test
    void aTlsRingServesItsClientsAndRefusesEveryoneElseAtTheHandshake(@TempDir Path dir) throws Exception {
        TlsFiles tls = Certificates.createCluster(dir.resolve("tls"), "cluster-a", 3, List.of());
        TlsFiles other = Certificates.createCluster(dir.resolve("other"), "cluster-b", 3, List.of());
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 3, 1, 42, n -> {}).withTls(tls).startAll();
             GyroClient client = GyroClient.connect(cluster.addresses(), cluster.clientTransport())) {
            long cart = StoreClusterChecks.cartOwnedBy(client, 1, 1);
            assertThat(client.call("createCart", cart).ok()).isTrue();
            assertThat(client.call("addItem", cart, 3L, 1).ok()).isTrue();
            Reply order = client.call("order", cart);
            assertThat(order.gsn()).as(order.toString()).isEqualTo(1); // the token went round over TLS
            assertThat(cluster.awaitQuiet(60_000)).isTrue();
            for (int i = 0; i < 3; i++) assertThat(cluster.instance(i).appliedGsn()).isEqualTo(1);

            assertThatThrownBy(() -> GyroClient.connect(cluster.addresses()))
                    .as("plaintext").hasMessageContaining("UNAVAILABLE");
            assertThatThrownBy(() -> GyroClient.connect(cluster.addresses(), Transport.mutualTls(other, Certificates.CLIENT)))
                    .as("another cluster's certificate").hasMessageContaining("UNAVAILABLE");
        }
    }

    @Test
    void aForgedTokenWritesNothingAndUsesUpNoGsn(@TempDir Path dir) throws Exception {
        TlsFiles tls = Certificates.createCluster(dir.resolve("tls"), "cluster-a", 3, List.of());
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 3, 1, 42, n -> {}).withTls(tls).startAll();
             GyroClient client = GyroClient.connect(cluster.addresses(), cluster.clientTransport())) {
            String target = cluster.addresses().get(1); // its predecessor is instance 0
            List<String> ring = cluster.addresses();

            Status plaintext = deliver(target, Transport.insecure(), headers("cluster-a", ring, 0), forgedToken(1));
            assertThat(plaintext.getCode()).isEqualTo(Status.Code.UNAVAILABLE); // no handshake without a certificate

            Status asClient = deliver(target, cluster.clientTransport(), headers("cluster-a", ring, 0), forgedToken(1));
            assertThat(asClient.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
            assertThat(asClient.getDescription()).contains("peer messages come only from instances").contains("client");

            Transport asInstance2 = Transport.mutualTls(tls, Transport.instanceIdentity(2));
            Status lying = deliver(target, asInstance2, headers("cluster-a", ring, 0), forgedToken(1));
            assertThat(lying.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
            assertThat(lying.getDescription()).contains("says it is instance 0 but its certificate is instance-2");

            Status notPredecessor = deliver(target, asInstance2, headers("cluster-a", ring, 2),
                    new Message.TokenPass(2, ((Message.TokenPass) forgedToken(1)).token()));
            assertThat(notPredecessor.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
            assertThat(notPredecessor.getDescription()).contains("only instance 0").contains("predecessor");

            for (int i = 0; i < 3; i++)
                assertThat(StoreClusterChecks.count(cluster, i, "SELECT COUNT(*) FROM ITEMS WHERE I_ID = 424242"))
                        .as("forged row on instance " + i).isZero();
            assertThat(cluster.instance(1).stopped()).isFalse();
            // no gsn was used up: the next real global request gets gsn 1, and every instance applies it
            long cart = StoreClusterChecks.cartOwnedBy(client, 0, 1);
            assertThat(client.call("createCart", cart).ok()).isTrue();
            assertThat(client.call("addItem", cart, 3L, 1).ok()).isTrue();
            assertThat(client.call("order", cart).gsn()).isEqualTo(1);
            assertThat(cluster.awaitQuiet(60_000)).isTrue();
            for (int i = 0; i < 3; i++) assertThat(cluster.instance(i).appliedGsn()).isEqualTo(1);
        }
    }

    @Test
    void instancesRefuseMessagesFromAnotherRingOrCluster(@TempDir Path dir) throws Exception {
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 2, 1, 42, n -> {}).startAll();
             GyroClient client = GyroClient.connect(cluster.addresses())) {
            String target = cluster.addresses().get(1);
            List<String> fourInstances = List.of(cluster.addresses().get(0), target, "127.0.0.1:1", "127.0.0.1:2");
            Status ring = deliver(target, Transport.insecure(),
                    headers(InstanceConfig.Network.UNNAMED, fourInstances, 0), new Message.Want(0));
            assertThat(ring.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
            assertThat(ring.getDescription()).contains("ring differs").contains("2 instances")
                    .contains(InstanceConfig.of(0, fourInstances, Path.of("x.db"), new OnlineStore()).ringFingerprint());
            Status cluster2 = deliver(target, Transport.insecure(), headers("another", cluster.addresses(), 0),
                    new Message.Want(0));
            assertThat(cluster2.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
            assertThat(cluster2.getDescription()).contains("cluster id differs").contains("another");
            // the ring itself still works
            long cart = StoreClusterChecks.cartOwnedBy(client, 1, 1);
            assertThat(client.call("createCart", cart).ok()).isTrue();
            assertThat(client.call("addItem", cart, 3L, 1).ok()).isTrue();
            assertThat(client.call("order", cart).ok()).isTrue();
        }
    }

    @Test
    void aRingWithOneAddressTwiceIsRefused() {
        assertThatThrownBy(() -> InstanceConfig.of(0, List.of("127.0.0.1:7000", "127.0.0.1:7001", "127.0.0.1:7000"),
                Path.of("x.db"), new OnlineStore()))
                .hasMessageContaining("names 127.0.0.1:7000 twice (instances 0 and 2)");
    }

    @Test
    void anInstanceRefusesADatabaseOfAnotherCluster(@TempDir Path dir) throws Exception {
        int port = LocalCluster.freePort();
        List<String> ring = List.of("127.0.0.1:" + port);
        InstanceConfig config = InstanceConfig.of(0, ring, dir.resolve("db.sqlite"), new OnlineStore());
        try (GyroInstance first = new GyroInstance(config.withNetwork(
                new InstanceConfig.Network(Transport.insecure(), null, "cluster-a"))).start()) {
            assertThat(first.appliedGsn()).isZero();
        }
        assertThatThrownBy(() -> new GyroInstance(config.withNetwork(
                new InstanceConfig.Network(Transport.insecure(), null, "cluster-b"))).start())
                .hasMessageContaining("belongs to cluster cluster-a, not to cluster cluster-b");
    }

    @Test
    void certificatesNameTheirIdentityAndCluster(@TempDir Path dir) {
        TlsFiles tls = Certificates.createCluster(dir, "c-1", 2, List.of("db0.example"));
        var cert = Certificates.read(tls.certificate("instance-1"));
        assertThat(Certificates.identityOf(cert)).isEqualTo("instance-1");
        assertThat(Certificates.clusterOf(cert)).isEqualTo("c-1");
        assertThat(Transport.mutualTls(tls, "instance-1").clusterId()).isEqualTo("c-1");
        assertThatThrownBy(() -> Transport.mutualTls(tls, "instance-7")).hasMessageContaining("instance-7.crt");
    }
}
