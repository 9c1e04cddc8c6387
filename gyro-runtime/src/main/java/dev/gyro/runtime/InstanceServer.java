package dev.gyro.runtime;

import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.wire.Wire;
import dev.gyro.protocol.BeltEvent;
import dev.gyro.protocol.Codec;
import dev.gyro.protocol.MalformedMessageException;
import dev.gyro.protocol.Message;
import dev.gyro.runtime.db.DeadlinePassedException;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.Status;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The instance's gRPC endpoint: the client service (Execute, Describe, Status) and the peer service (Link, the belt's
 * messages on one stream per peer; Deliver, one message a call; Position). Each service has its own executor, and no
 * handler blocks: a request is handed to the router, which queues it, parks it or refuses it; a peer message is handed
 * to the belt loop. So no client request, however many wait, can delay a token delivery.
 */
final class InstanceServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(InstanceServer.class);

    private final int self;
    private final int maxRequestBytes;
    private final PeerCheck check;
    private final ExecutorService clientCalls;
    private final ExecutorService peerCalls;
    private final Server server;
    /** Anyone who reaches the port can send these at will: a line every 10 s at most (a fuzz run of 100k, 30k lines). */
    private final WarnLimit malformedWarnings = WarnLimit.everyTenSeconds(), refusedWarnings = WarnLimit.everyTenSeconds();
    private static final byte[] ACK = new byte[0];

    /**
     * @param deliver  hands a decoded peer message to the belt loop
     * @param position where the token stands here ({@link RingAgreement.Position}), for a peer that starts
     */
    InstanceServer(InstanceConfig config, PeerCheck check, RequestRouter router,
                   Consumer<BeltEvent> deliver, Supplier<byte[]> describe, Supplier<byte[]> status,
                   Supplier<byte[]> position) {
        this.self = config.self();
        this.maxRequestBytes = config.maxRequestBytes();
        this.check = check;
        this.clientCalls = Threads.fixed(self, "client", 2);
        this.peerCalls = Threads.single(self, "peer");
        // Listens on the bind address only (by default the host of its own ring address), with the transport's
        // credentials: with mutual TLS a connection without a certificate of the cluster's CA fails at the handshake.
        this.server = NettyServerBuilder.forAddress(new InetSocketAddress(config.bindHost(), config.port()),
                        config.network().transport().serverCredentials())
                .executor(clientCalls)
                .callExecutor(new ServerCallExecutorSupplier() {
                    @Override
                    public <ReqT, RespT> Executor getExecutor(ServerCall<ReqT, RespT> call, Metadata metadata) {
                        return Wire.PEER_SERVICE.equals(call.getMethodDescriptor().getServiceName()) ? peerCalls : null;
                    }
                })
                .maxInboundMessageSize(Wire.MAX_MESSAGE_BYTES)
                .addService(ServerInterceptors.intercept(ServerServiceDefinition.builder(Wire.CLIENT_SERVICE)
                        .addMethod(Wire.EXECUTE, ServerCalls.asyncUnaryCall((body, out) -> execute(router, body, out)))
                        .addMethod(Wire.DESCRIBE, ServerCalls.asyncUnaryCall((body, out) -> respond(out, describe.get())))
                        .addMethod(Wire.STATUS, ServerCalls.asyncUnaryCall((body, out) -> respond(out, status.get())))
                        .build(), check))
                .addService(ServerInterceptors.intercept(ServerServiceDefinition.builder(Wire.PEER_SERVICE)
                        .addMethod(Wire.DELIVER, ServerCalls.asyncUnaryCall((body, out) -> deliverOne(deliver, body, out)))
                        .addMethod(Wire.LINK, ServerCalls.asyncBidiStreamingCall(out -> new LinkIn(deliver, out)))
                        .addMethod(Wire.POSITION, ServerCalls.asyncUnaryCall((body, out) -> respond(out, position.get())))
                        .addMethod(Wire.CALL, ServerCalls.asyncUnaryCall((body, out) -> answer(config, body, out)))
                        .build(), check))
                .build();
    }

    InstanceServer start() throws IOException {
        server.start();
        return this;
    }

    private void execute(RequestRouter router, byte[] body, StreamObserver<byte[]> out) {
        Request request;
        if (body.length > maxRequestBytes) {
            respond(out, Reply.error(Reply.Status.BAD_REQUEST, "a request of " + body.length + " bytes is refused:"
                    + " instance " + self + " takes requests of at most " + maxRequestBytes + " bytes", self).encode());
            return;
        }
        try {
            request = Request.decode(body);
        } catch (MalformedMessageException e) {
            respond(out, Reply.error(Reply.Status.BAD_REQUEST, "malformed request: " + e.getMessage(), self).encode());
            return;
        }
        // The client's deadline travels with the call: its request is answered before it, and a local one is not
        // committed after it (docs/decisions/37-request-ids.md).
        io.grpc.Deadline deadline = io.grpc.Context.current().getDeadline();
        long answerBy = deadline == null ? DeadlinePassedException.NONE
                : RequestRouter.answerBy(System.nanoTime(), deadline.timeRemaining(TimeUnit.NANOSECONDS));
        router.handle(request, answerBy, reply -> respond(out, reply.encode()));
    }

    /** A call of another instance that this instance's process answers ({@link Wire#CALL}). */
    private void answer(InstanceConfig config, byte[] body, StreamObserver<byte[]> out) {
        String caller = PeerCheck.CALLER.get();
        int from = caller != null ? dev.gyro.wire.Transport.instanceOf(caller) : -1;
        try {
            config.hooks().calls().answer(from, body, answer -> respond(out, answer));
        } catch (RuntimeException e) {
            out.onError(Status.UNIMPLEMENTED.withDescription("instance " + self + ": " + e.getMessage())
                    .asRuntimeException());
        }
    }

    private void deliverOne(Consumer<BeltEvent> loop, byte[] body, StreamObserver<byte[]> out) {
        Status refused = deliver(loop, body);
        if (refused != null) out.onError(refused.asRuntimeException());
        else respond(out, ACK);
    }

    /**
     * One peer's stream of belt messages ({@link Wire#LINK}): each is handled as {@link Wire#DELIVER} handles one, in
     * the order sent (the peer service's executor is a single thread), and acknowledged. The first refused or
     * malformed message ends the stream with its status; what the peer sent after it is dropped, as a lost message
     * would be (the belt resends what matters, paper Section V).
     */
    private final class LinkIn implements StreamObserver<byte[]> {
        private final Consumer<BeltEvent> loop;
        private final StreamObserver<byte[]> out;
        private boolean ended;

        LinkIn(Consumer<BeltEvent> loop, StreamObserver<byte[]> out) {
            this.loop = loop;
            this.out = out;
        }

        @Override
        public void onNext(byte[] body) {
            if (ended) return;
            Status refused = deliver(loop, body);
            try {
                if (refused == null) {
                    out.onNext(ACK);
                } else {
                    ended = true;
                    out.onError(refused.asRuntimeException());
                }
            } catch (RuntimeException e) {
                ended = true;
                log.debug("acknowledgement not delivered: {}", e.toString()); // the peer went away
            }
        }

        @Override
        public void onError(Throwable t) {
            ended = true; // the peer closed its side (stopping, or it gave up on an unacknowledged message)
        }

        @Override
        public void onCompleted() {
            if (ended) return;
            ended = true;
            try {
                out.onCompleted();
            } catch (RuntimeException e) {
                log.debug("stream not closed: {}", e.toString());
            }
        }
    }

    /** Decodes and checks a peer message and hands it to the belt loop; the status it is refused with, or null. */
    private Status deliver(Consumer<BeltEvent> loop, byte[] body) {
        Message m;
        try {
            m = Codec.decodeMessage(body);
        } catch (MalformedMessageException e) {
            long unsaid = malformedWarnings.occurred();
            if (unsaid >= 0)
                log.warn("instance {} rejected a malformed message: {}{}", self, e.getMessage(), WarnLimit.suffix(unsaid));
            return Status.INVALID_ARGUMENT.withDescription(e.getMessage());
        }
        String refusal = check.refusal(m, PeerCheck.CALLER.get());
        if (refusal != null) {
            long unsaid = refusedWarnings.occurred();
            if (unsaid >= 0) log.warn("instance {} refused a message: {}{}", self, refusal, WarnLimit.suffix(unsaid));
            return Status.PERMISSION_DENIED.withDescription("instance " + self + " refused: " + refusal);
        }
        loop.accept(new BeltEvent.MessageReceived(m));
        return null;
    }

    private static void respond(StreamObserver<byte[]> out, byte[] body) {
        try {
            out.onNext(body);
            out.onCompleted();
        } catch (RuntimeException e) {
            log.debug("reply not delivered: {}", e.toString()); // the client went away
        }
    }

    @Override
    public void close() {
        server.shutdownNow();
        try {
            server.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        clientCalls.shutdownNow();
        peerCalls.shutdownNow();
    }
}
