package dev.gyro.wire;

import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.SettableFuture;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The gRPC methods of a Gyro instance. Bodies are bytes in Gyro's own {@link dev.gyro.protocol.Codec} encoding
 * (or JSON for the descriptive methods), so no code generation step is needed.
 */
public final class Wire {

    private Wire() {}

    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    /** Largest message accepted: a token carries one ring round of state updates. */
    public static final int MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

    public static final String CLIENT_SERVICE = "gyro.Client";
    public static final String PEER_SERVICE = "gyro.Peer";

    /** A request: {@link Request} in, {@link Reply} out. */
    public static final MethodDescriptor<byte[], byte[]> EXECUTE = unary(CLIENT_SERVICE + "/Execute");
    /** Routing information (JSON): partition map, instance addresses, each transaction's partitioning. */
    public static final MethodDescriptor<byte[], byte[]> DESCRIBE = unary(CLIENT_SERVICE + "/Describe");
    /** The instance's state (JSON): last gsn, role, queue length, counters. */
    public static final MethodDescriptor<byte[], byte[]> STATUS = unary(CLIENT_SERVICE + "/Status");
    /** One protocol {@link dev.gyro.protocol.Message} between instances; the answer is empty. */
    public static final MethodDescriptor<byte[], byte[]> DELIVER = unary(PEER_SERVICE + "/Deliver");
    /**
     * The belt's messages from one instance to another, in the order sent, over one long-lived stream per link: each
     * {@link dev.gyro.protocol.Message} in, an empty acknowledgement out for each one accepted. A refused or
     * malformed message ends the stream with the status {@link #DELIVER} would have answered.
     */
    public static final MethodDescriptor<byte[], byte[]> LINK = method(PEER_SERVICE + "/Link",
            MethodDescriptor.MethodType.BIDI_STREAMING);
    /**
     * Where the token stands at the answering instance (its last received hop, the highest hop its successor recorded,
     * its last gsn), asked by an instance at start to check that its database is the ring's; the body is empty.
     */
    public static final MethodDescriptor<byte[], byte[]> POSITION = unary(PEER_SERVICE + "/Position");
    /**
     * A call from one instance to another that the process hosting the instance answers itself (an attached
     * application's call another process's instance owns, docs/decisions/38-attached-processes.md): bytes in, bytes out.
     */
    public static final MethodDescriptor<byte[], byte[]> CALL = unary(PEER_SERVICE + "/Call");

    /**
     * Sends one message on a {@link #LINK} stream of its own and closes it: the future completes with the
     * acknowledgement, or fails with the status the message was refused with. For tools and tests that speak to one
     * instance as a peer would; an instance keeps its streams open.
     */
    public static ListenableFuture<byte[]> linkOnce(Channel channel, CallOptions options, byte[] body) {
        SettableFuture<byte[]> answer = SettableFuture.create();
        StreamObserver<byte[]> out = ClientCalls.asyncBidiStreamingCall(
                channel.newCall(LINK, options), new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] ack) {
                        answer.set(ack);
                    }

                    @Override
                    public void onError(Throwable t) {
                        answer.setException(t);
                    }

                    @Override
                    public void onCompleted() {
                        answer.setException(Status.UNAVAILABLE
                                .withDescription("the stream ended without an answer").asRuntimeException());
                    }
                });
        out.onNext(body);
        out.onCompleted();
        return answer;
    }

    /** A plaintext channel to the instance at {@code address} (host:port); {@link Transport#channel} in general. */
    public static ManagedChannel channel(String address) {
        return Transport.insecure().channel(address);
    }

    private static MethodDescriptor<byte[], byte[]> unary(String name) {
        return method(name, MethodDescriptor.MethodType.UNARY);
    }

    private static MethodDescriptor<byte[], byte[]> method(String name, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(type)
                .setFullMethodName(name)
                .setRequestMarshaller(BYTES)
                .setResponseMarshaller(BYTES)
                .build();
    }

}
