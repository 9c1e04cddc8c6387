package dev.gyro.cli;

import dev.gyro.app.Application;
import dev.gyro.app.Classification;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.runtime.GyroInstance;
import dev.gyro.runtime.FailStop;
import dev.gyro.runtime.InstanceConfig;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.wire.Transport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** One Gyro instance as its own process, on its own machine if you like. */
@Command(name = "instance", mixinStandardHelpOptions = true,
        description = "Run one Gyro instance of a ring until interrupted.")
final class InstanceCommand implements Callable<Integer> {

    @Option(names = "--id", required = true, description = "this instance's position in the ring (0-based)")
    int id;

    @Option(names = "--ring", required = true, split = ",",
            description = "host:port of every instance, in ring order, comma-separated; an instance that is a replicated"
                    + " group is the host:port of each of its replicas joined by '+' (A+B+C)")
    List<String> ring;

    @Option(names = "--replica", paramLabel = "R", description = "run replica R (0-based) of instance --id's replicated"
            + " group: its --ring entry lists the group's replicas (A+B+C), --group-log their log addresses; the replica"
            + " serves on its own address of the two while it leads its group")
    Integer replica;

    @Option(names = "--group-log", paramLabel = "A+B+C", description = "with --replica: host:port of each replica's"
            + " group log (Apache Ratis) server, in replica order, joined by '+'")
    String groupLog;

    @Option(names = "--log-dir", paramLabel = "DIR", description = "with --replica: where this replica keeps its group"
            + " log (default: DB.group-log beside a SQLite --db; required with --jdbc-url)")
    Path logDir;

    @Option(names = "--election-ms", paramLabel = "MIN-MAX", defaultValue = "500-1000", description = "with --replica:"
            + " how long a follower waits without hearing its leader before it stands for election, drawn between MIN"
            + " and MAX ms (default: ${DEFAULT-VALUE})")
    String election;

    @Option(names = "--commit-timeout-ms", paramLabel = "MS", defaultValue = "5000", description = "with --replica: how"
            + " long a write waits for its group to commit it before it is answered UNAVAILABLE (default: ${DEFAULT-VALUE})")
    long commitTimeoutMs;

    @Option(names = "--db", description = "this instance's SQLite database file")
    Path db;

    @Option(names = "--jdbc-url", description = "this instance's database as a JDBC URL instead of --db, on a"
            + " PostgreSQL or MariaDB server of its own (jdbc:postgresql://HOST:PORT/DB?user=..., jdbc:mariadb://...)")
    String jdbcUrl;

    @Option(names = "--app", defaultValue = "store", description = "the application (default: ${DEFAULT-VALUE})")
    String app;

    @picocli.CommandLine.Mixin
    Apps apps = new Apps();

    @Option(names = "--classification", description = "classification file (default: the application's own)")
    Path classification;

    @Option(names = "--load", description = "load the application's initial data at this scale if the database is new")
    Integer loadScale;

    @Option(names = "--seed", defaultValue = "42", description = "seed of the initial data (same on every instance)")
    long seed;

    @picocli.CommandLine.Mixin
    TransportOptions security = new TransportOptions();

    @Option(names = "--bind", paramLabel = "ADDRESS", description = "the address to listen on (default: the host of"
            + " this instance's own --ring address; 0.0.0.0 for every interface)")
    String bind;

    @Option(names = "--cluster-id", paramLabel = "ID", description = "the cluster's id with --insecure (with TLS it is"
            + " in the certificates): every instance of a ring must have the same, and its database is stamped with it")
    String clusterId;

    @Option(names = "--max-request-bytes", paramLabel = "BYTES", defaultValue = "" + InstanceConfig.MAX_REQUEST_BYTES,
            description = "the largest client request taken (a transaction's name and its arguments); a larger one is"
                    + " refused unread with BAD_REQUEST (default: ${DEFAULT-VALUE})")
    int maxRequestBytes;

    @Option(names = "--http", paramLabel = "ADDRESS:PORT", defaultValue = "127.0.0.1:0",
            description = "where to serve /metrics (Prometheus text), /status.json and the live view /; port 0 for a"
                    + " free one (default: ${DEFAULT-VALUE}, loopback only), 'none' for no HTTP endpoint")
    String http;

    @Option(names = "--join", paramLabel = "HOST:PORT", description = "join a running ring as a new instance serving on"
            + " HOST:PORT (docs/operations.md, \"Growing, shrinking and rebalancing\"): --ring is the ring as it started"
            + " (the members' own --ring), --id the ring's next id, --db/--jdbc-url a new, empty database, made a copy of"
            + " --copy-from's; started again with the same options, the instance resumes as the member it became")
    String join;

    @Option(names = "--copy-from", paramLabel = "FILE|URL", description = "with --join: the database of a member of the"
            + " ring (its SQLite file, or its JDBC URL on the same DBMS), copied once the member applied the join; with"
            + " --new-member: the database of a live replica of the group, copied first")
    String copyFrom;

    @Option(names = "--new-member", description = "with --replica: a new member in the place of a replica whose machine"
            + " is lost, on the addresses --ring and --group-log give that place now (docs/decisions/47-new-member.md):"
            + " its new database is made a copy of --copy-from's, the ring is asked to reach the group there, and the"
            + " group to make it a member; started again with the same options, it resumes as the member it became")
    boolean newMember;

    @Option(names = "--rebuild", description = "with --replica: this replica's database was lost or fell behind its"
            + " group's log: it is replaced by a copy of --copy-from's (a live replica of the group) before the replica"
            + " starts, on its own addresses, with its own group log (docs/decisions/45-database-as-snapshot.md); give it"
            + " once, not at every start")
    boolean rebuild;

    @Option(names = "--server-capacity", paramLabel = "WORKERSxMS", description = "emulate a small database server:"
            + " at most WORKERS transactions at once, each held MS ms (benchmarks and tests of a loaded cluster;"
            + " default: none)")
    String serverCapacity;

    @Override
    public Integer call() throws Exception {
        if ((db == null) == (jdbcUrl == null)) {
            System.err.println("gyro instance: give the database as --db FILE (SQLite) or --jdbc-url URL, exactly one");
            return 2;
        }
        String target = jdbcUrl != null ? jdbcUrl : db.toString();
        Application application;
        InstanceConfig.Network network;
        try {
            application = apps.byName(app);
            network = new InstanceConfig.Network(security.transport(Transport.instanceIdentity(id)), bind, clusterId);
        } catch (IllegalArgumentException e) {
            System.err.println("gyro instance: " + e.getMessage());
            return 2;
        }
        if (loadScale != null) {
            try (Connection c = DriverManager.getConnection(Dialect.forTarget(target).jdbcUrl(target))) {
                c.setAutoCommit(false);
                application.createSchema(c);
                if (!application.isLoaded(c)) application.load(c, loadScale, seed);
                c.commit();
            }
        }
        List<String> members = ring;
        if (join != null) {
            try {
                members = joinRing(target, network, application);
            } catch (IllegalArgumentException | IllegalStateException | java.sql.SQLException e) {
                System.err.println("gyro instance: --join " + join + ": " + e.getMessage());
                return e instanceof IllegalArgumentException ? 2 : 1;
            }
        } else if (copyFrom != null && !newMember && !rebuild) {
            System.err.println("gyro instance: --copy-from is for an instance that joins a running ring (--join), a"
                    + " new member of a group (--new-member) or a replica rebuilt (--rebuild)");
            return 2;
        }
        if ((newMember || rebuild) && (replica == null || copyFrom == null || loadScale != null
                || (newMember && rebuild))) {
            System.err.println("gyro instance: --new-member and --rebuild (one of them) are of a replica (--replica R)"
                    + " whose database is a copy of a live replica's (--copy-from), not loaded (no --load)");
            return 2;
        }
        // Fail-stop: an instance that stops itself ends this process with a non-zero status (FailStop.EXIT_STATUS).
        InstanceConfig config;
        try {
            config = InstanceConfig.of(id, members, target, application).withPartitionMap(PartitionMap.uniform(ring.size()))
                    .withFailStop(FailStop.EXIT).withNetwork(network)
                    .withHttp(http.equalsIgnoreCase("none") ? null : http).withMaxRequestBytes(maxRequestBytes);
            if (serverCapacity != null) config = config.withGate(capacity(serverCapacity));
        } catch (IllegalArgumentException e) {
            System.err.println("gyro instance: " + e.getMessage());
            return 2;
        }
        if (classification != null) config = config.withClassification(Classification.read(classification));
        if (replica != null) return runReplica(config, target, network, application);
        if (groupLog != null || logDir != null) {
            System.err.println("gyro instance: --group-log and --log-dir are for a replica of a group: give --replica");
            return 2;
        }
        GyroInstance instance = new GyroInstance(config).start();
        System.out.println("gyro instance " + id + " of " + members.size() + " serving " + app + " on " + members.get(id)
                + " (listening on " + config.bindHost() + ", " + network.transport() + ", database "
                + config.describeDatabase() + ", " + instance.routing().map() + ")"
                + (instance.httpUrl() == null ? "" : "; metrics and live view on " + instance.httpUrl()));
        System.out.flush();
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            instance.close();
            stop.countDown();
        }));
        stop.await();
        return 0;
    }

    /**
     * Joins the running ring as instance {@link #id} at {@link #join} (docs/decisions/44-ring-changes.md), unless
     * {@code target} is that member's database already (a restart): asks a member to run the join, then makes
     * {@code target} a copy of {@link #copyFrom}'s database once that member applied it.
     *
     * @return the ring's addresses, this instance's included, as its database holds them
     */
    private List<String> joinRing(String target, InstanceConfig.Network network, Application application)
            throws java.sql.SQLException, InterruptedException {
        if (replica != null) throw new IllegalArgumentException("a replicated group cannot join a running ring yet");
        if (loadScale != null) throw new IllegalArgumentException("a joining instance's data is a copy of a member's:"
                + " drop --load");
        if (id < ring.size()) throw new IllegalArgumentException("--id " + id + " is the id of an instance the ring"
                + " started with (0 to " + (ring.size() - 1) + "): a joining instance takes the ring's next id");
        if (!dev.gyro.runtime.db.JoinerCopy.isMember(target, id)) {
            if (copyFrom == null) throw new IllegalArgumentException("give --copy-from, the database of a member of the"
                    + " ring, which the new instance's database is a copy of");
            try (dev.gyro.client.GyroClient client = dev.gyro.client.GyroClient.connect(ring, 60_000, -1,
                    network.transport())) {
                dev.gyro.wire.Reply r = client.call(dev.gyro.wire.RingRequest.join(join, id));
                boolean joinedBefore = r.status() == dev.gyro.wire.Reply.Status.BAD_REQUEST && r.message() != null
                        && r.message().endsWith(join + " is the address of instance " + id + " already");
                if (!r.ok() && !joinedBefore)
                    throw new IllegalStateException("the ring refused the join: " + r.status() + ": " + r.message());
                System.out.println(r.ok() ? (r.values().isEmpty() || !(r.values().get(0) instanceof
                        dev.gyro.protocol.Value.Text said) ? "instance " + id + " joined the ring" : said.value())
                        : "instance " + id + " joined the ring before; copying a member's database");
            }
            long rows = dev.gyro.runtime.db.JoinerCopy.make(copyFrom, target, id, application::createSchema, 120_000,
                    System.out::println);
            System.out.println("the database of instance " + id + " is a copy of " + copyFrom.replaceAll("\\?.*", "")
                    + (rows > 0 ? " (" + rows + " rows)" : ""));
        }
        List<String> members = dev.gyro.runtime.db.JoinerCopy.addresses(target, ring);
        if (!join.equals(members.get(id)))
            throw new IllegalArgumentException("instance " + id + " joined the ring at " + members.get(id) + ", not "
                    + join);
        return members;
    }

    /**
     * Replica {@link #replica} as a new member in a lost one's place (docs/decisions/47-new-member.md): its database a
     * copy of {@link #copyFrom}'s (unless it is this replica's already: a restart), started knowing no member; then the
     * ring is asked to reach the group at its address in {@code --ring}, and the group to make it a member.
     */
    private dev.gyro.replication.InstanceReplica newMember(dev.gyro.replication.GroupSpec spec, String target, Path dir,
                                                          InstanceConfig config, String address,
                                                          InstanceConfig.Network network) throws Exception {
        if (!dev.gyro.replication.Snapshot.isReplica(target, spec, replica)) {
            long index = dev.gyro.replication.Snapshot.copyOf(copyFrom, spec, target, replica, c -> {
                GyroInstance.prepare(c, config);
                return null;
            }, System.out::println);
            System.out.println("the database of replica " + replica + " of instance " + id + " is a copy of "
                    + copyFrom.replaceAll("\\?.*", "") + " at log index " + index);
        }
        dev.gyro.replication.InstanceReplica r = dev.gyro.replication.InstanceReplica.join(spec, replica, target, dir,
                config, address);
        try {
            // The ring first: it reaches the group at the new address from now on (nothing listens there until this
            // member leads, which it cannot before it is one).
            try (dev.gyro.client.GyroClient client = dev.gyro.client.GyroClient.connect(ring, 60_000, -1,
                    network.transport())) {
                if (!client.routing().addresses().get(id).equals(ring.get(id))) {
                    dev.gyro.wire.Reply m = client.call(dev.gyro.wire.RingRequest.move(id, ring.get(id)));
                    if (!m.ok()) throw new IllegalStateException("the ring refused " + ring.get(id) + " as the address"
                            + " of instance " + id + ": " + m.status() + ": " + m.message());
                    System.out.println(!m.values().isEmpty() && m.values().get(0) instanceof
                            dev.gyro.protocol.Value.Text said ? said.value() : "instance " + id + " is at " + ring.get(id));
                }
            }
            dev.gyro.replication.MemberRequest.takePlace(spec, replica, java.time.Duration.ofMinutes(2));
            System.out.println("replica " + replica + " of instance " + id + " is a member of its group, at "
                    + spec.replicas().get(replica).getHostString() + ":" + spec.replicas().get(replica).getPort());
            return r;
        } catch (Exception e) {
            r.close();
            throw e;
        }
    }

    /** {@code WORKERSxMS} as an emulated server's capacity. */
    static dev.gyro.emulation.Capacity capacity(String spec) {
        String[] p = spec.toLowerCase(java.util.Locale.ROOT).split("x");
        try {
            if (p.length == 2) return dev.gyro.emulation.Capacity.of(Integer.parseInt(p[0].strip()),
                    Long.parseLong(p[1].strip()));
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException("--server-capacity " + spec + ": give WORKERSxMS, e.g. 2x20");
    }

    /** One replica of a replicated group (docs/decisions/24-ring-on-groups.md): runs the instance while it leads. */
    private int runReplica(InstanceConfig config, String target, InstanceConfig.Network network, Application application)
            throws Exception {
        List<String> gyro = Transport.replicaAddresses(ring.get(id));
        if (groupLog == null) {
            System.err.println("gyro instance: --replica needs --group-log, the log address of each replica of the group");
            return 2;
        }
        List<java.net.InetSocketAddress> logs = new java.util.ArrayList<>();
        for (String a : Transport.replicaAddresses(groupLog)) {
            int colon = a.lastIndexOf(':');
            try {
                logs.add(new java.net.InetSocketAddress(a.substring(0, colon), Integer.parseInt(a.substring(colon + 1))));
            } catch (RuntimeException e) {
                System.err.println("gyro instance: --group-log: '" + a + "' is not host:port");
                return 2;
            }
        }
        if (logs.size() != gyro.size()) {
            System.err.println("gyro instance: instance " + id + " is a group of " + gyro.size() + " replicas in --ring ("
                    + ring.get(id) + ") but --group-log names " + logs.size());
            return 2;
        }
        if (replica < 0 || replica >= gyro.size()) {
            System.err.println("gyro instance: --replica " + replica + ": instance " + id + " has replicas 0.."
                    + (gyro.size() - 1));
            return 2;
        }
        if (logDir == null && db == null) {
            System.err.println("gyro instance: --replica with --jdbc-url needs --log-dir, where the group log goes");
            return 2;
        }
        Path dir = logDir != null ? logDir : Path.of(db.toString() + ".group-log");
        dev.gyro.replication.GroupTimeouts timeouts;
        try {
            String[] e = election.split("-");
            timeouts = dev.gyro.replication.GroupTimeouts.DEFAULT
                    .withElection(java.time.Duration.ofMillis(Long.parseLong(e[0].strip())),
                            java.time.Duration.ofMillis(Long.parseLong(e[e.length - 1].strip())))
                    .withCommit(java.time.Duration.ofMillis(commitTimeoutMs));
        } catch (RuntimeException e) {
            System.err.println("gyro instance: --election-ms " + election + " / --commit-timeout-ms " + commitTimeoutMs
                    + ": " + e.getMessage());
            return 2;
        }
        // The group log speaks what the instance's port speaks: mutual TLS as instance-ID, or plaintext with --insecure
        // (docs/decisions/32-group-log-tls.md).
        var spec = new dev.gyro.replication.GroupSpec(network.clusterId(), id, logs, timeouts, network.transport());
        dev.gyro.replication.InstanceReplica r;
        try {
            if (rebuild) {
                InstanceConfig own = config;
                long index = dev.gyro.replication.Snapshot.rebuild(copyFrom, spec, target, replica, c -> {
                    GyroInstance.prepare(c, own);
                    return null;
                }, System.out::println);
                System.out.println("the database of replica " + replica + " of instance " + id + " is a copy of "
                        + copyFrom.replaceAll("\\?.*", "") + " at log index " + index + "; it takes its log after it");
            }
            r = newMember ? newMember(spec, target, dir, config.withFailStop(FailStop.KEEP_PROCESS), gyro.get(replica),
                    network)
                    : dev.gyro.replication.InstanceReplica.start(spec, replica, target, dir,
                    config.withFailStop(FailStop.KEEP_PROCESS), gyro.get(replica));
        } catch (java.sql.SQLException | IllegalArgumentException | IllegalStateException e) {
            System.err.println("gyro instance: replica " + replica + " of instance " + id + ": " + e.getMessage());
            return e instanceof IllegalArgumentException ? 2 : 1;
        }
        System.out.println("gyro instance " + id + " replica " + replica + " of " + gyro.size() + ", ring of "
                + ring.size() + ", serving " + app + " on " + gyro.get(replica) + " while it leads its group (group log on "
                + logs.get(replica).getHostString() + ":" + logs.get(replica).getPort() + ", " + network.transport()
                + ", kept in " + dir
                + "; database " + config.describeDatabase() + ", " + network.transport() + ")");
        System.out.flush();
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            r.close();
            stop.countDown();
        }));
        stop.await();
        return 0;
    }
}
