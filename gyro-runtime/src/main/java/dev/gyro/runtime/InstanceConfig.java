package dev.gyro.runtime;

import dev.gyro.app.Application;
import dev.gyro.app.Classification;
import dev.gyro.protocol.ConveyorBeltConfig;
import dev.gyro.protocol.PartitionMap;

import dev.gyro.runtime.db.Dialect;
import dev.gyro.runtime.hook.LinkDelay;
import dev.gyro.runtime.hook.PeerCalls;
import dev.gyro.runtime.hook.TransactionGate;
import dev.gyro.wire.Transport;
import dev.gyro.wire.Wire;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Configuration of one Gyro instance, validated once when built.
 *
 * @param self              this instance's id: its position in {@code addresses}, the ring order
 * @param addresses         host:port of every instance of the ring, in ring order
 * @param database          this instance's SQLite database file (one file per instance), or null when
 *                          {@code jdbcUrl} names the database
 * @param application       the application whose transactions it runs
 * @param classification    how each transaction is classified and partitioned
 * @param partitionMap      bucket to instance
 * @param maxQueuedGlobals  bound of the global request queue; more are refused as OVERLOADED
 * @param requestThreads    threads that execute local requests concurrently
 * @param maxQueuedRequests bound of the local requests waiting for a request thread; more are refused as OVERLOADED
 * @param tickMillis        protocol timer resolution
 * @param maxRequestBytes   the largest client request taken; a larger one is refused unread
 *                          ({@link #MAX_REQUEST_BYTES} by default)
 * @param jdbcUrl           this instance's database as a JDBC URL ({@code jdbc:postgresql://...},
 *                          {@code jdbc:mariadb://...}, {@code jdbc:sqlite:...}), or null when {@code database} is the
 *                          SQLite file; the URL picks the backend
 * @param hooks             what the process plugs into the instance (defaults: {@link Hooks#DEFAULT})
 * @param network           how it talks and listens, and the cluster it belongs to (default: {@link Network#INSECURE})
 * @param http              host:port of its HTTP endpoint (metrics, status, live view; port 0 for a free one), or
 *                          null for none (docs/decisions/18-watching.md)
 * @param listen            host:port its port listens on when its ring position is a replicated group (one of the
 *                          group's replica addresses, docs/decisions/24-ring-on-groups.md); null: its own ring address
 */
public record InstanceConfig(int self, List<String> addresses, Path database, Application application,
                             Classification classification, PartitionMap partitionMap, int maxQueuedGlobals,
                             int requestThreads, int maxQueuedRequests, long tickMillis, int maxRequestBytes,
                             String jdbcUrl,
                             Hooks hooks, Network network, String http, String listen) {

    /** Default bound of the global request queue. */
    public static final int MAX_QUEUED_GLOBALS = 10_000;
    /** Default number of request threads. */
    public static final int REQUEST_THREADS = 64;
    /** Default bound of the local requests waiting for a request thread. */
    public static final int MAX_QUEUED_REQUESTS = 4_096;
    /** Default protocol timer resolution. */
    public static final long TICK_MILLIS = 10;
    /** Default largest client request (a transaction's name and its arguments), 4 MiB. */
    public static final int MAX_REQUEST_BYTES = 4 * 1024 * 1024;

    /**
     * What the process plugs into an instance; the runtime's defaults do nothing extra.
     *
     * @param gate     every transaction a request runs passes through it ({@link TransactionGate#NONE})
     * @param links    makes the instance's links to its peers ({@link LinkDelay.Factory#NONE}: a LAN)
     * @param clock    monotonic milliseconds for the belt's resend timers
     * @param failStop what the process does once the instance stopped itself ({@link FailStop#KEEP_PROCESS})
     * @param calls    answers the calls of other instances the process serves itself ({@link PeerCalls#NONE})
     */
    public record Hooks(TransactionGate gate, LinkDelay.Factory links, LongSupplier clock, FailStop failStop,
                        PeerCalls calls) {
        public static final Hooks DEFAULT = new Hooks(TransactionGate.NONE, LinkDelay.Factory.NONE,
                () -> System.nanoTime() / 1_000_000, FailStop.KEEP_PROCESS, PeerCalls.NONE);

        public Hooks {
            Objects.requireNonNull(gate, "gate");
            Objects.requireNonNull(links, "links");
            Objects.requireNonNull(clock, "clock");
            Objects.requireNonNull(failStop, "failStop");
            Objects.requireNonNull(calls, "calls");
        }
    }

    /**
     * How the instance talks and listens (docs/decisions/13-secure-by-default.md).
     *
     * @param transport mutual TLS with the cluster's certificates, or plaintext
     * @param bind      the address its port listens on; null for the host of its own ring address (so an instance
     *                  of a ring on 127.0.0.1 is reachable from this machine only)
     * @param clusterId the cluster it belongs to; null to take it from the transport's certificates (plaintext:
     *                  {@link #UNNAMED})
     */
    public record Network(Transport transport, String bind, String clusterId) {
        /** The cluster id of a plaintext cluster that was given none. */
        public static final String UNNAMED = "unnamed";
        public static final Network INSECURE = new Network(Transport.insecure(), null, null);

        public Network {
            Objects.requireNonNull(transport, "transport");
            if (clusterId == null) clusterId = transport.clusterId() != null ? transport.clusterId() : UNNAMED;
            else if (transport.clusterId() != null && !transport.clusterId().equals(clusterId))
                throw new IllegalArgumentException("cluster id " + clusterId + " differs from the certificates' cluster "
                        + transport.clusterId());
        }
    }

    public InstanceConfig {
        addresses = List.copyOf(addresses);
        if (addresses.isEmpty()) throw new IllegalArgumentException("an instance needs the addresses of its ring");
        if (self < 0 || self >= addresses.size())
            throw new IllegalArgumentException("instance id " + self + " is not in the ring of " + addresses.size()
                    + " instances");
        java.util.Map<String, Integer> seen = new java.util.HashMap<>();
        for (int i = 0; i < addresses.size(); i++) {
            for (String replica : Transport.replicaAddresses(addresses.get(i))) {
                parsePort(replica);
                Integer before = seen.put(replica.strip().toLowerCase(java.util.Locale.ROOT), i);
                if (before != null)
                    throw new IllegalArgumentException("the ring names " + replica + " twice (instances " + before
                            + " and " + i + "): every instance needs an address of its own");
            }
        }
        if (listen != null && !Transport.replicaAddresses(addresses.get(self)).contains(listen.strip()))
            throw new IllegalArgumentException("instance " + self + " listens on " + listen + ", which is not one of"
                    + " its group's addresses " + addresses.get(self));
        if (database == null && (jdbcUrl == null || jdbcUrl.isBlank()))
            throw new IllegalArgumentException("no database given (a SQLite file or a JDBC URL)");
        if (database != null && jdbcUrl != null)
            throw new IllegalArgumentException("give the database as a SQLite file or as a JDBC URL, not both");
        if (jdbcUrl != null) Dialect.forTarget(jdbcUrl).jdbcUrl(jdbcUrl); // names a backend Gyro has
        if (application == null) throw new IllegalArgumentException("no application given");
        if (classification == null) classification = application.classification();
        if (partitionMap == null) partitionMap = PartitionMap.uniform(addresses.size());
        if (partitionMap.instances() > addresses.size())
            throw new IllegalArgumentException("the partition map routes to " + partitionMap.instances()
                    + " instances but the ring has " + addresses.size());
        if (requestThreads < 1) throw new IllegalArgumentException("requestThreads must be at least 1");
        if (maxQueuedRequests < 1) throw new IllegalArgumentException("maxQueuedRequests must be at least 1");
        if (tickMillis < 1) throw new IllegalArgumentException("tickMillis must be at least 1");
        if (maxRequestBytes < 1024 || maxRequestBytes > Wire.MAX_MESSAGE_BYTES)
            throw new IllegalArgumentException("maxRequestBytes must be from 1024 to " + Wire.MAX_MESSAGE_BYTES
                    + " bytes, was " + maxRequestBytes);
        if (maxQueuedGlobals < 1) throw new IllegalArgumentException("maxQueuedGlobals must be at least 1");
        if (hooks == null) hooks = Hooks.DEFAULT;
        if (network == null) network = Network.INSECURE;
        if (network.transport().secure()
                && !Transport.instanceIdentity(self).equals(network.transport().identity()))
            throw new IllegalArgumentException("instance " + self + " must present the certificate of "
                    + Transport.instanceIdentity(self) + ", not of " + network.transport().identity());
    }

    public static InstanceConfig of(int self, List<String> addresses, Path database, Application application) {
        return new InstanceConfig(self, addresses, database, application, null, null, MAX_QUEUED_GLOBALS,
                REQUEST_THREADS, MAX_QUEUED_REQUESTS, TICK_MILLIS, MAX_REQUEST_BYTES, null, null, null, null, null);
    }

    /**
     * An instance whose database is {@code jdbcUrlOrFile}: a JDBC URL of any supported backend, or a SQLite file.
     */
    public static InstanceConfig of(int self, List<String> addresses, String jdbcUrlOrFile, Application application) {
        boolean url = jdbcUrlOrFile != null && jdbcUrlOrFile.strip().startsWith("jdbc:");
        return new InstanceConfig(self, addresses, url ? null : Path.of(jdbcUrlOrFile), application, null, null,
                MAX_QUEUED_GLOBALS, REQUEST_THREADS, MAX_QUEUED_REQUESTS, TICK_MILLIS, MAX_REQUEST_BYTES,
                url ? jdbcUrlOrFile.strip() : null, null, null, null, null);
    }

    public InstanceConfig withClassification(Classification c) {
        return new InstanceConfig(self, addresses, database, application, c, partitionMap, maxQueuedGlobals,
                requestThreads, maxQueuedRequests, tickMillis, maxRequestBytes, jdbcUrl, hooks, network, http, listen);
    }

    /** This instance with {@code threads} request threads (local requests running at once). */
    /**
     * With {@code map} as the ring's first partition map: an instance that joined a running ring
     * (docs/decisions/44-ring-changes.md) starts from the map the ring started with, and the moves its database holds.
     */
    public InstanceConfig withPartitionMap(PartitionMap map) {
        return new InstanceConfig(self, addresses, database, application, classification, map, maxQueuedGlobals,
                requestThreads, maxQueuedRequests, tickMillis, maxRequestBytes, jdbcUrl, hooks, network, http, listen);
    }

    public InstanceConfig withRequestThreads(int threads) {
        return new InstanceConfig(self, addresses, database, application, classification, partitionMap,
                maxQueuedGlobals, threads, maxQueuedRequests, tickMillis, maxRequestBytes,
                jdbcUrl, hooks, network, http, listen);
    }

    /** This configuration taking client requests of at most {@code bytes}. */
    public InstanceConfig withMaxRequestBytes(int bytes) {
        return new InstanceConfig(self, addresses, database, application, classification, partitionMap,
                maxQueuedGlobals, requestThreads, maxQueuedRequests, tickMillis, bytes, jdbcUrl, hooks, network, http,
                listen);
    }

    public InstanceConfig withHooks(Hooks h) {
        return new InstanceConfig(self, addresses, database, application, classification, partitionMap,
                maxQueuedGlobals, requestThreads, maxQueuedRequests, tickMillis, maxRequestBytes,
                jdbcUrl, h, network, http, listen);
    }

    /** This instance with {@code n} for its transport, bind address and cluster id. */
    public InstanceConfig withNetwork(Network n) {
        return new InstanceConfig(self, addresses, database, application, classification, partitionMap,
                maxQueuedGlobals, requestThreads, maxQueuedRequests, tickMillis, maxRequestBytes,
                jdbcUrl, hooks, n, http, listen);
    }

    /**
     * This instance serving metrics, its status and the live view over HTTP on {@code hostPort} (port 0: a free one,
     * which the instance logs); null for none.
     */
    public InstanceConfig withHttp(String hostPort) {
        if (hostPort != null) parseHostPort(hostPort, 0);
        return new InstanceConfig(self, addresses, database, application, classification, partitionMap,
                maxQueuedGlobals, requestThreads, maxQueuedRequests, tickMillis, maxRequestBytes,
                jdbcUrl, hooks, network, hostPort, listen);
    }

    /** The address the instance's port listens on. */
    public String bindHost() {
        if (network.bind() != null) return network.bind();
        String a = address();
        String host = a.substring(0, a.lastIndexOf(':'));
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    /**
     * What every instance of one ring must agree on, as one short fingerprint: the members in ring order and the
     * partition map (version and buckets). Peers compare it, with the cluster id, on every message. A replicated
     * group counts by its size, not its replicas' addresses, which change when a member on a lost machine is
     * replaced (docs/decisions/47-new-member.md); its certificate names its position.
     */
    public String ringFingerprint() {
        // The instances the first map routes to: the ring as it started, which instances that join later share
        // (docs/decisions/44-ring-changes.md).
        List<String> members = new java.util.ArrayList<>();
        for (String a : addresses.subList(0, Math.min(addresses.size(), partitionMap.instances()))) {
            int n = Transport.replicaAddresses(a).size();
            members.add(n > 1 ? "group of " + n : a);
        }
        StringBuilder s = new StringBuilder(String.join(",", members)).append('|').append(partitionMap.version());
        for (int b = 0; b < partitionMap.buckets(); b++) s.append(b == 0 ? '|' : ',').append(partitionMap.ownerOfBucket(b));
        try {
            byte[] h = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(s.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(h, 0, 8);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The ring in words, for messages about a disagreement. */
    public String describeRing() {
        return addresses.size() + " instances " + addresses + ", partition map v" + partitionMap.version();
    }

    /** This instance with every transaction passing {@code gate} (benchmarks: an emulated server's capacity). */
    public InstanceConfig withGate(TransactionGate gate) {
        return withHooks(new Hooks(gate, hooks.links(), hooks.clock(), hooks.failStop(), hooks.calls()));
    }

    /** This instance with its links to its peers made by {@code links} (benchmarks: an emulated WAN). */
    public InstanceConfig withLinks(LinkDelay.Factory links) {
        return withHooks(new Hooks(hooks.gate(), links, hooks.clock(), hooks.failStop(), hooks.calls()));
    }

    /** This instance with {@code failStop} told when it stops itself ({@link FailStop#EXIT} for its own process). */
    public InstanceConfig withFailStop(FailStop failStop) {
        return withHooks(new Hooks(hooks.gate(), hooks.links(), hooks.clock(), failStop, hooks.calls()));
    }

    /**
     * This instance with the calls of other instances answered by {@code calls} (an attached application's process,
     * docs/decisions/38-attached-processes.md).
     */
    public InstanceConfig withPeerCalls(PeerCalls calls) {
        return withHooks(new Hooks(hooks.gate(), hooks.links(), hooks.clock(), hooks.failStop(), calls));
    }

    /** What {@link dev.gyro.runtime.db.Database#open} opens: the JDBC URL, or the SQLite file. */
    public String databaseTarget() {
        return jdbcUrl != null ? jdbcUrl : database.toString();
    }

    /** The database for messages and logs, without a password the URL may carry. */
    public String describeDatabase() {
        return databaseTarget().replaceAll("(?i)(password=)[^&;]*", "$1***");
    }

    /**
     * The belt's configuration over {@code links}. A resend timer shorter than its link's round trip would always
     * fire (an acknowledgement cannot come back sooner), so each is stretched by the round trip it waits for: the
     * token's to the next instance, a Want's to the farthest one (the holder may be anywhere).
     */
    public ConveyorBeltConfig beltConfig(LinkDelay links, boolean parallelGlobals) {
        long next = links.oneWay((self + 1) % addresses.size()).multipliedBy(2).toMillis();
        long farthest = 0;
        for (int i = 0; i < addresses.size(); i++)
            if (i != self) farthest = Math.max(farthest, links.oneWay(i).multipliedBy(2).toMillis());
        return new ConveyorBeltConfig(self, addresses.size(), maxQueuedGlobals, TOKEN_RESEND_MILLIS + next,
                WANT_RESEND_MILLIS + farthest, parallelGlobals);
    }

    /** Resend an unacknowledged token after this long (plus the link's round trip). */
    public static final long TOKEN_RESEND_MILLIS = 500;
    /** Repeat a Want after this long (plus the longest round trip). */
    public static final long WANT_RESEND_MILLIS = 200;

    /** The address this instance listens on: its ring address, or its replica's within its group. */
    public String address() {
        return listen != null ? listen.strip() : addresses.get(self);
    }

    /** This configuration listening on {@code hostPort}, one of its ring position's replica addresses. */
    public InstanceConfig withListen(String hostPort) {
        return new InstanceConfig(self, addresses, database, application, classification, partitionMap,
                maxQueuedGlobals, requestThreads, maxQueuedRequests, tickMillis, maxRequestBytes,
                jdbcUrl, hooks, network, http, hostPort);
    }

    public int port() {
        return parsePort(address());
    }

    static int parsePort(String address) {
        return parseHostPort(address, 1);
    }

    /** The port of {@code address} (host:port), at least {@code lowest}; clear error otherwise. */
    static int parseHostPort(String address, int lowest) {
        int colon = address.lastIndexOf(':');
        try {
            if (colon < 1) throw new NumberFormatException();
            int port = Integer.parseInt(address.substring(colon + 1));
            if (port < lowest || port > 65535) throw new NumberFormatException();
            return port;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("address '" + address + "' is not host:port");
        }
    }
}
