package dev.gyro.runtime;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.MoreExecutors;
import dev.gyro.client.Wire;
import dev.gyro.protocol.Codec;
import dev.gyro.protocol.Message;
import dev.gyro.runtime.wan.LinkDelay;
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
 *
 * <p>Every message to a peer, and every reply from one, passes through {@link #delay()}: at once on a LAN, after the
 * link's one-way delay under WAN emulation.
 */
final class PeerLinks implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PeerLinks.class);

    private final int self;
    private final ManagedChannel[] channels;
    private final LinkDelay delay;

    PeerLinks(int self, List<String> addresses, LinkDelay delay) {
        this.self = self;
        this.delay = delay;
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

    /** What the links cost: {@link LinkDelay#NONE}, or the emulated WAN's one-way delays. */
    LinkDelay delay() {
        return delay;
    }

    void send(int to, Message message) {
        byte[] body = Codec.encodeMessage(message); // encoded now: the message as it was when sent
        delay.send(to, () -> transmit(to, message, body));
    }

    private void transmit(int to, Message message, byte[] body) {
        ManagedChannel ch = channels[to];
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
        delay.close(); // after the channels: what was under way fails now instead of arriving late
    }
}
