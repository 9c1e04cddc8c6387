package dev.gyro.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gyro.apps.store.OnlineStore;
import dev.gyro.apps.store.StoreAudit;
import dev.gyro.check.ReplicaCheck;
import dev.gyro.client.GyroClient;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.wire.Reply;
import dev.gyro.wire.RingRequest;
import dev.gyro.wire.Transport;
import dev.gyro.wire.tls.Certificates;
import dev.gyro.wire.tls.TlsFiles;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A running ring grows and shrinks with every instance its own {@code gyro instance} process (mutual TLS, each on an
 * emulated small server so that a move waits for the requests in its buckets), under clients that order: three
 * instances start, the token's holder is killed with SIGKILL at a moment of chance and started again, a fourth joins ({@code --join}, its database a copy of a member's), buckets of each first instance
 * move to it, and while each move has its buckets closed the old owner (the token's holder), the new owner, then the
 * next holder is killed with SIGKILL and started again with the same command line; then instance 0's buckets move away
 * and it leaves the ring. Afterwards, on the members: one map, every order a client saw acknowledged present once (and nothing
 * beyond the orders whose outcome was unknown), every member's last gsn equal, the replicated tables equal, and the
 * store's audit holds (docs/decisions/43-bucket-moves.md, docs/decisions/44-ring-changes.md). One class per backend
 * ({@code ElasticProcessesOn*Test}).
 */
@Tag("processes")
abstract class ElasticProcessesTest {

    static final long SEED = 42;
    /** Each instance's emulated server: 2 transactions at once, 20 ms each. */
    static final String CAPACITY = "2x20";

    /**
     * Who is killed while a move has its buckets closed: its old owner (which holds the token then: a move runs in its
     * round), its new owner, or the next holder (the member the token goes to next, with the move's update).
     */
    enum Victim { OLD_OWNER, NEW_OWNER, NEXT_HOLDER }

    final String backend;

    @TempDir
    Path dir;
    final Process[] processes = new Process[4];
    final String[] databases = new String[4];
    final List<String> ring = new ArrayList<>();
    String joinAddress;
    Path logs;

    ElasticProcessesTest(String backend) {
        this.backend = backend;
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (Process p : processes) if (p != null) p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }

    Process launch(int id) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(GyroProcesses.command());
        pb.command().addAll(List.of("instance", "--id", Integer.toString(id), "--ring", String.join(",", ring),
                "--seed", Long.toString(SEED), "--tls-dir", dir.resolve("tls").toString(), "--http", "none",
                "--server-capacity", CAPACITY, backend.equals("sqlite") ? "--db" : "--jdbc-url", databases[id]));
        if (id < 3) pb.command().addAll(List.of("--load", "1"));
        else pb.command().addAll(List.of("--join", joinAddress, "--copy-from", databases[0]));
        return GyroProcesses.start(pb, "gyro instance " + id, logs.resolve("instance-" + id + ".log"));
    }

    @Test
    void aRingOfProcessesGrowsAndShrinksThroughKillsInTheMiddleOfMovesLosingNothing() throws Exception {
        logs = Files.createDirectories(Path.of("target", "elastic-logs", backend));
        try (var old = Files.list(logs)) {
            for (Path f : old.toList()) Files.delete(f);
        }
        for (int i = 0; i < 4; i++) databases[i] = backend.equals("sqlite")
                ? LocalCluster.databaseFile(dir, i).toString() : GroupProcesses.freshDatabase(backend);
        List<Integer> ports = dev.gyro.servers.FreePorts.take(4);
        for (int i = 0; i < 3; i++) ring.add("127.0.0.1:" + ports.get(i));
        joinAddress = "127.0.0.1:" + ports.get(3);
        Certificates.createCluster(dir.resolve("tls"), "elastic-" + backend, 3, List.of());
        for (int i = 0; i < 3; i++) processes[i] = launch(i);
        // the joiner's certificate, issued the way an operator would
        assertThat(new picocli.CommandLine(new Gyro()).execute("certs", "--dir", dir.resolve("tls").toString(),
                "--add-instance", "3")).isZero();
        Transport transport = Transport.mutualTls(new TlsFiles(dir.resolve("tls")), Certificates.CLIENT);
        OrderLoad load;
        PartitionMap map;
        try (GyroClient client = GyroClient.connect(ring, 10_000, -1, transport)) {
            load = new OrderLoad(client, 4, 4);
            // first a kill at a moment of chance, of whichever instance holds the token then (or instance 0)
            load.awaitOrders(5 + new java.util.SplittableRandom(SEED).nextInt(10));
            int holder = 0;
            for (int i = 0; i < 3; i++)
                if (List.of("PRIMARY", "APPLYING", "PARKED").contains(status(client, i).path("role").asText())) holder = i;
            processes[holder].destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            processes[holder] = launch(holder);
            load.awaitOrders(load.ordersOk.get() + 10);
            processes[3] = launch(3); // joins, copies instance 0's database, serves
            for (Victim victim : Victim.values()) {
                int from = switch (victim) { // the buckets of each first instance in turn
                    case OLD_OWNER -> 0;
                    case NEW_OWNER -> 2;
                    case NEXT_HOLDER -> 1;
                };
                client.refreshRouting(from);
                int[] moving = Arrays.copyOf(client.routing().map().bucketsOf(from), 16);
                AtomicReference<List<Reply>> answer = new AtomicReference<>();
                Thread mover = new Thread(() -> answer.set(client.moveBuckets(3, moving)));
                mover.start();
                await("instance " + from + " to close buckets for the move", () ->
                        status(client, from).has("moving") || answer.get() != null);
                boolean inTheMiddle = answer.get() == null;
                int killed = switch (victim) {
                    case OLD_OWNER -> from;
                    case NEW_OWNER -> 3;
                    case NEXT_HOLDER -> from + 1; // ring order 0, 1, 2, 3
                };
                processes[killed].destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL: no shutdown hook
                System.out.printf("%s: killed instance %d (the %s) %s%n", backend, killed, victim, inTheMiddle
                        ? "while the move had its buckets closed" : "after the move was answered");
                processes[killed] = launch(killed); // the same command line; returns once it serves
                mover.join(TimeUnit.MINUTES.toMillis(3));
                assertThat(answer.get()).as("the answer of the move killed at its " + victim).isNotNull();
                // OK, or an outcome the kill left unknown to the client: never refused as asked wrongly
                assertThat(answer.get()).allMatch(r -> r.status() != Reply.Status.BAD_REQUEST);
                load.awaitOrders(load.ordersOk.get() + 10);
            }
            // instance 0 gives its buckets to the others and leaves
            client.refreshRouting(1);
            int[] zeros = client.routing().map().bucketsOf(0);
            for (int k = 0; k < 3; k++) {
                int to = k + 1;
                int[] share = java.util.stream.IntStream.range(0, zeros.length).filter(i -> i % 3 == to - 1)
                        .map(i -> zeros[i]).toArray();
                Reply moved = client.moveBuckets(to, share).get(0);
                assertThat(moved.status()).as(moved.message()).isEqualTo(Reply.Status.OK);
            }
            Reply left = client.session(1).call(RingRequest.leave(0));
            assertThat(left.status()).as(left.message()).isEqualTo(Reply.Status.OK);
            await("instance 0 to apply its leave", () -> status(client, 0).get("lastGsn").asLong() >= left.gsn());
            processes[0].destroy();
            processes[0].waitFor(30, TimeUnit.SECONDS);
            load.awaitOrders(load.ordersOk.get() + 10);
            load.end();
            RingChecks.awaitQuiet(client, List.of(1, 2, 3));
            map = client.routing().map();
            for (int i = 1; i < 4; i++)
                assertThat(status(client, i).get("mapVersion").asLong()).as("map version at instance %d", i)
                        .isEqualTo(map.version());
        }
        for (int i = 1; i < 4; i++) processes[i].destroy(); // SIGTERM: clean shutdown
        for (int i = 1; i < 4; i++) processes[i].waitFor(30, TimeUnit.SECONDS);
        assertThat(map.bucketsOf(0)).as("instance 0's buckets").isEmpty();
        assertThat(map.bucketsOf(3)).as("instance 3's buckets").isNotEmpty();

        List<Connection> conns = new ArrayList<>();
        conns.add(null); // instance 0 left the ring
        try {
            for (int i = 1; i < 4; i++)
                conns.add(DriverManager.getConnection(dev.gyro.runtime.db.Dialect.forTarget(databases[i])
                        .jdbcUrl(databases[i])));
            for (String table : new OnlineStore().replicatedTables()) {
                Set<String> copies = new HashSet<>();
                for (int i = 1; i < 4; i++) {
                    ReplicaCheck.TableDigest d = ReplicaCheck.digest(conns.get(i), table, i);
                    copies.add(d.rows() + "/" + d.sha256());
                }
                assertThat(copies).as("copies of " + table + " on instances 1-3").hasSize(1);
            }
            long[] initial = OnlineStore.initialStock(OnlineStore.ITEMS_PER_SCALE, OnlineStore.MIN_STOCK, SEED);
            assertThat(StoreAudit.audit(conns, map, initial, -1)).isEmpty();
            long orders = RingChecks.scalar(conns.get(1), "SELECT COUNT(*) FROM ORDERS");
            assertThat(orders).as("orders (%d acknowledged, %d with an unknown outcome)", load.ordersOk.get(),
                    load.uncertain.get()).isBetween(load.ordersOk.get(), load.ordersOk.get() + load.uncertain.get());
            Set<Long> ordered = new HashSet<>();
            try (Statement st = conns.get(1).createStatement(); ResultSet rs = st.executeQuery("SELECT CART_ID FROM ORDERS")) {
                while (rs.next()) assertThat(ordered.add(rs.getLong(1))).as("cart ordered once").isTrue();
            }
            assertThat(ordered).as("every acknowledged order").containsAll(load.acknowledged);
            Set<Long> last = new HashSet<>();
            for (int i = 1; i < 4; i++) last.add(RingChecks.scalar(conns.get(i), "SELECT last_gsn FROM gyro_state"));
            assertThat(last).as("last applied gsn of instances 1-3").hasSize(1);
        } finally {
            for (Connection c : conns) if (c != null) c.close();
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    static JsonNode status(GyroClient client, int instance) {
        try {
            return JSON.readTree(client.status(instance));
        } catch (Exception e) { // the instance is down (a kill): it says nothing yet
            return JSON.createObjectNode();
        }
    }

    /** Until {@code condition}, looked at as the replies come; the deadline only ends a hung test. */
    static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("waited 3 minutes for " + what);
            Thread.sleep(10);
        }
    }
}
