package dev.gyro.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gyro.app.Application;
import dev.gyro.cluster.Backend;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.replication.GroupTimeouts;
import dev.gyro.replication.InstanceReplica;
import dev.gyro.replication.ReplicatedRing;
import dev.gyro.runtime.GyroInstance;
import dev.gyro.runtime.InstanceConfig;
import dev.gyro.servers.MissingServerException;
import dev.gyro.wire.Transport;
import dev.gyro.wire.tls.Certificates;
import dev.gyro.wire.tls.TlsFiles;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code gyro cluster start --replicas R}: N instances, each a replicated group of R replicas with databases of their own
 * (docs/decisions/24-ring-on-groups.md), all in this process, with the cluster's TLS and an HTTP endpoint per leader.
 * {@code gyro cluster replace} reaches the running process through a folder it watches ({@code DIR/control}): a request
 * file in, a result file out.
 */
final class ReplicatedCluster {

    static final String LOGS = "logs";
    static final String CONTROL = "control";
    /** A rebuild on the same address ({@code replace}), or a new member in a lost one's place ({@code member}). */
    private static final Pattern REQUEST = Pattern.compile("(replace|member)-(\\d+)-(\\d+)\\.request");

    private final Path dir;
    private final Backend backend;
    private final Application application;
    private final int instances;
    private final int replicas;
    private final int scale;
    private final long seed;
    private final boolean insecure;
    private final String bind;
    private final List<String> appJars;
    /** The databases of new members in lost ones' places (gyro cluster replace --new-member), by position and replica. */
    private final java.util.Map<List<Integer>, String> memberDatabases = new java.util.concurrent.ConcurrentHashMap<>();

    ReplicatedCluster(Path dir, Backend backend, Application application, int instances, int replicas, int scale,
                      long seed, boolean insecure, String bind, List<String> appJars) {
        this.dir = dir;
        this.backend = backend;
        this.application = application;
        this.instances = instances;
        this.replicas = replicas;
        this.scale = scale;
        this.seed = seed;
        this.insecure = insecure;
        this.bind = bind;
        this.appJars = appJars;
    }

    int run(PrintStream out) throws Exception {
        int n = instances * replicas;
        out.printf("gyro cluster: starting %d %s for %d instances of %s, each a group of %d replicas, in %s%n", n,
                backend == Backend.SQLITE ? "SQLite databases" : backend + " servers", instances, application.name(),
                replicas, dir);
        LocalCluster dbs;
        try {
            dbs = LocalCluster.create(backend, dir, application, n, scale, seed, k -> {});
        } catch (MissingServerException | IllegalArgumentException e) {
            System.err.println("gyro cluster: " + e.getMessage());
            return 1;
        }
        TlsFiles tls = null;
        if (insecure) out.println("gyro cluster: WARNING: --insecure: the instances accept plaintext from anyone who can"
                + " reach their ports");
        else tls = certificates();
        String clusterId = tls == null ? InstanceConfig.Network.UNNAMED : Certificates.clusterOf(Certificates.read(tls.ca()));
        List<List<String>> databases = java.util.Collections.synchronizedList(new ArrayList<>()); // a join adds one
        for (int p = 0; p < instances; p++) {
            List<String> group = new ArrayList<>();
            for (int r = 0; r < replicas; r++) group.add(target(dbs, p * replicas + r));
            databases.add(group);
        }
        TlsFiles files = tls;
        ReplicatedRing ring;
        try {
            ring = ReplicatedRing.start(databases, dir.resolve(LOGS), clusterId, GroupTimeouts.DEFAULT, (p, addresses) -> {
                Transport t = files == null ? Transport.insecure() : Transport.mutualTls(files, Transport.instanceIdentity(p));
                return InstanceConfig.of(p, addresses, databases.get(p).get(0), application)
                        .withNetwork(new InstanceConfig.Network(t, bind, clusterId))
                        .withHttp("127.0.0.1:0");
            });
            if (!ring.awaitLeaders(Duration.ofSeconds(120))) throw new IllegalStateException("not every group elected"
                    + " a leader within 120 s");
        } catch (RuntimeException | IOException | java.sql.SQLException e) {
            dbs.close();
            System.err.println("gyro cluster: " + e.getMessage());
            return 1;
        }
        Thread stopper = new Thread(() -> {
            ring.close();
            dbs.close();
            try {
                Files.deleteIfExists(ClusterCommand.pidFile(dir));
            } catch (IOException ignored) {
                // best effort
            }
        }, "gyro-cluster-stop");
        Runtime.getRuntime().addShutdownHook(stopper);
        Files.writeString(ClusterCommand.pidFile(dir), ProcessHandle.current().pid() + "\n");
        Files.deleteIfExists(CallCommand.sessionFile(dir));
        ClusterCommand.JSON.writerWithDefaultPrettyPrinter().writeValue(ClusterCommand.infoFile(dir).toFile(),
                describe(ring, dbs, clusterId));
        print(out, ring);
        // gyro cluster add-instance / remove-instance (docs/decisions/44-ring-changes.md)
        ClusterControl.watch(dir, elastic(ring, dbs, databases, files), files == null ? null
                : ClusterCommand.tlsDirectory(dir), () -> {
            try {
                ClusterCommand.JSON.writerWithDefaultPrettyPrinter().writeValue(ClusterCommand.infoFile(dir).toFile(),
                        describe(ring, dbs, clusterId));
            } catch (IOException e) {
                System.err.println("gyro cluster: cannot rewrite " + ClusterCommand.infoFile(dir) + ": " + e.getMessage());
            }
        });
        out.println(ClusterCommand.READY + " (pid " + ProcessHandle.current().pid() + ")");
        out.flush();
        serveControl(ring, dbs, out, () -> {
            try {
                ClusterCommand.JSON.writerWithDefaultPrettyPrinter().writeValue(ClusterCommand.infoFile(dir).toFile(),
                        describe(ring, dbs, clusterId));
            } catch (IOException e) {
                System.err.println("gyro cluster: cannot rewrite " + ClusterCommand.infoFile(dir) + ": " + e.getMessage());
            }
        });
        return 0;
    }

    /**
     * The ring as {@code add-instance} and {@code remove-instance} change it: a new group gets {@code replicas} new
     * databases from {@code dbs} (numbered on after the others) and joins ({@link ReplicatedRing#join}); a group leaves
     * with {@link ReplicatedRing#leave}.
     */
    private ClusterControl.Elastic elastic(ReplicatedRing ring, LocalCluster dbs, List<List<String>> databases,
                                           TlsFiles files) {
        return new ClusterControl.Elastic() {
            @Override
            public int size() {
                return ring.size();
            }

            @Override
            public boolean runs(int i) {
                return !ring.departed().contains(i);
            }

            @Override
            public List<String> addresses() {
                return ring.addresses();
            }

            @Override
            public Transport clientTransport() {
                return files == null ? Transport.insecure() : Transport.mutualTls(files, Certificates.CLIENT);
            }

            @Override
            public String add(String argument, java.util.function.Consumer<String> progress) throws Exception {
                if (!argument.isEmpty())
                    throw new IllegalArgumentException("a replicated cluster makes its new group's databases itself:"
                            + " --jdbc-url is for a cluster on databases it was given");
                int id = ring.size();
                List<String> made = dbs.moreDatabases(replicas);
                databases.add(made);
                int joined = ring.join(made, application::createSchema, progress);
                if (joined != id) throw new IllegalStateException("the new group is position " + joined + ", not " + id);
                return "instance " + id + " at " + ring.addresses().get(id) + " (a group of " + replicas
                        + " replicas, its databases copies of a member's) joined the ring";
            }

            @Override
            public void remove(int id) throws InterruptedException {
                ring.leave(id);
            }
        };
    }

    private static String target(LocalCluster dbs, int i) {
        return dbs.backend() == Backend.SQLITE ? dbs.databaseFile(i).toString() : dbs.jdbcUrl(i);
    }

    private TlsFiles certificates() {
        Path tls = ClusterCommand.tlsDirectory(dir);
        if (Files.exists(tls.resolve(TlsFiles.CA_CERT))) return new TlsFiles(tls);
        return Certificates.createCluster(tls, java.util.UUID.randomUUID().toString(), instances, List.of());
    }

    private ObjectNode describe(ReplicatedRing ring, LocalCluster dbs, String clusterId) {
        ObjectNode root = ClusterCommand.JSON.createObjectNode();
        root.put("backend", backend.label());
        root.put("application", application.name());
        root.put("pid", ProcessHandle.current().pid());
        root.put("attached", false);
        root.put("tls", insecure ? null : ClusterCommand.tlsDirectory(dir).toString());
        root.put("clusterId", clusterId);
        root.put("replicas", replicas);
        ArrayNode jars = root.putArray("appJars");
        appJars.stream().filter(a -> !a.equals("--app-jar")).forEach(jars::add);
        ArrayNode list = root.putArray("instances");
        for (int p = 0; p < ring.size(); p++) {
            if (ring.departed().contains(p)) continue; // left the ring (gyro cluster remove-instance)
            ObjectNode node = list.addObject();
            node.put("id", p);
            node.put("address", ring.addresses().get(p));
            GyroInstance leader = ring.instance(p);
            node.put("http", leader == null ? null : leader.httpUrl());
            node.put("jdbcUrl", dbs.jdbcUrl(p * replicas).replaceAll("(?i)(password=)[^&;]*", "$1***"));
            ArrayNode rs = node.putArray("replicas");
            List<String> addresses = Transport.replicaAddresses(ring.addresses().get(p));
            for (int r = 0; r < replicas; r++) {
                ObjectNode rn = rs.addObject();
                rn.put("replica", r);
                rn.put("address", addresses.get(r));
                String member = memberDatabases.get(List.of(p, r));
                String url = member == null ? dbs.jdbcUrl(p * replicas + r)
                        : dev.gyro.runtime.db.Dialect.forTarget(member).jdbcUrl(member);
                rn.put("jdbcUrl", url.replaceAll("(?i)(password=)[^&;]*", "$1***"));
            }
        }
        return root;
    }

    private void print(PrintStream out, ReplicatedRing ring) {
        out.printf("%d instances on %s, each a group of %d replicas (only a group's leader listens):%n", ring.size(),
                backend, replicas);
        for (int p = 0; p < ring.size(); p++) {
            InstanceReplica leader = ring.leader(p);
            out.printf("  instance %d  %s  leader: replica %s  http %s%n", p, ring.addresses().get(p),
                    leader == null ? "-" : leader.group().replica(),
                    leader == null || leader.instance() == null ? "-" : leader.instance().httpUrl());
        }
        out.printf("requests:  gyro call --cluster %s TRANSACTION ARGS...%n", dir);
        out.printf("replace:   gyro cluster replace --dir %s --group G --replica R [--new-member]%n", dir);
        out.printf("watch:     gyro cluster status --dir %s%n", dir);
        out.printf("stop:      gyro cluster stop --dir %s   (or Ctrl-C when in the foreground)%n", dir);
    }

    /**
     * Until the process ends: takes replace requests from {@code DIR/control}, one at a time; {@code changed} rewrites
     * cluster.json once a new member changed a group's addresses.
     */
    private void serveControl(ReplicatedRing ring, LocalCluster dbs, PrintStream out, Runnable changed)
            throws IOException, InterruptedException {
        Path control = dir.resolve(CONTROL);
        Files.createDirectories(control);
        try (WatchService watch = control.getFileSystem().newWatchService()) {
            control.register(watch, StandardWatchEventKinds.ENTRY_CREATE);
            while (true) {
                try (var pending = Files.list(control)) { // requests made before the watch, or missed
                    for (Path f : pending.toList()) handle(ring, dbs, f, out, changed);
                }
                WatchKey key = watch.take();
                key.pollEvents();
                key.reset();
            }
        }
    }

    private void handle(ReplicatedRing ring, LocalCluster dbs, Path request, PrintStream out, Runnable changed)
            throws IOException {
        Matcher m = REQUEST.matcher(request.getFileName().toString());
        if (!m.matches()) return;
        boolean newMember = m.group(1).equals("member");
        int group = Integer.parseInt(m.group(2)), replica = Integer.parseInt(m.group(3));
        Path result = request.resolveSibling(m.group(1) + "-" + group + "-" + replica + ".result");
        String answer;
        try {
            if (group >= ring.size() || ring.departed().contains(group))
                throw new IllegalArgumentException("the cluster has instances 0.." + (ring.size() - 1)
                        + (ring.departed().isEmpty() ? "" : " (instances " + ring.departed() + " left the ring)"));
            if (replica >= ring.replicas(group))
                throw new IllegalArgumentException("instance " + group + " has replicas 0.." + (ring.replicas(group) - 1));
            long t0 = System.nanoTime();
            if (newMember) {
                // a database of its own: a new SQLite file, or a new server's database (docs/decisions/47-new-member.md)
                String database = dbs.moreDatabases(1).get(0);
                InstanceReplica joined = ring.replaceMember(group, replica, database);
                memberDatabases.put(List.of(group, replica), database);
                changed.run();
                if (!ring.awaitCaughtUp(group, replica, Duration.ofSeconds(120)))
                    throw new IllegalStateException("the new member has not caught up within 120 s");
                answer = "OK replica " + replica + " of instance " + group + " is a new member on "
                        + joined.group().memberAddress(replica) + " (its group log) with a database of its own, caught"
                        + " up in " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms; instance " + group
                        + " is at " + ring.addresses().get(group) + " now";
            } else {
                answer = rebuild(ring, group, replica, t0);
            }
        } catch (Exception e) {
            answer = "FAILED " + e.getMessage();
        }
        out.println("gyro cluster: replace: " + answer);
        Path tmp = request.resolveSibling(result.getFileName() + ".tmp");
        Files.writeString(tmp, answer + "\n");
        Files.move(tmp, result, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        Files.deleteIfExists(request);
    }

    /** Replica {@code replica} of {@code group} rebuilt from a copy of its leader's database, on its own addresses. */
    private static String rebuild(ReplicatedRing ring, int group, int replica, long t0) throws Exception {
        long index = ring.replace(group, replica);
        if (!ring.awaitReplicasCaughtUp(Duration.ofSeconds(120)))
            throw new IllegalStateException("replica " + replica + " was rebuilt but has not caught up within 120 s");
        return "OK replica " + replica + " of instance " + group + " rebuilt from a copy of its leader's database at"
                + " log index " + index + " and caught up in " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)
                + " ms";
    }

    /**
     * {@code gyro cluster replace}: asks the running cluster and waits for its answer; with {@code newMember}, a new
     * member on new addresses and a database of its own takes the replica's place (its machine is lost).
     */
    static int requestReplace(Path dir, int group, int replica, boolean newMember, PrintStream out, PrintStream err)
            throws IOException, InterruptedException {
        Path control = dir.resolve(CONTROL);
        if (!Files.isDirectory(control)) {
            err.println("gyro cluster: the cluster in " + dir + " has no replicated groups (start it with --replicas)");
            return 2;
        }
        String kind = newMember ? "member" : "replace";
        Path result = control.resolve(kind + "-" + group + "-" + replica + ".result");
        Files.deleteIfExists(result);
        Files.writeString(control.resolve(kind + "-" + group + "-" + replica + ".request"), "");
        out.println("gyro cluster: replacing replica " + replica + " of instance " + group
                + (newMember ? " by a new member on new addresses" : "") + " ...");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
        while (!Files.exists(result)) {
            if (System.nanoTime() > deadline || ClusterCommand.running(dir) == null) {
                err.println("gyro cluster: no answer from the cluster in " + dir);
                return 1;
            }
            Thread.sleep(100);
        }
        String answer = Files.readString(result).strip();
        Files.deleteIfExists(result);
        (answer.startsWith("OK") ? out : err).println("gyro cluster: " + answer);
        return answer.startsWith("OK") ? 0 : 1;
    }
}
