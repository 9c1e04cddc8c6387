package dev.gyro.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gyro.app.Application;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.cluster.Backend;
import dev.gyro.servers.DatabaseServer;
import dev.gyro.servers.MissingServerException;
import dev.gyro.wire.Transport;
import dev.gyro.wire.tls.Certificates;
import dev.gyro.wire.tls.TlsFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code gyro cluster start|stop|status}: N Gyro instances of an application, each on its own database server,
 * for trying Gyro on PostgreSQL or MariaDB without setting anything up. {@code start} initialises
 * and starts one throwaway server per instance in the cluster's directory (free loopback ports, never the standard
 * ones), loads the application's data, starts the instances in this process and prints how to reach everything;
 * it runs until interrupted, or with {@code --detach} in the background with a pid file. {@code stop} ends a
 * detached cluster and everything it started. With {@code --config FILE} the instances attach to existing
 * databases, one JDBC URL per instance, instead.
 *
 * <p>The directory holds {@code cluster.json} (what runs where), {@code cluster.pid}, {@code cluster.log} (when
 * detached) and {@code server-I/} (each server's data and log).
 */
@Command(name = "cluster", mixinStandardHelpOptions = true,
        description = "Run a Gyro cluster on throwaway PostgreSQL, MariaDB or SQLite databases, or on existing ones.",
        subcommands = {ClusterCommand.Start.class, ClusterCommand.Stop.class, ClusterCommand.Status.class,
                ClusterCommand.Replace.class, ClusterMoves.Move.class, ClusterMoves.Rebalance.class,
                ClusterControl.Add.class, ClusterControl.Remove.class})
final class ClusterCommand implements Runnable {

    static final String READY = "gyro cluster: ready";
    static final ObjectMapper JSON = new ObjectMapper();

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    static Path pidFile(Path dir) {
        return dir.resolve("cluster.pid");
    }

    static Path infoFile(Path dir) {
        return dir.resolve("cluster.json");
    }

    /** Where a cluster started in {@code dir} keeps its CA and certificates. */
    static Path tlsDirectory(Path dir) {
        return dir.resolve("tls");
    }

    /**
     * How a client reaches the cluster running in {@code dir}: with the cluster's client certificate, or plaintext
     * when it was started with --insecure (its cluster.json says which).
     */
    static Transport clientTransport(Path dir) throws IOException {
        JsonNode info = JSON.readTree(infoFile(dir.toAbsolutePath()).toFile());
        JsonNode tls = info.get("tls");
        if (tls == null || tls.isNull()) return Transport.insecure();
        return Transport.mutualTls(new TlsFiles(Path.of(tls.asText())), Certificates.CLIENT);
    }

    /** The process of the cluster running in {@code dir}, if one does. */
    static ProcessHandle running(Path dir) {
        try {
            if (!Files.exists(pidFile(dir))) return null;
            long pid = Long.parseLong(Files.readString(pidFile(dir)).strip());
            return DatabaseServer.processAlive(pid) ? ProcessHandle.of(pid).orElse(null) : null;
        } catch (IOException | NumberFormatException e) {
            return null;
        }
    }

    // ------------------------------------------------------------------------------------------------ start

    @Command(name = "start", mixinStandardHelpOptions = true,
            description = "Start N database servers and N Gyro instances on them, print how to reach them, and run "
                    + "until interrupted (or in the background with --detach).")
    static final class Start implements Callable<Integer> {

        @Option(names = "--backend", defaultValue = "postgres",
                description = "postgres, mariadb or sqlite (default: ${DEFAULT-VALUE})")
        String backend;

        @Option(names = "--instances", defaultValue = "3", description = "number of instances (default: ${DEFAULT-VALUE})")
        int instances;

        @Option(names = "--dir", defaultValue = "gyro-cluster",
                description = "the cluster's directory: servers' data, logs, pid file (default: ${DEFAULT-VALUE})")
        Path dir;

        @Option(names = "--config", paramLabel = "FILE", description = "the cluster described in a YAML file (application,"
                + " databases, addresses, TLS; example: docs/cluster.yaml) instead of these options. A .properties file"
                + " (instance.0.jdbc=URL, ...; app, scale, seed) attaches to existing databases, as before.")
        Path config;

        @Option(names = "--bind", paramLabel = "ADDRESS", description = "the address the instances listen on (default:"
                + " the host of their own address, loopback)")
        String bind;

        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        /** The YAML configuration, when --config names one; its values have replaced the options'. */
        private ClusterConfig described;

        @Option(names = "--app", defaultValue = "store", description = "the application (default: ${DEFAULT-VALUE})")
        String app;

        @picocli.CommandLine.Mixin
        Apps apps = new Apps();

        @Option(names = "--scale", defaultValue = "1", description = "the application's scale (default: ${DEFAULT-VALUE})")
        int scale;

        @Option(names = "--seed", defaultValue = "42", description = "seed of the initial data (default: ${DEFAULT-VALUE})")
        long seed;

        @Option(names = "--detach", description = "run in the background; stop with 'gyro cluster stop --dir DIR'")
        boolean detach;

        @Option(names = "--insecure", description = "plaintext, no authentication (default: mutual TLS with certificates"
                + " of the cluster's own CA, made in DIR/tls; clients use DIR/tls/client.crt)")
        boolean insecure;

        @Option(names = "--replicas", defaultValue = "1", description = "replicas per instance: 3 runs each instance as a"
                + " replicated group of 3, each replica with its own database, tolerating the loss of one per group;"
                + " replace one with 'gyro cluster replace' (default: ${DEFAULT-VALUE})")
        int replicas;

        @Override
        public Integer call() throws Exception {
            Path d = dir.toAbsolutePath();
            if (config != null && !config.toString().endsWith(".properties")) {
                try {
                    described = describedBy(ClusterConfig.read(config));
                } catch (IllegalArgumentException e) {
                    System.err.println("gyro cluster: " + e.getMessage());
                    return 2;
                }
                d = dir.toAbsolutePath();
            }
            ProcessHandle other = running(d);
            if (other != null && other.pid() != ProcessHandle.current().pid()) {
                System.err.println("gyro cluster: a cluster already runs in " + d + " (pid " + other.pid()
                        + "); stop it with: gyro cluster stop --dir " + dir);
                return 1;
            }
            if (instances < 1 || scale < 1 || replicas < 1) {
                System.err.println("gyro cluster: --instances, --scale and --replicas must be positive");
                return 2;
            }
            if (replicas > 1 && config != null) {
                System.err.println("gyro cluster: --replicas runs throwaway databases it makes itself; a cluster from"
                        + " --config " + config + " has one database per instance");
                return 2;
            }
            try {
                // the application is known before anything starts, here and not in a background process's log
                if (config == null || described != null) apps.byName(app);
                OwnedFolder.claim(d, "--dir");
            } catch (IllegalArgumentException e) {
                System.err.println("gyro cluster: " + e.getMessage());
                return 2;
            }
            return detach ? detachAndWait(d) : runHere(d);
        }

        /**
         * Takes the file's values for the options (which the file replaces: giving both is an error naming them), and
         * returns the file.
         */
        private ClusterConfig describedBy(ClusterConfig c) {
            List<String> both = new ArrayList<>();
            for (String o : List.of("--backend", "--instances", "--app", "--app-jar", "--scale", "--seed", "--insecure",
                    "--bind"))
                if (spec.commandLine().getParseResult().hasMatchedOption(o)) both.add(o);
            if (c.dir() != null && spec.commandLine().getParseResult().hasMatchedOption("--dir")) both.add("--dir");
            if (!both.isEmpty())
                throw new IllegalArgumentException("--config " + config + " describes the cluster; "
                        + String.join(", ", both) + " cannot be given beside it (set "
                        + (both.size() == 1 ? "it" : "them") + " in the file)");
            backend = c.backend().label();
            instances = c.instances();
            app = c.application();
            apps.jars = new ArrayList<>(c.appJars());
            scale = c.scale();
            seed = c.seed();
            insecure = !c.tls();
            bind = c.bind();
            if (c.dir() != null) dir = c.dir();
            return c;
        }

        private int runHere(Path d) throws Exception {
            if (replicas > 1)
                return new ReplicatedCluster(d, Backend.parse(backend), apps.byName(app), instances, replicas, scale,
                        seed, insecure, bind, apps.arguments()).run(System.out);
            PrintStream out = System.out;
            LocalCluster cluster;
            Application application;
            try {
                if (described != null) {
                    application = apps.byName(app);
                    if (described.jdbcUrls().isEmpty()) {
                        Backend b = Backend.parse(backend);
                        out.printf("gyro cluster: starting %d %s for %d instances of %s in %s (from %s)%n", instances,
                                b == Backend.SQLITE ? "SQLite databases" : b + " servers", instances, application.name(),
                                d, config);
                        cluster = LocalCluster.create(b, d, application, instances, scale, seed, n -> {});
                    } else {
                        out.printf("gyro cluster: attaching %d instances of %s to %s databases from %s%n", instances,
                                application.name(), backend, config);
                        cluster = LocalCluster.attach(described.jdbcUrls(), application, scale, seed, n -> {});
                    }
                    if (!described.addresses().isEmpty()) cluster.withAddresses(described.addresses());
                } else if (config != null) {
                    Properties p = new Properties();
                    try (InputStream in = Files.newInputStream(config)) {
                        p.load(in);
                    }
                    application = apps.byName(p.getProperty("app", app).strip());
                    int sc = Integer.parseInt(p.getProperty("scale", Integer.toString(scale)).strip());
                    long sd = Long.parseLong(p.getProperty("seed", Long.toString(seed)).strip());
                    List<String> urls = urls(p, config);
                    out.printf("gyro cluster: attaching %d instances of %s to %s databases from %s%n", urls.size(),
                            application.name(), Backend.ofTarget(urls.get(0)), config);
                    cluster = LocalCluster.attach(urls, application, sc, sd, n -> {});
                } else {
                    Backend b = Backend.parse(backend);
                    application = apps.byName(app);
                    out.printf("gyro cluster: starting %d %s for %d instances of %s in %s%n", instances,
                            b == Backend.SQLITE ? "SQLite databases" : b + " servers", instances, application.name(), d);
                    cluster = LocalCluster.create(b, d, application, instances, scale, seed, n -> {});
                }
                int maxRequestBytes = described != null ? described.maxRequestBytes()
                        : dev.gyro.runtime.InstanceConfig.MAX_REQUEST_BYTES;
                cluster.withInstanceConfig(c -> (bind == null ? c : c.withNetwork(new dev.gyro.runtime.InstanceConfig.Network(
                        c.network().transport(), bind, c.network().clusterId()))).withMaxRequestBytes(maxRequestBytes));
                if (insecure) {
                    out.println("gyro cluster: WARNING: " + (described != null ? "tls: false" : "--insecure")
                            + ": the instances accept plaintext from anyone who can reach their ports");
                } else {
                    cluster.withTls(certificates(d, cluster.size()));
                }
                cluster.withHttp(); // each instance's metrics, status and live view (docs/decisions/18-watching.md)
                cluster.startAll();
            } catch (MissingServerException | IllegalArgumentException e) {
                System.err.println("gyro cluster: " + e.getMessage());
                return 1;
            }
            CountDownLatch stopped = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    cluster.close();
                } finally {
                    try {
                        Files.deleteIfExists(pidFile(d));
                    } catch (IOException ignored) {
                        // best effort
                    }
                    stopped.countDown();
                }
            }, "gyro-cluster-stop"));
            Files.writeString(pidFile(d), ProcessHandle.current().pid() + "\n");
            Files.deleteIfExists(CallCommand.sessionFile(d)); // gsns seen by calls to an earlier cluster here

            JSON.writerWithDefaultPrettyPrinter().writeValue(infoFile(d).toFile(), describe(cluster, application));
            // gyro cluster add-instance / remove-instance (docs/decisions/44-ring-changes.md)
            ClusterControl.watch(d, ClusterControl.Elastic.of(cluster), insecure ? null : tlsDirectory(d), () -> {
                try {
                    JSON.writerWithDefaultPrettyPrinter().writeValue(infoFile(d).toFile(), describe(cluster, application));
                } catch (IOException e) {
                    System.err.println("gyro cluster: cannot rewrite " + infoFile(d) + ": " + e.getMessage());
                }
            });
            print(out, cluster, d);
            out.println(READY + " (pid " + ProcessHandle.current().pid() + ")");
            out.flush();
            stopped.await();
            return 0;
        }

        /**
         * The cluster's certificates in {@code DIR/tls}: made on first start (a new cluster id), reused when the
         * cluster starts again on its kept data (whose databases are stamped with that id).
         */
        private static TlsFiles certificates(Path d, int instances) {
            Path tls = tlsDirectory(d);
            if (Files.exists(tls.resolve(TlsFiles.CA_CERT))) return new TlsFiles(tls);
            return Certificates.createCluster(tls, java.util.UUID.randomUUID().toString(), instances, List.of());
        }

        private static List<String> urls(Properties p, Path file) {
            TreeMap<Integer, String> byInstance = new TreeMap<>();
            for (String key : p.stringPropertyNames()) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("instance\\.(\\d+)\\.jdbc").matcher(key);
                if (m.matches()) byInstance.put(Integer.parseInt(m.group(1)), p.getProperty(key).strip());
            }
            if (byInstance.isEmpty())
                throw new IllegalArgumentException(file + " names no databases: write one line per instance,"
                        + " instance.0.jdbc=jdbc:postgresql://HOST:PORT/DB?user=USER, instance.1.jdbc=...");
            for (int i = 0; i < byInstance.size(); i++)
                if (!byInstance.containsKey(i))
                    throw new IllegalArgumentException(file + " has no instance." + i + ".jdbc: instances are numbered"
                            + " 0.." + (byInstance.size() - 1) + " in ring order");
            return new ArrayList<>(byInstance.values());
        }

        private ObjectNode describe(LocalCluster cluster, Application application) {
            ObjectNode root = JSON.createObjectNode();
            root.put("backend", cluster.backend().label());
            root.put("application", application.name());
            root.put("pid", ProcessHandle.current().pid());
            root.put("attached", config != null && (described == null || !described.jdbcUrls().isEmpty()));
            Path tls = tlsDirectory(dir.toAbsolutePath());
            root.put("tls", insecure ? null : tls.toString());
            root.put("clusterId", insecure ? dev.gyro.runtime.InstanceConfig.Network.UNNAMED
                    : Certificates.clusterOf(Certificates.read(new TlsFiles(tls).ca())));
            ArrayNode jars = root.putArray("appJars");
            apps.arguments().stream().filter(a -> !a.equals("--app-jar")).forEach(jars::add);
            ArrayNode list = root.putArray("instances");
            for (int i = 0; i < cluster.size(); i++) {
                if (cluster.instance(i) == null) continue; // left the ring (gyro cluster remove-instance)
                ObjectNode n = list.addObject();
                n.put("id", i);
                n.put("address", cluster.addresses().get(i));
                n.put("http", cluster.instance(i).httpUrl());
                n.put("jdbcUrl", cluster.jdbcUrl(i).replaceAll("(?i)(password=)[^&;]*", "$1***"));
                DatabaseServer s = cluster.server(i);
                if (s != null) {
                    ObjectNode sn = n.putObject("server");
                    sn.put("directory", s.directory().toString());
                    sn.put("port", s.port());
                    sn.put("pid", s.pid());
                    sn.put("client", s.clientCommand(LocalCluster.DATABASE));
                }
            }
            return root;
        }

        private static void print(PrintStream out, LocalCluster cluster, Path d) {
            out.printf("%d instances on %s:%n", cluster.size(), cluster.backend());
            for (int i = 0; i < cluster.size(); i++) {
                DatabaseServer s = cluster.server(i);
                out.printf("  instance %d  %-21s  database %s  http %s%n", i, cluster.addresses().get(i),
                        cluster.jdbcUrl(i).replaceAll("(?i)(password=)[^&;]*", "$1***"), cluster.instance(i).httpUrl());
                if (s != null)
                    out.printf("              server pid %d, data %s, client: %s%n", s.pid(), s.directory(),
                            s.clientCommand(LocalCluster.DATABASE));
            }
            String ring = String.join(",", cluster.addresses());
            out.printf("requests:  gyro call --cluster %s TRANSACTION ARGS...   (gyro call --cluster %s --list: the"
                    + " transactions; or --ring %s --tls-dir %s)%n", d, d, ring, tlsDirectory(d));
            Path tls = tlsDirectory(d);
            out.printf("clients:   GyroClient.connect(List.of(\"%s\"), %s)%n", String.join("\", \"", cluster.addresses()),
                    Files.exists(tls) ? "Transport.mutualTls(new TlsFiles(Path.of(\"" + tls + "\")), \"client\")"
                            : "Transport.insecure()");
            out.printf("watch:     %s (live view; /metrics: Prometheus text), gyro cluster status --dir %s%n",
                    cluster.instance(0).httpUrl(), d);
            out.printf("stop:      gyro cluster stop --dir %s   (or Ctrl-C when in the foreground)%n", d);
        }

        /** Runs this same command without --detach in a new background process, and waits until it is ready. */
        private int detachAndWait(Path d) throws Exception {
            Path log = d.resolve("cluster.log");
            List<String> cmd = new ArrayList<>();
            if (Files.isExecutable(Path.of("/usr/bin/setsid"))) cmd.add("/usr/bin/setsid"); // leave the terminal's session
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.add("-cp");
            cmd.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
            cmd.add(Gyro.class.getName());
            if (described != null) {
                // the file describes the cluster: the background process reads it again, in this folder
                cmd.addAll(List.of("cluster", "start", "--config", config.toAbsolutePath().toString()));
                if (described.dir() == null) cmd.addAll(List.of("--dir", d.toString()));
            } else {
                cmd.addAll(List.of("cluster", "start", "--backend", backend, "--instances", Integer.toString(instances),
                        "--dir", d.toString(), "--app", app, "--scale", Integer.toString(scale), "--seed",
                        Long.toString(seed)));
                cmd.addAll(apps.arguments());
                if (insecure) cmd.add("--insecure");
                if (bind != null) cmd.addAll(List.of("--bind", bind));
                if (replicas > 1) cmd.addAll(List.of("--replicas", Integer.toString(replicas)));
                if (config != null) cmd.addAll(List.of("--config", config.toAbsolutePath().toString()));
            }
            if (Logging.level() != null) cmd.addAll(List.of("--log-level", Logging.level()));
            Files.deleteIfExists(log);
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
            while (System.nanoTime() < deadline) {
                String text = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
                if (text.contains(READY)) {
                    System.out.print(text);
                    System.out.println("gyro cluster: running in the background; its log is " + log);
                    return 0;
                }
                if (!p.isAlive() && !text.contains(READY)) {
                    System.out.print(text);
                    System.err.println("gyro cluster: the background cluster exited (" + p.exitValue() + "); log: " + log);
                    return 1;
                }
                Thread.sleep(100);
            }
            p.destroy();
            System.err.println("gyro cluster: the background cluster did not get ready within 300 s; log: " + log);
            return 1;
        }
    }

    // ------------------------------------------------------------------------------------------------- stop

    @Command(name = "stop", mixinStandardHelpOptions = true,
            description = "Stop the cluster running in DIR and every server it started, and remove their data "
                    + "(unless --keep-data).")
    static final class Stop implements Callable<Integer> {

        @Option(names = "--dir", defaultValue = "gyro-cluster", description = "the cluster's directory (default: ${DEFAULT-VALUE})")
        Path dir;

        @Option(names = "--keep-data", description = "keep the servers' data directories (start again on them later)")
        boolean keepData;

        @Override
        public Integer call() throws Exception {
            Path d = dir.toAbsolutePath();
            if (!Files.isDirectory(d)) {
                System.err.println("gyro cluster: no cluster directory " + d);
                return 1;
            }
            ProcessHandle h = running(d);
            if (h != null) {
                System.out.println("gyro cluster: stopping the cluster process " + h.pid() + " ...");
                h.destroy();
                try {
                    h.onExit().get(120, TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    System.out.println("gyro cluster: it did not stop within 120 s; killing it");
                    h.destroyForcibly();
                    h.onExit().get(30, TimeUnit.SECONDS);
                }
            }
            // Servers a killed cluster process could not stop.
            int servers = 0;
            for (Path s : serverDirectories(d)) {
                if (DatabaseServer.stopAnyAt(s)) System.out.println("gyro cluster: stopped the server in " + s);
                servers++;
            }
            Files.deleteIfExists(pidFile(d));
            if (!keepData) {
                for (Path s : serverDirectories(d)) deleteTree(s);
                for (String f : List.of("cluster.json", "cluster.log")) Files.deleteIfExists(d.resolve(f));
                for (String f : List.of(ReplicatedCluster.LOGS, ReplicatedCluster.CONTROL))
                    if (Files.isDirectory(d.resolve(f))) deleteTree(d.resolve(f));
                if (Files.isDirectory(tlsDirectory(d))) deleteTree(tlsDirectory(d));
                Files.deleteIfExists(CallCommand.sessionFile(d));
                for (int i = 0; ; i++) {
                    Path db = LocalCluster.databaseFile(d, i);
                    if (!Files.exists(db)) break;
                    for (String suffix : List.of("", "-wal", "-shm", ".lock")) Files.deleteIfExists(Path.of(db + suffix));
                }
                OwnedFolder.releaseIfEmpty(d); // the folder too, when start made it and nothing else is in it
            }
            System.out.println("gyro cluster: stopped" + (h == null && servers == 0 ? " (nothing was running)" : "")
                    + (keepData ? "; data kept in " + d : "; data removed"));
            return 0;
        }

        private static List<Path> serverDirectories(Path d) throws IOException {
            try (Stream<Path> s = Files.list(d)) {
                return s.filter(p -> Files.isDirectory(p) && p.getFileName().toString().startsWith("server-")).sorted().toList();
            }
        }

        private static void deleteTree(Path root) throws IOException {
            try (Stream<Path> all = Files.walk(root)) {
                for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------- replace

    @Command(name = "replace", mixinStandardHelpOptions = true, description = "Replace a replica of a cluster started"
            + " with --replicas whose database was lost or fell behind its group's log: its database is replaced by a"
            + " copy of its group leader's (a SQLite file, or through JDBC on PostgreSQL and MariaDB) while the group"
            + " serves, and it takes the log after the copy's index. With --new-member, its machine is lost for good:"
            + " a new member on new addresses, with a database and a log of its own, takes its place through a"
            + " membership change, and the ring and its clients reach the group at its new address.")
    static final class Replace implements Callable<Integer> {

        @Option(names = "--dir", defaultValue = "gyro-cluster", description = "the cluster's directory (default: ${DEFAULT-VALUE})")
        Path dir;

        @Option(names = "--group", required = true, description = "the instance (ring position) whose group it is")
        int group;

        @Option(names = "--replica", required = true, description = "the replica to replace (0-based; a leader hands its"
                + " leadership to another replica first)")
        int replica;

        @Option(names = "--new-member", description = "the replica's machine, database and log are gone: a new member on"
                + " new addresses (a new SQLite file, or a new server's database) takes its place")
        boolean newMember;

        @Override
        public Integer call() throws Exception {
            Path d = dir.toAbsolutePath();
            if (running(d) == null) {
                System.err.println("gyro cluster: nothing runs in " + d);
                return 3;
            }
            if (group < 0 || replica < 0) {
                System.err.println("gyro cluster: --group and --replica are 0 or more, were " + group + " and " + replica);
                return 2;
            }
            return ReplicatedCluster.requestReplace(d, group, replica, newMember, System.out, System.err);
        }
    }

    /**
     * The JDBC URL of an instance of {@code cluster.json} ({@code instances[i]}) to connect with: {@code jdbcUrl}
     * hides a password, which a throwaway server started by the cluster keeps in its directory (mode 0600).
     */
    static String jdbcUrl(JsonNode instance) {
        String shown = instance.get("jdbcUrl").asText();
        JsonNode server = instance.path("server").path("directory");
        return server.isMissingNode() ? shown : DatabaseServer.withPassword(shown, Path.of(server.asText()));
    }

    // ----------------------------------------------------------------------------------------------- status

    @Command(name = "status", mixinStandardHelpOptions = true, description = "Say whether a cluster runs in DIR, and ask"
            + " each of its instances how it is (role, last gsn, queued globals, requests/s, up or unreachable).")
    static final class Status implements Callable<Integer> {

        @Option(names = "--dir", defaultValue = "gyro-cluster", description = "the cluster's directory (default: ${DEFAULT-VALUE})")
        Path dir;

        @Override
        public Integer call() throws Exception {
            Path d = dir.toAbsolutePath();
            ProcessHandle h = running(d);
            if (h == null) {
                System.out.println("gyro cluster: nothing runs in " + d);
                return 3;
            }
            JsonNode info = JSON.readTree(infoFile(d).toFile());
            System.out.printf("gyro cluster: pid %d, %d instances of %s on %s%n", h.pid(), info.get("instances").size(),
                    info.get("application").asText(), info.get("backend").asText());
            List<String> addresses = new ArrayList<>();
            for (JsonNode n : info.get("instances")) {
                System.out.printf("  instance %d  %-21s  database %s  http %s%n", n.get("id").asInt(),
                        n.get("address").asText(), n.get("jdbcUrl").asText(), n.path("http").asText("-"));
                addresses.add(n.get("address").asText());
            }
            // asked with the cluster's client certificate (or plaintext for an --insecure cluster)
            return StatusCommand.print(System.out, addresses, clientTransport(d));
        }
    }
}
