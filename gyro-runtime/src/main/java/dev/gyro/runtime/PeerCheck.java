package dev.gyro.runtime;

import dev.gyro.protocol.Message;
import dev.gyro.wire.Transport;
import dev.gyro.wire.Wire;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;

/**
 * Who may say what to this instance (docs/decisions/13-secure-by-default.md). Every peer message carries the sender's
 * cluster id, ring fingerprint ({@link InstanceConfig#ringFingerprint}) and instance id in its headers; a mismatch with
 * this instance's own is refused, naming the key and what each side has, and logged on both sides. With mutual TLS the
 * sender is also who its certificate says: peer messages only from instances' certificates, each message's sender
 * the certificate's instance, and a token (which carries state updates) only from this instance's ring predecessor.
 * All of this happens before the message reaches the belt, so a refused message changes nothing.
 */
final class PeerCheck implements ServerInterceptor {

    private static final Logger log = LoggerFactory.getLogger(PeerCheck.class);

    static final Metadata.Key<String> CLUSTER = Metadata.Key.of("gyro-cluster", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> RING = Metadata.Key.of("gyro-ring", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> FROM = Metadata.Key.of("gyro-from", Metadata.ASCII_STRING_MARSHALLER);
    /** The identity of the certificate the caller presented (null on plaintext), for the call's handler. */
    static final Context.Key<String> CALLER = Context.key("gyro-caller");

    private final int self;
    private final java.util.function.Supplier<dev.gyro.protocol.Ring> members;
    private final String clusterId;
    private final String ring;
    private final String ringWords;
    private final boolean secure;

    PeerCheck(InstanceConfig config) {
        this(config, () -> dev.gyro.protocol.Ring.initial(config.addresses().size()));
    }

    /** @param ring the ring's membership in force here (docs/decisions/44-ring-changes.md) */
    PeerCheck(InstanceConfig config, java.util.function.Supplier<dev.gyro.protocol.Ring> ring) {
        this.self = config.self();
        this.members = ring;
        this.clusterId = config.network().clusterId();
        this.ring = config.ringFingerprint();
        this.ringWords = config.describeRing();
        this.secure = config.network().transport().secure();
    }

    /** The headers this instance's peer messages carry. */
    Metadata headers() {
        Metadata m = new Metadata();
        m.put(CLUSTER, clusterId);
        m.put(RING, ring);
        m.put(FROM, Integer.toString(self));
        return m;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                      ServerCallHandler<Q, R> next) {
        // Client requests pass untouched (the TLS handshake already admitted them): nothing extra on their path.
        if (!Wire.PEER_SERVICE.equals(call.getMethodDescriptor().getServiceName())) return next.startCall(call, headers);
        String caller = Transport.peerIdentity(call.getAttributes());
        String refusal = refusal(caller, headers);
        if (refusal != null) {
            log.warn("instance {} refused a peer message: {}", self, refusal);
            call.close(Status.FAILED_PRECONDITION.withDescription("instance " + self + " refused: " + refusal),
                    new Metadata());
            return new ServerCall.Listener<>() {};
        }
        return Contexts.interceptCall(Context.current().withValue(CALLER, caller), call, headers, next);
    }

    /** Why a peer call with these headers from {@code caller} is refused, or null. */
    String refusal(String caller, Metadata headers) {
        if (secure && Transport.instanceOf(caller) < 0)
            return "peer messages come only from instances of the ring, and this connection's certificate is " + caller;
        String theirCluster = headers.get(CLUSTER), theirRing = headers.get(RING), from = headers.get(FROM);
        if (!clusterId.equals(theirCluster))
            return "cluster id differs: this instance is of cluster " + clusterId + ", the sender (instance " + from
                    + ") of cluster " + theirCluster;
        if (!ring.equals(theirRing))
            return "ring differs: this instance (" + self + ") has ring " + ring + " (" + ringWords + "), the sender"
                    + " (instance " + from + ") has ring " + theirRing + ": start every instance with the same --ring"
                    + " and partition map";
        if (secure && !Objects.equals(from, Integer.toString(Transport.instanceOf(caller))))
            return "the sender says it is instance " + from + " but its certificate is " + caller;
        return null;
    }

    /**
     * Why this instance refuses {@code m} from {@code caller}, or null: with TLS, the message's sender must be the
     * certificate's instance, and a token may only come from the ring predecessor.
     */
    String refusal(Message m, String caller) {
        if (!secure) return null;
        int certified = Transport.instanceOf(caller);
        if (m.from() != certified)
            return m.getClass().getSimpleName() + " says it is from instance " + m.from() + " but came with the"
                    + " certificate of " + caller;
        dev.gyro.protocol.Ring r = members.get();
        int predecessor = r.contains(self) ? r.predecessor(self) : -1;
        // An instance that is no member here yet may be one the token's own ring change adds: the belt judges it by the
        // ring the token carries (decision 44). A member must be the predecessor.
        if (m instanceof Message.TokenPass && certified != predecessor && r.contains(certified))
            return "a token (with its state updates) came from " + caller + ", and only instance " + predecessor
                    + ", this instance's ring predecessor, may pass it";
        return null;
    }
}
