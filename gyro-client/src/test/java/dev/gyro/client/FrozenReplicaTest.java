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
}
