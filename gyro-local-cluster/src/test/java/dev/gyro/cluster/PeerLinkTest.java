package dev.gyro.cluster;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.client.GyroClient;
import dev.gyro.protocol.Codec;
import dev.gyro.protocol.Message;
import dev.gyro.runtime.InstanceConfig;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Wire;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stream an instance keeps to each peer for the belt's messages ({@code Wire.LINK},
 * docs/decisions/28-peer-streams.md): what a peer sends on it is acknowledged in order; a malformed message ends that
 * stream only; and a peer that takes messages but never acknowledges them is reported unreachable, as one that misses a
 * call's deadline was.
 */
@Tag("slow")
class PeerLinkTest {

    @Test
    void aMalformedMessageEndsItsStreamAndTheNextStreamIsServed(@TempDir Path dir) throws Exception {
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 2, 1, 42, n -> {}).startAll();
             GyroClient client = GyroClient.connect(cluster.addresses())) {
            ManagedChannel raw = Wire.channel(cluster.addresses().get(1));
            try {
                Channel ch = ClientInterceptors.intercept(raw, MetadataUtils.newAttachHeadersInterceptor(
                        headersOf(cluster.addresses(), 0)));
                Answers first = new Answers();
                StreamObserver<byte[]> out = ClientCalls.asyncBidiStreamingCall(ch.newCall(Wire.LINK, CallOptions.DEFAULT),
                        first);
                out.onNext(Codec.encodeMessage(new Message.Want(0)));
                out.onNext(Codec.encodeMessage(new Message.Want(0)));
                assertThat(first.acks.poll(60, TimeUnit.SECONDS)).as("first acknowledgement").isEmpty();
                assertThat(first.acks.poll(60, TimeUnit.SECONDS)).as("second acknowledgement").isEmpty();
                out.onNext("not a belt message".getBytes(StandardCharsets.UTF_8));
                out.onNext(Codec.encodeMessage(new Message.Want(0))); // after the refused one: dropped with its stream
                Status ended = first.ended.get(60, TimeUnit.SECONDS);
                assertThat(ended.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                assertThat(first.acks).isEmpty();

                byte[] ack = Wire.linkOnce(ch, CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS),
                        Codec.encodeMessage(new Message.Want(0))).get();
                assertThat(ack).isEmpty();
            } finally {
                raw.shutdownNow();
            }
            // the ring, whose instances talk over their own streams, still runs global requests
            long cart = StoreClusterChecks.cartOwnedBy(client, 1, 1);
            assertThat(client.call("createCart", cart).ok()).isTrue();
            assertThat(client.call("addItem", cart, 3L, 1).ok()).isTrue();
            Reply order = client.call("order", cart);
            assertThat(order.ok()).as(order.toString()).isTrue();
            assertThat(cluster.awaitQuiet(60_000)).isTrue();
            assertThat(cluster.instance(0).appliedGsn()).isEqualTo(order.gsn());
        }
    }

    @Test
    void aPeerThatNeverAcknowledgesIsReportedUnreachable(@TempDir Path dir) throws Exception {
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 2, 1, 42, n -> {})) {
            // Instance 1's address is taken by a peer that accepts every stream and never answers on it.
            AtomicInteger received = new AtomicInteger();
            InetSocketAddress at = hostPort(cluster.addresses().get(1));
            Server silent = NettyServerBuilder.forAddress(at)
                    .addService(ServerServiceDefinition.builder(Wire.PEER_SERVICE)
                            .addMethod(Wire.LINK, ServerCalls.asyncBidiStreamingCall(out -> new StreamObserver<byte[]>() {
                                @Override
                                public void onNext(byte[] body) {
                                    received.incrementAndGet();
                                }

                                @Override
                                public void onError(Throwable t) {}

                                @Override
                                public void onCompleted() {}
                            }))
                            .build())
                    .build().start();
            cluster.start(0); // holds the token first: its global request commits, and its update goes ahead to 1
            try (GyroClient client = GyroClient.connect(cluster.addresses().subList(0, 1))) {
                long cart = StoreClusterChecks.cartOwnedBy(client, 0, 1);
                assertThat(client.call("createCart", cart).ok()).isTrue();
                assertThat(client.call("addItem", cart, 3L, 1).ok()).isTrue();
                assertThat(client.call("order", cart).gsn()).isEqualTo(1);
                Await.until("a belt message sent to the silent peer", () -> received.get() > 0);
                Await.until("instance 1 reported unreachable", () -> new String(cluster.instance(0).statusJson(),
                        StandardCharsets.UTF_8).contains("DEADLINE_EXCEEDED"));
                String status = new String(cluster.instance(0).statusJson(), StandardCharsets.UTF_8);
                assertThat(status).contains("\"ringBroken\":true").contains("no acknowledgement within");
            } finally {
                silent.shutdownNow();
            }
        }
    }

    private static InetSocketAddress hostPort(String address) {
        int colon = address.lastIndexOf(':');
        return new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
    }

    /** The headers instance {@code from} of this ring sends with its belt messages. */
    private static Metadata headersOf(List<String> ring, int from) {
        return SecureClusterTest.headers(InstanceConfig.Network.UNNAMED, ring, from);
    }

    /** What one stream answered: its acknowledgements, and how it ended. */
    private static final class Answers implements StreamObserver<byte[]> {
        final LinkedBlockingQueue<byte[]> acks = new LinkedBlockingQueue<>();
        final CompletableFuture<Status> ended = new CompletableFuture<>();

        @Override
        public void onNext(byte[] ack) {
            acks.add(ack);
        }

        @Override
        public void onError(Throwable t) {
            ended.complete(Status.fromThrowable(t));
        }

        @Override
        public void onCompleted() {
            ended.complete(Status.OK);
        }
    }
}
