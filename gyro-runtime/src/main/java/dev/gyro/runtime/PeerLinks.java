package dev.gyro.runtime;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.MoreExecutors;
import dev.gyro.client.Wire;
import dev.gyro.protocol.Codec;
import dev.gyro.protocol.Message;
import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Channels from this instance to the others of its ring, over real sockets. Sending is fire-and-forget: the
 * Conveyor Belt tolerates loss and resends what matters, so a failed send is only logged, and the channel's
 * reconnect backoff is reset so a restarted peer is reached again at the next resend.
 */
final class PeerLinks implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PeerLinks.class);

    private final int self;
    private final ManagedChannel[] channels;

    PeerLinks(int self, List<String> addresses) {
        this.self = self;
        this.channels = new ManagedChannel[addresses.size()];
        for (int i = 0; i < addresses.size(); i++)
            if (i != self) channels[i] = channel(addresses.get(i));
    }

    static ManagedChannel channel(String address) {
        return Grpc.newChannelBuilder(address, InsecureChannelCredentials.create())
                .maxInboundMessageSize(Wire.MAX_MESSAGE_BYTES)
                .build();
    }

    ManagedChannel channel(int instance) {
        return channels[instance];
    }

    void send(int to, Message message) {
        ManagedChannel ch = channels[to];
        byte[] body = Codec.encodeMessage(message);
        var call = ch.newCall(Wire.DELIVER, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS));
        Futures.addCallback(ClientCalls.futureUnaryCall(call, body), new FutureCallback<byte[]>() {
            @Override
            public void onSuccess(byte[] result) {}

            @Override
            public void onFailure(Throwable t) {
                log.debug("instance {}: {} to instance {} not delivered: {}", self,
                        message.getClass().getSimpleName(), to, t.toString());
                ch.resetConnectBackoff();
            }
        }, MoreExecutors.directExecutor());
    }

    @Override
    public void close() {
        for (ManagedChannel ch : channels) if (ch != null) ch.shutdownNow();
    }
}
