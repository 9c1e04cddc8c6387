package dev.gyro.client;

import dev.gyro.wire.Transport;
import dev.gyro.wire.Wire;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A replicated group whose first replica is frozen with its port open (docs/decisions/39-frozen-replica.md): the
 * kernel accepts the connection and nobody answers, as with a SIGSTOPped process. The group's channel reaches the
 * replica that listens and answers instead of waiting on the frozen one; before, the call waited out its whole
 * deadline.
 */
class FrozenReplicaTest {

    @Test
    void aGroupChannelReachesItsLeaderPastAFrozenReplica() throws Exception {
        try (ServerSocket frozen = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) { // never accepts
            Server leader = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                    .addService(ServerServiceDefinition.builder(Wire.CLIENT_SERVICE)
                            .addMethod(Wire.STATUS, ServerCalls.asyncUnaryCall((body, out) -> {
                                out.onNext(new byte[] {1});
                                out.onCompleted();
                            })).build())
                    .build().start();
            ManagedChannel group = Transport.insecure().channel("127.0.0.1:" + frozen.getLocalPort() + "+127.0.0.1:"
                    + leader.getPort());
            try {
                byte[] answer = ClientCalls.blockingUnaryCall(group, Wire.STATUS,
                        CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS).withWaitForReady(), new byte[0]);
                assertThat(answer).containsExactly(1);
            } finally {
                group.shutdownNow();
                leader.shutdownNow();
            }
        }
    }

    /**
     * The leader a group's channel is connected to freezes with its connection open (here: a proxy in front of it that
     * stops passing bytes and accepting, as a stopped process's kernel would), and another replica becomes the leader:
     * the call is given up once the frozen one leaves its Status unanswered too, and the next call reaches the new
     * leader, in seconds instead of the call's whole deadline.
     */
    @Test
    void aCallToALeaderThatFreezesIsGivenUpAndTheNextReachesTheNewLeader() throws Exception {
        Server old = answering((byte) 1, 0);
        int next = freePort();
        try (Freezable proxy = new Freezable(old.getPort())) {
            ManagedChannel group = Transport.insecure().channel("127.0.0.1:" + proxy.port() + "+127.0.0.1:" + next);
            Server leader = null;
            try {
                CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS).withWaitForReady();
                assertThat(GyroClient.watched(group, options, new byte[0])).containsExactly(1);

                proxy.freeze();
                leader = answering((byte) 2, next);
                long start = System.nanoTime();
                byte[] first = GyroClient.watched(group, options, new byte[0]);
                byte[] then = first != null ? first : GyroClient.watched(group, options, new byte[0]);
                long millis = (System.nanoTime() - start) / 1_000_000;
                System.out.println("answered by the new leader after " + millis + " ms (given up first: "
                        + (first == null) + ")");
                assertThat(first).as("the call to the frozen leader is given up").isNull();
                assertThat(then).containsExactly(2);
                assertThat(millis).as("well within the call's 30 s deadline").isLessThan(10_000);
            } finally {
                group.shutdownNow();
                if (leader != null) leader.shutdownNow();
                old.shutdownNow();
            }
        }
    }

    /** A server on {@code port} (0: any) whose Execute and Status answer {@code answer}. */
    static Server answering(byte answer, int port) throws java.io.IOException {
        return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
                .addService(ServerServiceDefinition.builder(Wire.CLIENT_SERVICE)
                        .addMethod(Wire.EXECUTE, ServerCalls.asyncUnaryCall((body, out) -> {
                            out.onNext(new byte[] {answer});
                            out.onCompleted();
                        }))
                        .addMethod(Wire.STATUS, ServerCalls.asyncUnaryCall((body, out) -> {
                            out.onNext(new byte[] {answer});
                            out.onCompleted();
                        })).build())
                .build().start();
    }

    static int freePort() throws java.io.IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** A TCP proxy to a local port that can freeze: it then passes no byte more and accepts no connection. */
    static final class Freezable implements AutoCloseable {
        private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final java.util.concurrent.CountDownLatch frozen = new java.util.concurrent.CountDownLatch(1);
        private final java.util.concurrent.CountDownLatch thawed = new java.util.concurrent.CountDownLatch(1);
        private final java.util.List<java.net.Socket> open = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "freezable-proxy");
            t.setDaemon(true);
            return t;
        });

        Freezable(int target) throws java.io.IOException {
            threads.execute(() -> {
                try {
                    while (frozen.getCount() > 0) {
                        java.net.Socket in = socket.accept();
                        if (frozen.getCount() == 0) break; // accepted as it froze: left unanswered
                        java.net.Socket out = new java.net.Socket(InetAddress.getLoopbackAddress(), target);
                        open.add(in);
                        open.add(out);
                        threads.execute(() -> pump(in, out));
                        threads.execute(() -> pump(out, in));
                    }
                    thawed.await();
                } catch (Exception closed) {
                    // closed
                }
            });
        }

        int port() {
            return socket.getLocalPort();
        }

        /** From now on: no byte passes, no connection is taken off the kernel's backlog. */
        void freeze() {
            frozen.countDown();
        }

        private void pump(java.net.Socket from, java.net.Socket to) {
            byte[] buffer = new byte[8192];
            try {
                for (int n; (n = from.getInputStream().read(buffer)) >= 0; ) {
                    if (frozen.getCount() == 0) thawed.await(); // frozen: what was read is never passed on
                    to.getOutputStream().write(buffer, 0, n);
                    to.getOutputStream().flush();
                }
            } catch (Exception closed) {
                // closed
            }
        }

        @Override
        public void close() throws java.io.IOException {
            thawed.countDown();
            threads.shutdownNow();
            for (java.net.Socket s : open) s.close();
            socket.close();
        }
    }
}
