package dev.gyro.wire;

import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import io.grpc.NameResolverRegistry;
import io.grpc.Status;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The addresses of a replicated group as one gRPC target (docs/decisions/24-ring-on-groups.md):
 * {@code gyro-group:///A+B+C} resolves to the group's replica addresses in order, and the channel's default policy,
 * pick-first, connects to the first one that accepts a connection. Only a group's leader listens on its address, so the
 * channel finds the leader by itself, and again after a failover, when its connection to the old leader breaks.
 */
final class GroupResolver extends NameResolverProvider {

    static final String SCHEME = "gyro-group";
    private static final GroupResolver PROVIDER = new GroupResolver();

    static {
        NameResolverRegistry.getDefaultRegistry().register(PROVIDER);
    }

    private GroupResolver() {}

    /** The gRPC target of the group at {@code replicas}; registers the resolver on first use. */
    static String target(List<String> replicas) {
        return SCHEME + ":///" + String.join(Transport.REPLICA_SEPARATOR, replicas);
    }

    @Override
    protected boolean isAvailable() {
        return true;
    }

    @Override
    protected int priority() {
        return 5;
    }

    @Override
    public String getDefaultScheme() {
        return SCHEME;
    }

    @Override
    public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
        return List.of(InetSocketAddress.class);
    }

    @Override
    public NameResolver newNameResolver(URI target, NameResolver.Args args) {
        if (!SCHEME.equals(target.getScheme())) return null;
        String path = target.getPath() == null ? "" : target.getPath();
        List<String> replicas = Transport.replicaAddresses(path.startsWith("/") ? path.substring(1) : path);
        return new NameResolver() {
            @Override
            public String getServiceAuthority() {
                return replicas.get(0);
            }

            @Override
            public void start(Listener2 listener) {
                List<EquivalentAddressGroup> groups = new ArrayList<>();
                try {
                    for (String r : replicas) {
                        int colon = r.lastIndexOf(':');
                        String host = r.substring(0, colon);
                        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
                        groups.add(new EquivalentAddressGroup(new InetSocketAddress(host,
                                Integer.parseInt(r.substring(colon + 1)))));
                    }
                } catch (RuntimeException e) {
                    listener.onError(Status.INVALID_ARGUMENT.withDescription("bad group address " + replicas + ": " + e));
                    return;
                }
                listener.onResult(ResolutionResult.newBuilder().setAddressesOrError(
                        io.grpc.StatusOr.fromValue(groups)).build());
            }

            @Override
            public void shutdown() {}
        };
    }
}
