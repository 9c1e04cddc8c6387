package dev.gyro.cli;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.apps.store.StoreAudit;
import dev.gyro.check.ReplicaCheck;
import dev.gyro.client.GyroClient;
import dev.gyro.cluster.Backend;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Transport;
import dev.gyro.wire.Wire;
import dev.gyro.wire.tls.Certificates;
import dev.gyro.wire.tls.TlsFiles;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCalls;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.Color;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code gyro bench faults}: the faults a production cluster meets, injected one at a time into a ring of replicated
 * groups whose every replica is a process of its own ({@code gyro instance --replica}, mutual TLS), under a load of
 * local and global requests sent through {@link GyroClient} with deadlines and request ids
 * (docs/decisions/24-ring-on-groups.md, 37-request-ids.md, 39-frozen-replica.md). Faults: a group leader killed
 * (SIGKILL, restarted once its group serves again), a leader frozen (SIGSTOP for some seconds, then SIGCONT), a leader's
 * database server killed (PostgreSQL, crashed and started again). Per fault, what the clients saw: the time from the
 * fault to the first acknowledged request of the group sent after it, the longest gap between acknowledged requests of
 * the group and of the ring's global requests, and the group's leader changes. At the end the check: every
 * acknowledged request present exactly once on every replica, the replicas of each group equal, the store's audit.
 */
final class FaultsBenchmark {

    static final String NAME = "faults";
    /** The longest a fault may keep its group from serving before the run counts it as not recovered. */
    private static final long RECOVERY_LIMIT_MS = 120_000;
    private static final long SEED = 42;
    private static final long CART_BASE = 1_000_000_000L;

    enum Kind {
        KILL("leader kill"), FREEZE("leader freeze"), DB_KILL("database-server kill");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /**
     * @param groups        ring positions, each a group of {@code replicas}
     * @param freezeSeconds how long a frozen leader stays stopped
     * @param dbDownSeconds how long a killed database server stays down
     * @param quietSeconds  the load runs undisturbed this long between faults (after the group caught up)
     * @param deadlineMs    each client call's deadline
     */
    record Settings(boolean quick, Backend backend, int groups, int replicas, int kills, int freezes, int freezeSeconds,
                    int dbKills, int dbDownSeconds, int quietSeconds, int localClientsPerGroup, int orderClients,
                    long deadlineMs) {

        static Settings of(boolean quick, Backend backend, Integer kills, Integer freezes, Integer freezeSeconds,
                           Integer dbKills) {
            boolean server = backend != Backend.SQLITE;
            // 20 kills: a p99 that is not just the worst of a handful; freezes of 60 s, a long pause as production meets it
            Settings s = new Settings(quick, backend, quick ? 2 : 3, 3, kills != null ? kills : quick ? 1 : 20,
                    freezes != null ? freezes : quick ? 1 : 3, freezeSeconds != null ? freezeSeconds : quick ? 3 : 60,
                    dbKills != null ? dbKills : server ? (quick ? 1 : 4) : 0, 5, quick ? 2 : 5, 2, 2, 10_000);
            if (s.kills < 0 || s.freezes < 0 || s.dbKills < 0)
                throw new IllegalArgumentException("--kills, --freezes and --db-kills are counts, 0 or more");
            if (s.freezeSeconds < 1) throw new IllegalArgumentException("--freeze-seconds is at least 1");
            if (s.dbKills > 0 && backend != Backend.POSTGRES)
                throw new IllegalArgumentException("--db-kills kills PostgreSQL servers: give --backend postgres");
            if (s.kills + s.freezes + s.dbKills == 0) throw new IllegalArgumentException("no fault to inject");
            return s;
        }

        int faults() {
            return kills + freezes + dbKills;
        }
    }

    /** One fault and what the clients saw of it; times in ms, -1 when it did not happen within the limit. */
    record Fault(int number, Kind kind, int group, int replica, double atSeconds, long recoveryMs, long longestGapMs,
                 long globalGapMs, int leaderChanges, long electedMs, long servingMs, int newLeader,
                 double loadAverage) {}

    private final Settings settings;
    private final Path out;
    private final Path work;
    private final PrintStream print;
    private final String command;
    private final long started = System.nanoTime();

    private final List<List<String>> gyro = new ArrayList<>();
    private final List<String> groupLogs = new ArrayList<>();
    private final List<String> ring = new ArrayList<>();
    private Process[][] processes;
    private String[][] databases;
    private LocalCluster dbs;
    private Transport transport;

    /** Per group, [sent, acknowledged] nanos of every acknowledged request of the group; the same for globals. */
    private final List<List<long[]>> acks = new ArrayList<>();
    private final List<long[]> globalAcks = new ArrayList<>();
    /** What the clients saw acknowledged, and the writes whose outcome they did not learn. */
    private final Set<Long> ackedCarts = ConcurrentHashMap.newKeySet(), ackedOrders = ConcurrentHashMap.newKeySet();
    private final Set<String> ackedLines = ConcurrentHashMap.newKeySet();
    private final AtomicLong unacknowledgedOrders = new AtomicLong(), failedCalls = new AtomicLong();
    private final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
    private final List<Double> loads = new ArrayList<>();
    /** The faults injected so far, and what went wrong (a run that stops early still reports those). */
    private final List<Fault> faults = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();

    FaultsBenchmark(Settings settings, Path out, PrintStream print, String command) {
        this.settings = settings;
        this.out = out;
        this.work = out.resolve(".work");
        this.print = print;
        this.command = command;
    }

    int run() throws Exception {
        Settings s = settings;
        print.printf(Locale.ROOT, "Gyro bench faults: %d instances of the online store on %s, each a group of %d replicas,"
                        + " every replica its own process (mutual TLS); %d local clients per group, %d ordering; faults one"
                        + " at a time, %d s quiet between: %d leader kills, %d leader freezes of %d s, %d database-server"
                        + " kills of %d s%n", s.groups(), s.backend().label(), s.replicas(), s.localClientsPerGroup(),
                s.orderClients(), s.quietSeconds(), s.kills(), s.freezes(), s.freezeSeconds(), s.dbKills(),
                s.dbDownSeconds());
        loads.add(loadAverage());
        OwnedFolder.fresh(work, "--out");
        try {
            start();
            inject();
            problems.addAll(check());
        } catch (RuntimeException | AssertionError e) {
            problems.add(e.getMessage());
        } finally {
            stopAll();
            if (dbs != null) dbs.close();
        }
        loads.add(loadAverage());
        double wall = (System.nanoTime() - started) / 1e9;
        for (Fault f : faults) if (f.recoveryMs() < 0)
            problems.add(f.kind().label + " " + f.number() + ": group " + f.group() + " did not serve again within "
                    + RECOVERY_LIMIT_MS / 1000 + " s");
        String table = table(faults);
        print.println();
        print.print(table);
        Files.writeString(out.resolve("results.csv"), csv(faults));
        String plot = plot(faults);
        Files.writeString(out.resolve("summary.md"), summary(faults, table, problems, plot, wall));
        print.printf(Locale.ROOT, "%nwrote %s, %s%s (%.0f s)%n", out.resolve("summary.md"), out.resolve("results.csv"),
                plot == null ? "" : ", " + out.resolve(plot), wall);
        keepLogs();
        if (problems.isEmpty()) {
            OwnedFolder.delete(work);
            print.printf("bench: OK (faults, %d injected, every acknowledged request present once on every replica,"
                    + " replicas equal)%n", faults.size());
            return 0;
        }
        print.println("bench: FAILED: " + String.join("; ", problems) + " (the replicas' logs: " + out.resolve("logs")
                + ")");
        return 1;
    }

    /** What the replicas said (elections and leader changes among it), kept beside the results as gzip files. */
    private void keepLogs() throws IOException {
        Path from = work.resolve("logs");
        if (!Files.isDirectory(from)) return;
        Path to = Files.createDirectories(out.resolve("logs"));
        try (var logs = Files.list(from)) {
            for (Path log : logs.filter(f -> f.getFileName().toString().endsWith(".log")).toList())
                try (var gz = new java.util.zip.GZIPOutputStream(Files.newOutputStream(to.resolve(log.getFileName()
                        + ".gz")))) {
                    Files.copy(log, gz);
                }
        }
    }

    // ---- the cluster ------------------------------------------------------------------------------------------------

    private void start() throws Exception {
        Settings s = settings;
        int n = s.groups() * s.replicas();
        processes = new Process[s.groups()][s.replicas()];
        databases = new String[s.groups()][s.replicas()];
        progress("creating %d %s and loading the store", n, s.backend() == Backend.SQLITE ? "SQLite databases"
                : s.backend().label() + " servers");
        dbs = LocalCluster.create(s.backend(), work.resolve("db"), new OnlineStore(), n, 1, SEED, k -> {});
        List<Integer> ports = dev.gyro.servers.FreePorts.take(2 * n);
        for (int g = 0, k = 0; g < s.groups(); g++) {
            List<String> gs = new ArrayList<>(), ls = new ArrayList<>();
            for (int r = 0; r < s.replicas(); r++) {
                gs.add("127.0.0.1:" + ports.get(k++));
                ls.add("127.0.0.1:" + ports.get(k++));
                int i = g * s.replicas() + r;
                databases[g][r] = s.backend() == Backend.SQLITE ? dbs.databaseFile(i).toString() : dbs.jdbcUrl(i);
            }
            gyro.add(gs);
            groupLogs.add(String.join("+", ls));
            ring.add(String.join("+", gs));
            acks.add(new ArrayList<>());
        }
        Certificates.createCluster(work.resolve("tls"), "faults-" + java.util.UUID.randomUUID(), s.groups(), List.of());
        transport = Transport.mutualTls(new TlsFiles(work.resolve("tls")), Certificates.CLIENT);
        progress("starting %d replica processes", n);
        List<Thread> starting = new ArrayList<>();
        List<String> failed = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int g = 0; g < s.groups(); g++)
            for (int r = 0; r < s.replicas(); r++) {
                int group = g, replica = r;
                Thread t = new Thread(() -> {
                    try {
                        processes[group][replica] = launch(group, replica);
                    } catch (Exception e) {
                        failed.add(e.getMessage());
                    }
                });
                starting.add(t);
                t.start();
            }
        for (Thread t : starting) t.join();
        if (!failed.isEmpty()) throw new IllegalStateException(String.join("; ", failed));
        for (int g = 0; g < s.groups(); g++) leader(g);
        progress("every group has a leader");
    }

    private Process launch(int group, int replica) throws IOException {
        Path log = logOf(group, replica);
        Files.createDirectories(log.getParent());
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-cp", System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                // elections and leader changes, for the count of leader changes per fault
                "-Dorg.slf4j.simpleLogger.log.org.apache.ratis.server.impl=info",
                "-Dorg.slf4j.simpleLogger.log.dev.gyro.runtime.LeaderWarmUp=debug",
                "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-Dorg.slf4j.simpleLogger.dateTimeFormat=" + LOG_TIME,
                Gyro.class.getName(), "instance", "--id", Integer.toString(group), "--replica", Integer.toString(replica),
                "--ring", String.join(",", ring), "--group-log", groupLogs.get(group), "--seed", Long.toString(SEED),
                "--tls-dir", work.resolve("tls").toString(), "--http", "none",
                "--log-dir", work.resolve("logs").resolve("group-" + group + "-replica-" + replica + ".group-log").toString()));
        if (settings.backend() == Backend.SQLITE) cmd.addAll(List.of("--db", databases[group][replica]));
        else cmd.addAll(List.of("--jdbc-url", databases[group][replica]));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        var w = Files.newBufferedWriter(log, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        String ready = "gyro instance " + group + " replica " + replica;
        for (String line; (line = in.readLine()) != null; ) {
            w.write(line + "\n");
            if (line.startsWith(ready)) break;
        }
        w.flush();
        if (!p.isAlive()) {
            w.close();
            throw new IllegalStateException("replica " + replica + " of instance " + group + " did not start: "
                    + tail(log));
        }
        Thread drain = new Thread(() -> {
            try (w) {
                for (String line; (line = in.readLine()) != null; ) {
                    w.write(line + "\n");
                    w.flush();
                }
            } catch (IOException ended) {
                // the process ended
            }
        }, "faults-log-" + group + "-" + replica);
        drain.setDaemon(true);
        drain.start();
        return p;
    }

    private Path logOf(int group, int replica) {
        return work.resolve("logs").resolve("group-" + group + "-replica-" + replica + ".log");
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
    }

    /** The replica that leads {@code group}: the only one whose Gyro address answers (only the leader listens). */
    private int leader(int group) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RECOVERY_LIMIT_MS);
        while (System.nanoTime() < deadline) {
            for (int r = 0; r < settings.replicas(); r++) {
                ManagedChannel ch = transport.channel(gyro.get(group).get(r));
                try {
                    ClientCalls.blockingUnaryCall(ch, Wire.STATUS, CallOptions.DEFAULT.withDeadlineAfter(2,
                            TimeUnit.SECONDS), new byte[0]);
                    return r;
                } catch (RuntimeException notListening) {
                    // a follower, a frozen replica or one that is down
                } finally {
                    ch.shutdownNow();
                }
            }
            Thread.sleep(50); // mid-election: no replica listens yet, and there is no event to wait on from here
        }
        throw new IllegalStateException("group " + group + " had no leader for " + RECOVERY_LIMIT_MS / 1000 + " s");
    }

    private void stopAll() throws InterruptedException {
        if (processes == null) return;
        for (Process[] g : processes) for (Process p : g) if (p != null) signal(p, "CONT");
        for (Process[] g : processes) for (Process p : g) if (p != null) p.destroy(); // SIGTERM: a clean shutdown
        for (Process[] g : processes)
            for (Process p : g)
                if (p != null && !p.waitFor(30, TimeUnit.SECONDS)) p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }

    private static void signal(Process p, String signal) {
        try {
            new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start().waitFor(10, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException("cannot send SIG" + signal + " to " + p.pid() + ": " + e.getMessage(), e);
        }
    }

    // ---- the load and the faults ------------------------------------------------------------------------------------

    private void inject() throws Exception {
        Settings s = settings;
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> clients = new ArrayList<>();
        List<GyroClient> connections = new ArrayList<>();
        PartitionMap map = PartitionMap.uniform(s.groups());
        int threads = s.groups() * s.localClientsPerGroup() + s.orderClients();
        for (int t = 0; t < threads; t++) {
            GyroClient client = GyroClient.connect(ring, s.deadlineMs(), -1, transport);
            connections.add(client);
            int id = t;
            int group = t < s.groups() * s.localClientsPerGroup() ? t % s.groups() : -1; // -1: an ordering client
            Thread th = new Thread(() -> load(client, map, id, group, stop), "faults-client-" + t);
            clients.add(th);
            th.start();
        }
        try {
            quiet(s.quietSeconds());
            List<Kind> plan = new ArrayList<>();
            for (int i = 0; i < s.kills(); i++) plan.add(Kind.KILL);
            for (int i = 0; i < s.freezes(); i++) plan.add(Kind.FREEZE);
            for (int i = 0; i < s.dbKills(); i++) plan.add(Kind.DB_KILL);
            int[] ofKind = new int[Kind.values().length];
            for (int i = 0; i < plan.size(); i++) {
                Kind kind = plan.get(i);
                int group = ofKind[kind.ordinal()]++ % s.groups();
                Fault f = fault(i + 1, kind, group, map);
                faults.add(f);
                if (f.recoveryMs() < 0) break;
            }
        } finally {
            stop.set(true);
            for (Thread t : clients) t.join(TimeUnit.MILLISECONDS.toMillis(3 * s.deadlineMs()));
            for (GyroClient c : connections) c.close();
        }
        for (Thread t : clients) if (t.isAlive()) problems.add(t.getName() + " still waits for a reply after the run");
    }

    /** One client: a local one writes carts of its group (a cart, two items); an ordering one also orders each cart. */
    private void load(GyroClient client, PartitionMap map, int id, int group, AtomicBoolean stop) {
        SplittableRandom random = new SplittableRandom(id);
        long cart = CART_BASE * (id + 1);
        while (!stop.get()) {
            cart++;
            int owner = map.instanceOf(new Value.Int(cart));
            if (group >= 0 && owner != group) continue;
            if (!call(client, owner, "createCart", cart)) continue;
            ackedCarts.add(cart);
            long first = 1 + random.nextInt(OnlineStore.ITEMS_PER_SCALE / 2);
            for (long item : new long[] {first, first + 1 + random.nextInt(OnlineStore.ITEMS_PER_SCALE / 2 - 1)})
                if (call(client, owner, "addItem", cart, item, 1)) ackedLines.add(cart + "/" + item);
            if (group >= 0) continue;
            long sent = System.nanoTime();
            Reply r = client.call("order", cart);
            if (r.ok()) {
                long now = System.nanoTime();
                synchronized (globalAcks) {
                    globalAcks.add(new long[] {sent, now});
                }
                ackedOrders.add(cart);
            } else {
                unacknowledgedOrders.incrementAndGet();
                failed(r);
            }
        }
    }

    private boolean call(GyroClient client, int group, String tx, Object... args) {
        long sent = System.nanoTime();
        Reply r = client.call(tx, args);
        if (!r.ok()) {
            failed(r);
            return false;
        }
        long now = System.nanoTime();
        List<long[]> list = acks.get(group);
        synchronized (list) {
            list.add(new long[] {sent, now});
        }
        return true;
    }

    private void failed(Reply r) {
        failedCalls.incrementAndGet();
        String m = r.message() == null ? "" : r.message();
        String key = r.status() + ": " + m.replaceAll("[0-9a-f]{8}-[0-9a-f-]{27}", "ID").replaceAll("\\d+", "N");
        failures.computeIfAbsent(key.length() > 160 ? key.substring(0, 160) + "..." : key, k -> new AtomicLong())
                .incrementAndGet();
    }

    private Fault fault(int number, Kind kind, int group, PartitionMap map) throws Exception {
        int victim = leader(group);
        Process p = processes[group][victim];
        long[] logSizes = logSizes(group);
        long at = System.nanoTime(), atMillis = System.currentTimeMillis();
        String what = switch (kind) {
            case KILL -> {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL
                yield "killed (SIGKILL)";
            }
            case FREEZE -> {
                signal(p, "STOP");
                yield "frozen (SIGSTOP) for " + settings.freezeSeconds() + " s";
            }
            case DB_KILL -> {
                dbs.server(group * settings.replicas() + victim).crash();
                yield "has its database server killed for " + settings.dbDownSeconds() + " s";
            }
        };
        progress("%s %d: group %d's leader (replica %d) %s", kind.label, number, group, victim, what);
        long endOfFault = at + TimeUnit.SECONDS.toNanos(switch (kind) {
            case KILL -> 0;
            case FREEZE -> settings.freezeSeconds();
            case DB_KILL -> settings.dbDownSeconds();
        });
        long recovered = -1;
        long limit = at + TimeUnit.MILLISECONDS.toNanos(RECOVERY_LIMIT_MS);
        boolean ended = kind == Kind.KILL;
        while (System.nanoTime() < limit) {
            if (recovered < 0) recovered = firstAckSentAfter(acks.get(group), at);
            if (!ended && System.nanoTime() >= endOfFault) {
                if (kind == Kind.FREEZE) signal(p, "CONT");
                else dbs.server(group * settings.replicas() + victim).start();
                ended = true;
            }
            if (recovered >= 0 && ended) break;
            Thread.sleep(20); // the load's acknowledgements come from the clients' threads, looked at here
        }
        if (!ended) {
            if (kind == Kind.FREEZE) signal(p, "CONT");
            else if (kind == Kind.DB_KILL) dbs.server(group * settings.replicas() + victim).start();
        }
        long recoveryMs = recovered < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(recovered - at);
        if (kind == Kind.KILL) processes[group][victim] = launch(group, victim);
        relaunchExited();
        if (recoveryMs >= 0) catchUp(group, kind.label + " " + number);
        quiet(settings.quietSeconds());
        long windowEnd = System.nanoTime();
        long gap = longestGap(acks.get(group), at, windowEnd), globalGap = longestGap(globalAcks, at, windowEnd);
        long[] changes = leaderChanges(group, logSizes, atMillis);
        double load = loadAverage();
        synchronized (loads) {
            loads.add(load);
        }
        Fault f = new Fault(number, kind, group, victim, (at - started) / 1e9, recoveryMs, gap, globalGap, (int) changes[0],
                changes[1], changes[2], recoveryMs < 0 ? -1 : leader(group), load);
        progress("%s %d: group %d served again %s after the fault (a new leader %s, serving %s); longest gap %.1f s"
                        + " (globals %.1f s); %d leader change(s), now replica %d leads; load average %.1f", kind.label,
                number, group, recoveryMs < 0 ? "NOT" : seconds(recoveryMs), seconds(f.electedMs()),
                seconds(f.servingMs()), gap / 1000.0, globalGap / 1000.0, f.leaderChanges(), f.newLeader(), load);
        return f;
    }

    /** Replicas that ended by themselves (fail-stop) are started again, as an operator's supervisor would. */
    private void relaunchExited() throws IOException {
        for (int g = 0; g < settings.groups(); g++)
            for (int r = 0; r < settings.replicas(); r++)
                if (!processes[g][r].isAlive()) {
                    progress("replica %d of group %d had exited (status %d): started again", r, g,
                            processes[g][r].exitValue());
                    processes[g][r] = launch(g, r);
                }
    }

    private static long firstAckSentAfter(List<long[]> list, long at) {
        long first = -1;
        synchronized (list) {
            for (int i = list.size() - 1; i >= 0; i--) {
                long[] a = list.get(i);
                if (a[1] < at) break;
                if (a[0] >= at && (first < 0 || a[1] < first)) first = a[1];
            }
        }
        return first;
    }

    /** The longest time without an acknowledgement from the last one before {@code from} to {@code to}. */
    private static long longestGap(List<long[]> list, long from, long to) {
        List<Long> times = new ArrayList<>();
        synchronized (list) {
            for (long[] a : list) if (a[1] <= to) times.add(a[1]);
        }
        times.sort(null);
        long previous = from, longest = 0;
        for (long t : times) {
            if (t < from) {
                previous = t;
                continue;
            }
            longest = Math.max(longest, t - previous);
            previous = t;
        }
        longest = Math.max(longest, to - previous);
        return TimeUnit.NANOSECONDS.toMillis(longest);
    }

    private void quiet(int seconds) throws InterruptedException {
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds)); // the undisturbed load between faults: a time by design
    }

    /**
     * Until every replica of {@code group} caught up with its group's log. One that does not within the limit is a
     * problem of the run, reported; it is then restarted (as a supervisor would) and must catch up once restarted.
     */
    private void catchUp(int group, String after) throws Exception {
        int behind = awaitCaughtUp(group);
        if (behind < 0) return;
        problems.add("after " + after + ", replica " + behind + " of group " + group + " did not catch up with its"
                + " group's log within " + RECOVERY_LIMIT_MS / 1000 + " s (its log: logs/group-" + group + "-replica-"
                + behind + ".log.gz)");
        progress("after %s, replica %d of group %d did not catch up within %d s: restarted", after, behind, group,
                RECOVERY_LIMIT_MS / 1000);
        processes[group][behind].destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        processes[group][behind] = launch(group, behind);
        if (awaitCaughtUp(group) >= 0)
            throw new IllegalStateException("replica " + behind + " of group " + group + " did not catch up even once"
                    + " restarted");
    }

    /**
     * Until every replica of {@code group} has applied its group's log at least as far as any replica had when this
     * began (read from each replica's database, where the applied log index is recorded with the rows); the first
     * replica that did not within the limit, or -1.
     */
    private int awaitCaughtUp(int group) throws Exception {
        long target = 0;
        for (int r = 0; r < settings.replicas(); r++) target = Math.max(target, appliedIndex(group, r));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RECOVERY_LIMIT_MS);
        for (int r = 0; r < settings.replicas(); r++)
            while (appliedIndex(group, r) < target) {
                if (System.nanoTime() > deadline) return r;
                Thread.sleep(100); // applied by another process, seen in its database
            }
        return -1;
    }

    private long appliedIndex(int group, int replica) {
        try (Connection c = connect(group, replica); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT applied_index FROM gyro_replica")) {
            return rs.next() ? rs.getLong(1) : -1;
        } catch (SQLException e) {
            return -1; // its database is down or not yet claimed
        }
    }

    private Connection connect(int group, int replica) throws SQLException {
        String t = databases[group][replica];
        return DriverManager.getConnection(Dialect.forTarget(t).jdbcUrl(t));
    }

    private long[] logSizes(int group) throws IOException {
        long[] sizes = new long[settings.replicas()];
        for (int r = 0; r < sizes.length; r++) sizes[r] = Files.exists(logOf(group, r)) ? Files.size(logOf(group, r)) : 0;
        return sizes;
    }

    /** How the replicas stamp their log lines, so that a line's time can be read back. */
    private static final String LOG_TIME = "yyyy-MM-dd'T'HH:mm:ss.SSSZ";
    /**
     * Ratis, when a replica takes up leading its group (its peer id: {@code replica-R-HOST-PORT}, docs/decisions/47);
     * Gyro, when the replica's instance serves.
     */
    static final Pattern BECAME_LEADER = Pattern.compile("(?m)^(\\S+) .* start replica-\\d+(?:-[^@\\s]+)?@\\S+-LeaderStateImpl$"),
            SERVING = Pattern.compile("(?m)^(\\S+) .* instance \\d+ runs at replica \\d+ of its group \\(leader\\)");

    /**
     * From what {@code group}'s replicas logged since {@code sizes}: how many times one of them took up leading, and the
     * ms from {@code atMillis} to the first time one did and to the first time its instance served (-1: not seen).
     */
    private long[] leaderChanges(int group, long[] sizes, long atMillis) throws IOException {
        long changes = 0, elected = Long.MAX_VALUE, serving = Long.MAX_VALUE;
        for (int r = 0; r < settings.replicas(); r++) {
            Path log = logOf(group, r);
            if (!Files.exists(log)) continue;
            byte[] all = Files.readAllBytes(log);
            int from = (int) Math.min(sizes[r], all.length);
            String text = new String(all, from, all.length - from, StandardCharsets.UTF_8);
            Matcher m = BECAME_LEADER.matcher(text);
            while (m.find()) {
                changes++;
                elected = Math.min(elected, logTime(m.group(1)));
            }
            Matcher s = SERVING.matcher(text);
            while (s.find()) serving = Math.min(serving, logTime(s.group(1)));
        }
        return new long[] {changes, elected == Long.MAX_VALUE ? -1 : Math.max(0, elected - atMillis),
                serving == Long.MAX_VALUE ? -1 : Math.max(0, serving - atMillis)};
    }

    private static long logTime(String stamp) {
        try {
            return new java.text.SimpleDateFormat(LOG_TIME, Locale.ROOT).parse(stamp).getTime();
        } catch (java.text.ParseException e) {
            return Long.MAX_VALUE;
        }
    }

    private static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    private void progress(String format, Object... args) {
        print.printf(Locale.ROOT, "[%4.0fs] %s%n", (System.nanoTime() - started) / 1e9,
                String.format(Locale.ROOT, format, args));
    }

    // ---- the check --------------------------------------------------------------------------------------------------

    /**
     * Once the load stopped and every group's replicas applied the same log: each group's replicas equal in every table
     * (Gyro's metadata included), the replicated tables equal across groups, every acknowledged cart, cart line and
     * order present on every replica exactly once (a line added twice would have quantity 2), every replica's
     * applied gsn equal to its orders (each global applied once), no order present that no client may have sent.
     */
    private List<String> check() throws Exception {
        Settings s = settings;
        List<String> found = new ArrayList<>();
        for (int g = 0; g < s.groups(); g++) awaitSameIndex(g);
        stopAll();
        processes = null;
        PartitionMap map = PartitionMap.uniform(s.groups());
        Set<String> acrossGroups = new HashSet<>();
        long lost = 0, twice = 0;
        for (int g = 0; g < s.groups(); g++) {
            List<Connection> conns = new ArrayList<>();
            try {
                for (int r = 0; r < s.replicas(); r++) conns.add(connect(g, r));
                for (String d : ReplicaCheck.compareReplicas(conns).differences()) found.add("group " + g + ": " + d);
                for (String table : new OnlineStore().replicatedTables())
                    acrossGroups.add(table + "=" + ReplicaCheck.digest(conns.get(0), table, 0).sha256());
                for (int r = 0; r < s.replicas(); r++) {
                    Map<String, Long> lines = new HashMap<>();
                    Set<Long> orders = new HashSet<>();
                    try (Statement st = conns.get(r).createStatement()) {
                        try (ResultSet rs = st.executeQuery("SELECT CART_ID, ITEM_ID, QTY FROM SHOPPING_CARTS")) {
                            while (rs.next()) lines.put(rs.getLong(1) + "/" + rs.getLong(2), rs.getLong(3));
                        }
                        try (ResultSet rs = st.executeQuery("SELECT CART_ID FROM ORDERS")) {
                            while (rs.next()) orders.add(rs.getLong(1));
                        }
                        long gsn;
                        try (ResultSet rs = st.executeQuery("SELECT last_gsn FROM gyro_state")) {
                            gsn = rs.next() ? rs.getLong(1) : -1;
                        }
                        if (gsn != orders.size()) {
                            twice++;
                            found.add("replica " + r + " of group " + g + ": applied gsn " + gsn + " but "
                                    + orders.size() + " orders");
                        }
                    }
                    for (long cart : ackedCarts)
                        if (map.instanceOf(new Value.Int(cart)) == g && !lines.containsKey(cart + "/0")) lost++;
                    for (String line : ackedLines) {
                        long cart = Long.parseLong(line.substring(0, line.indexOf('/')));
                        if (map.instanceOf(new Value.Int(cart)) != g) continue;
                        Long qty = lines.get(line);
                        if (qty == null) lost++;
                    }
                    for (Map.Entry<String, Long> e : lines.entrySet())
                        if (!e.getKey().endsWith("/0") && e.getValue() > 1) twice++;
                    for (long o : ackedOrders) if (!orders.contains(o)) lost++;
                    long unexplained = orders.stream().filter(o -> !ackedOrders.contains(o)).count();
                    if (unexplained > unacknowledgedOrders.get())
                        found.add("replica " + r + " of group " + g + " holds " + unexplained + " orders no client"
                                + " saw acknowledged, more than the " + unacknowledgedOrders.get() + " left unanswered");
                }
            } finally {
                for (Connection c : conns) c.close();
            }
        }
        if (acrossGroups.size() != new OnlineStore().replicatedTables().size())
            found.add("the replicated tables differ between groups");
        if (lost > 0) found.add(lost + " acknowledged writes missing on a replica");
        if (twice > 0) found.add(twice + " writes applied twice");
        List<Connection> one = new ArrayList<>();
        try {
            for (int g = 0; g < s.groups(); g++) one.add(connect(g, 0));
            long[] initial = OnlineStore.initialStock(OnlineStore.ITEMS_PER_SCALE, OnlineStore.MIN_STOCK, SEED);
            found.addAll(StoreAudit.audit(one, map, initial, -1));
        } finally {
            for (Connection c : one) c.close();
        }
        checked = String.format(Locale.ROOT, "%,d carts, %,d cart lines and %,d orders acknowledged; %d lost, %d applied"
                        + " twice, on each of %d replicas; %,d calls not acknowledged (%,d orders)", ackedCarts.size(),
                ackedLines.size(), ackedOrders.size(), lost, twice, s.groups() * s.replicas(), failedCalls.get(),
                unacknowledgedOrders.get());
        checked += found.isEmpty() ? "; replicas equal, audit holds: OK" : "; FAILED: " + String.join("; ", found);
        progress("check: %s", checked);
        return found;
    }

    private String checked = "not reached";

    /** Until the replicas of {@code group} have applied the same log index twice in a row (the load has stopped). */
    private void awaitSameIndex(int group) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RECOVERY_LIMIT_MS);
        String previous = "";
        while (System.nanoTime() < deadline) {
            Set<Long> indexes = new HashSet<>();
            for (int r = 0; r < settings.replicas(); r++) indexes.add(appliedIndex(group, r));
            String now = indexes.toString();
            if (indexes.size() == 1 && now.equals(previous)) return;
            previous = now;
            Thread.sleep(200); // applied by other processes, seen in their databases
        }
        throw new IllegalStateException("the replicas of group " + group + " did not reach the same log index: "
                + previous);
    }

    // ---- the report -------------------------------------------------------------------------------------------------

    private static long percentile(List<Long> sorted, double p) {
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * p / 100) - 1)));
    }

    private static String spread(List<Fault> faults, Kind kind, java.util.function.ToLongFunction<Fault> value) {
        List<Long> v = new ArrayList<>();
        for (Fault f : faults) if (f.kind() == kind && value.applyAsLong(f) >= 0) v.add(value.applyAsLong(f));
        if (v.isEmpty()) return "-";
        v.sort(null);
        return String.format(Locale.ROOT, "%.2f / %.2f / %.2f s", percentile(v, 50) / 1000.0, percentile(v, 99) / 1000.0,
                v.get(v.size() - 1) / 1000.0);
    }

    static String table(List<Fault> faults) {
        StringBuilder t = new StringBuilder("| fault | n | served again after, p50 / p99 / max | longest gap of the"
                + " group, p50 / p99 / max | longest gap of globals, p50 / p99 / max | a new leader, p50 / p99 / max |"
                + " its instance serving, p50 / p99 / max | leader changes per fault |\n|---|---|---|---|---|---|---|---|\n");
        for (Kind k : Kind.values()) {
            List<Fault> of = faults.stream().filter(f -> f.kind() == k).toList();
            if (of.isEmpty()) continue;
            t.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %s | %s |%n", k.label, of.size(),
                    spread(faults, k, Fault::recoveryMs), spread(faults, k, Fault::longestGapMs),
                    spread(faults, k, Fault::globalGapMs), spread(faults, k, Fault::electedMs),
                    spread(faults, k, Fault::servingMs), of.stream().map(f -> Integer.toString(f.leaderChanges()))
                            .reduce((a, b) -> a + ", " + b).orElse("")));
        }
        return t.toString();
    }

    private static String csv(List<Fault> faults) {
        StringBuilder c = new StringBuilder("fault,kind,group,replica,at_s,served_again_ms,longest_gap_ms,"
                + "longest_global_gap_ms,leader_changes,elected_ms,serving_ms,new_leader,load_average\n");
        for (Fault f : faults)
            c.append(String.format(Locale.ROOT, "%d,%s,%d,%d,%.1f,%d,%d,%d,%d,%d,%d,%d,%.2f%n", f.number(),
                    f.kind().name().toLowerCase(Locale.ROOT).replace('_', '-'), f.group(), f.replica(), f.atSeconds(),
                    f.recoveryMs(), f.longestGapMs(), f.globalGapMs(), f.leaderChanges(), f.electedMs(), f.servingMs(),
                    f.newLeader(),
                    f.loadAverage()));
        return c.toString();
    }

    private String plot(List<Fault> faults) throws IOException {
        XYChart chart = new XYChartBuilder().width(900).height(520)
                .title("Client-seen unavailability per fault (" + settings.groups() + " groups of " + settings.replicas()
                        + ", " + settings.backend().label() + ", separate processes)")
                .xAxisTitle("fault").yAxisTitle("seconds").build();
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        Color[] colors = {new Color(0xd62728), new Color(0x1f77b4), new Color(0x2ca02c)};
        for (Kind k : Kind.values()) {
            List<Number> x = new ArrayList<>(), served = new ArrayList<>(), gap = new ArrayList<>();
            for (Fault f : faults)
                if (f.kind() == k && f.recoveryMs() >= 0) {
                    x.add(f.number());
                    served.add(f.recoveryMs() / 1000.0);
                    gap.add(f.longestGapMs() / 1000.0);
                }
            if (x.isEmpty()) continue;
            var a = chart.addSeries(k.label + ": served again", x, served);
            a.setMarker(SeriesMarkers.CIRCLE);
            a.setMarkerColor(colors[k.ordinal()]);
            var b = chart.addSeries(k.label + ": longest gap", x, gap);
            b.setMarker(SeriesMarkers.DIAMOND);
            b.setMarkerColor(colors[k.ordinal()].darker());
        }
        if (faults.isEmpty()) return null;
        String file = "unavailability.png";
        BitmapEncoder.saveBitmap(chart, out.resolve(file).toString(), BitmapEncoder.BitmapFormat.PNG);
        return file;
    }

    private static String seconds(long ms) {
        return ms < 0 ? "-" : String.format(Locale.ROOT, "%.2f s", ms / 1000.0);
    }

    private String summary(List<Fault> faults, String table, List<String> problems, String plot, double wall) {
        Settings s = settings;
        double lo = loads.stream().mapToDouble(Double::doubleValue).filter(d -> !Double.isNaN(d)).min().orElse(Double.NaN);
        double hi = loads.stream().mapToDouble(Double::doubleValue).filter(d -> !Double.isNaN(d)).max().orElse(Double.NaN);
        StringBuilder r = new StringBuilder("# gyro bench faults").append(s.quick() ? " --quick" : "").append('\n');
        r.append("\n- command: `").append(command).append("` (commit ").append(AttachBenchmark.commit()).append(", ")
                .append(java.time.LocalDate.now()).append(String.format(Locale.ROOT, ", %.0f s)%n", wall));
        r.append("- machine: ").append(AttachBenchmark.machine()).append(String.format(Locale.ROOT,
                "; load average (1 min) %.1f-%.1f over the run%n", lo, hi));
        r.append(String.format(Locale.ROOT, "- cluster: %d instances of the online store on %s, each a group of %d"
                        + " replicas, every replica its own `gyro instance --replica` process (mutual TLS, default group"
                        + " timeouts); load: %d clients of local writes per group (a cart, two items) and %d ordering"
                        + " (global), each its own GyroClient with a %d s deadline and request ids%n", s.groups(),
                s.backend().label(), s.replicas(), s.localClientsPerGroup(), s.orderClients(), s.deadlineMs() / 1000));
        r.append(String.format(Locale.ROOT, "- faults, one at a time, %d s of undisturbed load after each (once its"
                        + " group caught up): %d leader kills (SIGKILL, restarted once the group served again), %d leader"
                        + " freezes (SIGSTOP for %d s, then SIGCONT), %d database-server kills of a leader (crashed,"
                        + " started again after %d s)%n", s.quietSeconds(), s.kills(), s.freezes(), s.freezeSeconds(),
                s.dbKills(), s.dbDownSeconds()));
        r.append("- served again: from the fault to the first acknowledged request of the group sent after it; longest"
                + " gap: the longest time without an acknowledged request of the group (or of the ring's global"
                + " requests) from the fault to the end of its quiet period; a new leader, its instance serving: from the"
                + " fault to the first replica of the group that took up leading, and to its instance serving, as the"
                + " replicas logged; leader changes: how many times a replica of the group took up leading\n");
        r.append("- check: ").append(checked).append('\n');
        if (!problems.isEmpty()) r.append("- problems: ").append(String.join("; ", problems)).append('\n');
        r.append('\n');
        r.append(table).append(plot == null ? "\n" : "\n![unavailability per fault](" + plot + ")\n\n");
        r.append("| fault | kind | group | replica | at | served again | longest gap | globals' gap | a new leader |"
                + " its instance serving | leader changes | load average |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Fault f : faults)
            r.append(String.format(Locale.ROOT, "| %d | %s | %d | %d | %.0f s | %s | %.2f s | %.2f s | %s | %s | %d | %.1f |%n",
                    f.number(), f.kind().label, f.group(), f.replica(), f.atSeconds(), f.recoveryMs() < 0 ? "not within "
                            + RECOVERY_LIMIT_MS / 1000 + " s" : String.format(Locale.ROOT, "%.2f s", f.recoveryMs() / 1000.0),
                    f.longestGapMs() / 1000.0, f.globalGapMs() / 1000.0, seconds(f.electedMs()), seconds(f.servingMs()),
                    f.leaderChanges(), f.loadAverage()));
        if (!failures.isEmpty()) {
            r.append("\nCalls not acknowledged, by answer:\n\n");
            failures.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue().get(), a.getValue().get())).limit(12)
                    .forEach(e -> r.append("- ").append(e.getValue().get()).append(" x `").append(e.getKey()
                            .replace('`', '\'')).append("`\n"));
        }
        return r.toString();
    }
}
