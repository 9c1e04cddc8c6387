package dev.gyro.cli;

import dev.gyro.client.GyroClient;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.runtime.GyroInstance;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Transport;
import dev.gyro.wire.tls.Certificates;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Growing and shrinking a running cluster of {@code gyro cluster start} (docs/decisions/44-ring-changes.md): the
 * commands {@code gyro cluster add-instance} and {@code remove-instance} ask the cluster's process, through files in
 * {@code DIR/control}, which runs the change on its instances and writes what it does as it goes: a request file, the
 * progress, one line per step, and the result. An instance joins the ring, then takes a fair share of the buckets with
 * their rows; an instance leaves once its buckets moved to the others.
 */
final class ClusterControl {

    static final String CONTROL = "control";
    private static final String ADD = "add-instance";
    private static final String REMOVE = "remove-instance-";

    private ClusterControl() {}

    /** A running cluster that instances join and leave: a {@link LocalCluster}, or a ring of replicated groups. */
    interface Elastic {
        /** Positions so far, departed ones included (ids are never reused). */
        int size();

        /** Whether position {@code i} is a member of the ring and runs now. */
        boolean runs(int i);

        List<String> addresses();

        Transport clientTransport();

        /**
         * Adds a position on {@code argument} (its database, or "" for one the cluster makes), returns a line saying
         * where it runs and what its database holds.
         */
        String add(String argument, java.util.function.Consumer<String> progress) throws Exception;

        /** Takes position {@code id}, which owns no bucket, out of the ring and stops it. */
        void remove(int id) throws Exception;

        static Elastic of(LocalCluster cluster) {
            return new Elastic() {
                @Override
                public int size() {
                    return cluster.size();
                }

                @Override
                public boolean runs(int i) {
                    return cluster.instance(i) != null;
                }

                @Override
                public List<String> addresses() {
                    return cluster.addresses();
                }

                @Override
                public Transport clientTransport() {
                    return cluster.clientTransport();
                }

                @Override
                public String add(String argument, java.util.function.Consumer<String> progress) throws Exception {
                    int id = cluster.size();
                    GyroInstance joined = argument.isEmpty() ? cluster.addInstance() : cluster.addInstance(argument);
                    return "instance " + id + " at " + cluster.addresses().get(id) + " joined the ring (its database"
                            + " a copy of a member's, at gsn " + joined.appliedGsn() + ")";
                }

                @Override
                public void remove(int id) throws InterruptedException {
                    cluster.removeInstance(id);
                }
            };
        }
    }

    @Command(name = "add-instance", mixinStandardHelpOptions = true, description = "Add an instance to the cluster"
            + " running in DIR while it serves: it joins the ring, its database a copy of a member's, then takes a fair"
            + " share of the buckets with their rows.")
    static final class Add implements java.util.concurrent.Callable<Integer> {

        @Option(names = "--dir", defaultValue = "gyro-cluster", description = "the cluster's directory (default: ${DEFAULT-VALUE})")
        Path dir;

        @Option(names = "--jdbc-url", paramLabel = "URL", description = "the new instance's database, new and empty, on"
                + " the cluster's DBMS: for a cluster on databases its file names (by default Gyro makes one: a SQLite"
                + " file, or a throwaway server of its own)")
        String jdbcUrl;

        @Option(names = "--backend", paramLabel = "B", description = "the new instance's backend: the cluster's own"
                + " (one backend per cluster; given, it is checked)")
        String backend;

        @Option(names = "--replicas", paramLabel = "R", description = "the new instance's replicas: the cluster's own"
                + " (a group of R replicas joins a cluster started with --replicas R; given, it is checked)")
        Integer replicas;

        @Override
        public Integer call() throws Exception {
            Path d = dir.toAbsolutePath();
            if (replicas != null && ClusterCommand.running(d) != null) {
                int runs = new com.fasterxml.jackson.databind.ObjectMapper().readTree(ClusterCommand.infoFile(d)
                        .toFile()).path("replicas").asInt(1);
                if (replicas != runs) {
                    System.err.println("gyro cluster: --replicas " + replicas + ": the cluster in " + d + " runs "
                            + (runs == 1 ? "instances of one replica" : "groups of " + runs + " replicas")
                            + ", and a new instance is one like them");
                    return 2;
                }
            }
            if (backend != null && ClusterCommand.running(d) != null) {
                String runs = new com.fasterxml.jackson.databind.ObjectMapper().readTree(ClusterCommand.infoFile(d)
                        .toFile()).path("backend").asText();
                String asked;
                try {
                    asked = dev.gyro.cluster.Backend.parse(backend).label();
                } catch (IllegalArgumentException e) {
                    System.err.println("gyro cluster: --backend " + backend + ": " + e.getMessage());
                    return 2;
                }
                if (!asked.equals(runs)) {
                    System.err.println("gyro cluster: --backend " + backend + ": the cluster in " + d + " runs on "
                            + runs + ", and a cluster has one backend");
                    return 2;
                }
            }
            return request(d, ADD, jdbcUrl == null ? "" : jdbcUrl, System.out, System.err);
        }
    }

    @Command(name = "remove-instance", mixinStandardHelpOptions = true, description = "Take an instance out of the"
            + " cluster running in DIR while it serves: its buckets move to the others with their rows, then it leaves"
            + " the ring and stops.")
    static final class Remove implements java.util.concurrent.Callable<Integer> {

        @Option(names = "--dir", defaultValue = "gyro-cluster", description = "the cluster's directory (default: ${DEFAULT-VALUE})")
        Path dir;

        @Option(names = "--instance", required = true, description = "the instance to take out")
        int instance;

        @Override
        public Integer call() throws Exception {
            return request(dir.toAbsolutePath(), REMOVE + instance, "", System.out, System.err);
        }
    }

    /**
     * Asks the cluster process in {@code d} for {@code what} (with {@code argument}, or ""), prints its progress as it
     * comes; 0 when it succeeded.
     */
    static int request(Path d, String what, String argument, PrintStream out, PrintStream err)
            throws IOException, InterruptedException {
        if (ClusterCommand.running(d) == null) {
            err.println("gyro cluster: nothing runs in " + d);
            return 3;
        }
        Path control = d.resolve(CONTROL);
        if (!Files.isDirectory(control)) {
            err.println("gyro cluster: the cluster in " + d + " takes no " + what + " (a replicated cluster, or one"
                    + " started by an earlier version)");
            return 2;
        }
        Path progress = control.resolve(what + ".progress"), result = control.resolve(what + ".result");
        Files.deleteIfExists(progress);
        Files.deleteIfExists(result);
        Path asked = control.resolve(what + ".asking");
        Files.writeString(asked, argument); // then renamed: the cluster never reads half an argument
        Files.move(asked, control.resolve(what + ".request"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(600);
        int shown = 0;
        while (true) {
            boolean done = Files.exists(result);
            if (Files.exists(progress)) {
                // whole lines only: the cluster may be halfway through appending one
                String text = Files.readString(progress);
                List<String> lines = text.substring(0, text.lastIndexOf('\n') + 1).lines().toList();
                for (; shown < lines.size(); shown++) out.println("gyro cluster: " + lines.get(shown));
            }
            if (done) break;
            if (System.nanoTime() > deadline || ClusterCommand.running(d) == null) {
                err.println("gyro cluster: no answer from the cluster in " + d);
                return 1;
            }
            Thread.sleep(100);
        }
        String answer = Files.readString(result).strip();
        Files.deleteIfExists(result);
        Files.deleteIfExists(progress);
        (answer.startsWith("OK") ? out : err).println("gyro cluster: " + answer);
        return answer.startsWith("OK") ? 0 : 1;
    }

    /**
     * Watches {@code d}'s control folder for requests and runs them on {@code cluster}, one at a time, on a daemon
     * thread; {@code changed} rewrites the cluster's description after each.
     *
     * @param tls the cluster's certificates, where a joining instance's is issued; null for a plaintext cluster
     */
    static void watch(Path d, Elastic cluster, Path tls, Runnable changed) throws IOException {
        Path control = d.resolve(CONTROL);
        Files.createDirectories(control);
        Thread t = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try (var files = Files.list(control)) {
                    for (Path request : files.filter(ClusterControl::taken).sorted().toList()) {
                        String what = request.getFileName().toString().replace(".request", "");
                        String argument = Files.readString(request).strip();
                        Files.deleteIfExists(request);
                        Path progress = control.resolve(what + ".progress");
                        String answer;
                        try {
                            answer = run(cluster, what, argument, tls, line -> append(progress, line));
                        } catch (Exception e) {
                            answer = "FAILED: " + e.getMessage();
                        }
                        changed.run();
                        // written, then renamed: the asking command never reads half a result
                        Path half = control.resolve(what + ".answering");
                        Files.writeString(half, answer + "\n");
                        Files.move(half, control.resolve(what + ".result"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                    }
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                } catch (IOException e) {
                    // the folder went away: the cluster stops
                    return;
                }
            }
        }, "gyro-cluster-control");
        t.setDaemon(true);
        t.start();
    }

    /** A request file this watch takes (a replicated cluster's replace requests are its own). */
    private static boolean taken(Path f) {
        String name = f.getFileName().toString();
        return name.endsWith(".request") && (name.startsWith(ADD) || name.startsWith(REMOVE));
    }

    private static void append(Path progress, String line) {
        try {
            Files.writeString(progress, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException ignored) {
            // progress is best effort; the result says how it ended
        }
    }

    /**
     * Runs one request ({@code add-instance}, with the new instance's database or "", or {@code remove-instance-I});
     * returns its result line.
     */
    static String run(Elastic cluster, String what, String argument, Path tls,
                      java.util.function.Consumer<String> progress)
            throws Exception {
        long started = System.nanoTime();
        List<Integer> members = new ArrayList<>();
        for (int i = 0; i < cluster.size(); i++) if (cluster.runs(i)) members.add(i);
        if (what.equals(ADD)) {
            int id = cluster.size();
            if (tls != null) Certificates.issue(tls, Transport.instanceIdentity(id), List.of());
            progress.accept("instance " + id + " joins the ring ...");
            String joined = cluster.add(argument, progress);
            progress.accept(joined + " after " + millis(started) + " ms");
            members.add(id);
        } else if (what.startsWith(REMOVE)) {
            int id;
            try {
                id = Integer.parseInt(what.substring(REMOVE.length()));
            } catch (NumberFormatException e) {
                return "FAILED: no instance " + what.substring(REMOVE.length());
            }
            if (!members.contains(id)) return "FAILED: instance " + id + " is no member of the ring " + members;
            if (members.size() == 1) return "FAILED: instance " + id + " is the only member of the ring";
            members.remove(Integer.valueOf(id));
        } else {
            return "FAILED: unknown request " + what;
        }
        try (GyroClient client = GyroClient.connect(members.stream().map(cluster.addresses()::get).toList(),
                cluster.clientTransport())) {
            client.refreshRouting(0 < members.size() ? members.get(0) : 0);
            for (ClusterMoves.Step s : ClusterMoves.plan(client.routing().map(), members)) {
                for (Reply r : client.moveBuckets(s.to(), s.buckets())) {
                    if (r.status() != Reply.Status.OK) return "FAILED: " + r.status() + ": " + r.message();
                    progress.accept(String.valueOf(r.values().get(0).toJava()));
                }
            }
            if (what.startsWith(REMOVE)) {
                int id = Integer.parseInt(what.substring(REMOVE.length()));
                progress.accept("instance " + id + " owns no bucket now; it leaves the ring ...");
                cluster.remove(id);
                progress.accept("instance " + id + " left the ring and stopped");
            }
            PartitionMap map = client.routing().map();
            StringBuilder s = new StringBuilder("OK after " + millis(started) + " ms: map version " + map.version() + ":");
            for (int i : members) s.append(" instance ").append(i).append(' ').append(map.bucketsOf(i).length)
                    .append(" buckets,");
            return s.substring(0, s.length() - 1);
        }
    }

    private static long millis(long startedNanos) {
        return (System.nanoTime() - startedNanos) / 1_000_000;
    }
}
