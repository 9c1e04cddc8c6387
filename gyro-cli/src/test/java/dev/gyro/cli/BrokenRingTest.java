package dev.gyro.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gyro.client.GyroClient;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.wire.Transport;
import dev.gyro.wire.tls.Certificates;
import dev.gyro.wire.tls.TlsFiles;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.gyro.cli.ClusterCommandTest.gyro;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Never silent: three {@code gyro instance} processes talking mutual TLS; the token's holder is killed with SIGKILL.
 * The instance whose global request waits says so at WARN, naming the peer and since when; {@code gyro status} and
 * the metrics show it; the client that gave up hears "outcome unknown: queued at instance I behind the token held by
 * J", not "instance I unreachable"; when the holder is back, an INFO line says so and the queued request runs.
 */
@Tag("processes")
class BrokenRingTest {

    @TempDir
    Path dir;
    final List<String> ring = new ArrayList<>();
    final Process[] processes = new Process[3];
    final String[] http = new String[3];
    /** Everything each process printed so far (standard output and error), in order. */
    final List<List<String>> output = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());

    @AfterEach
    void cleanUp() throws Exception {
        for (Process p : processes) if (p != null) p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }

    void launch(int id) throws Exception {
        Process p = new ProcessBuilder(GyroProcesses.command(List.of("instance", "--id", Integer.toString(id), "--ring",
                String.join(",", ring), "--db", LocalCluster.databaseFile(dir, id).toString(), "--load", "1",
                "--tls-dir", dir.resolve("tls").toString()))).redirectErrorStream(true).start();
        processes[id] = p;
        List<String> lines = output.get(id);
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
                for (String line; (line = in.readLine()) != null; ) {
                    synchronized (lines) {
                        lines.add(line);
                        lines.notifyAll();
                    }
                }
            } catch (Exception ignored) {
                // the process was killed
            }
        });
        reader.setDaemon(true);
        reader.start();
        String banner = awaitLine(id, l -> l.startsWith("gyro instance " + id), 120);
        Matcher m = Pattern.compile("metrics and live view on (http://\\S+)").matcher(banner);
        assertThat(m.find()).as(banner).isTrue();
        http[id] = m.group(1);
    }

    /** Waits until instance {@code id} prints a line that matches (woken by each new line); the limit ends a hung test. */
    String awaitLine(int id, Predicate<String> wanted, int seconds) throws InterruptedException {
        List<String> lines = output.get(id);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        synchronized (lines) {
            for (int seen = 0; ; ) {
                for (; seen < lines.size(); seen++) if (wanted.test(lines.get(seen))) return lines.get(seen);
                long left = deadline - System.nanoTime();
                if (left <= 0) throw new AssertionError("instance " + id + " did not print the line awaited within "
                        + seconds + " s; it printed:\n" + String.join("\n", lines));
                TimeUnit.NANOSECONDS.timedWait(lines, left);
            }
        }
    }

    @Test
    void aKilledTokenHolderIsReportedAndItsReturnToo() throws Exception {
        for (int port : dev.gyro.servers.FreePorts.take(3)) ring.add("127.0.0.1:" + port);
        Certificates.createCluster(dir.resolve("tls"), "broken-ring", 3, List.of());
        for (int i = 0; i < 3; i++) launch(i);
        Transport transport = Transport.mutualTls(new TlsFiles(dir.resolve("tls")), Certificates.CLIENT);
        long[] cartOf = new long[3];
        try (GyroClient client = GyroClient.connect(ring, transport)) {
            // an order on a cart of every instance: the token goes round, then parks at some holder J
            for (long cart = 1; cartOf[0] == 0 || cartOf[1] == 0 || cartOf[2] == 0; cart++) {
                int owner = client.routing().decide("order", Request.of("order", cart).parameters(), -1).owner();
                if (cartOf[owner] != 0) continue;
                cartOf[owner] = cart;
                assertThat(client.call("createCart", cart).ok()).isTrue();
                assertThat(client.call("addItem", cart, 5L, 1).ok()).isTrue();
                assertThat(client.call("order", cart).ok()).isTrue();
            }
            RingChecks.awaitQuiet(client, 3);
            int parked = -1;
            for (int i = 0; i < 3; i++)
                if (new ObjectMapper().readTree(client.status(i)).get("role").asText().equals("PARKED")) parked = i;
            int holder = parked;
            int waiter = (holder + 1) % 3;
            long waiting = 1_000; // a cart of the waiter's, ready for the order that will wait
            while (client.routing().decide("order", Request.of("order", waiting).parameters(), -1).owner() != waiter)
                waiting++;
            assertThat(client.call("createCart", waiting).ok()).isTrue();
            assertThat(client.call("addItem", waiting, 6L, 1).ok()).isTrue();

            processes[holder].destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL, token and all
            try (GyroClient impatient = GyroClient.connect(ring.subList(waiter, waiter + 1), 3_000, -1, transport)) {
                // withdrawn at its deadline, never run later (docs/decisions/37-request-ids.md), and told who holds up
                Reply r = impatient.call("order", waiting);
                assertThat(r.status()).as(r.toString()).isEqualTo(Reply.Status.UNAVAILABLE);
                assertThat(r.message()).as(r.toString()).startsWith("not run: instance " + waiter)
                        .contains("withdrew order(" + waiting + ") at its client's deadline")
                        .contains("the token is held by instance " + holder + " at " + ring.get(holder))
                        .contains("(unreachable: ");
                System.out.println("the impatient client was told: " + r);
            }
            // a patient client's order waits for the token's return
            GyroClient patient = GyroClient.connect(ring.subList(waiter, waiter + 1), 300_000, -1, transport);
            long cart = waiting;
            java.util.concurrent.CompletableFuture<Reply> waited =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> patient.call("order", cart));
            String warn = awaitLine(waiter, l -> l.contains("WARN") && l.contains("instance " + waiter + ": instance "
                    + holder + " at " + ring.get(holder) + " unreachable since"), 60);
            System.out.println("instance " + waiter + " logged: " + warn);
            // the count is what waited when the warning fired (the orders may have been queued just after it)
            assertThat(warn).containsPattern("[0-2] global request\\(s\\) wait here");

            var status = gyro("status", "--ring", String.join(",", ring), "--tls-dir", dir.resolve("tls").toString());
            System.out.println(status.out());
            assertThat(status.exit()).as(status.out()).isEqualTo(StatusCommand.SOME_UNREACHABLE);
            assertThat(status.out()).contains("2 of 3 instances up")
                    .containsPattern("(?m)^" + holder + " +" + Pattern.quote(ring.get(holder)) + " +UNREACHABLE .*unreachable: UNAVAILABLE")
                    .containsPattern("(?m)^" + waiter + " .*up, ring broken: instance " + holder + " unreachable since");
            String metrics = LiveViewTest.get(http[waiter] + "/metrics");
            assertThat(LiveViewTest.number(metrics, "gyro_ring_broken")).isEqualTo(1.0);
            assertThat(LiveViewTest.number(metrics, "gyro_peers_unreachable")).isEqualTo(1.0);
            // the patient order, and the withdrawn one until the token hands it out as a request that writes nothing
            assertThat(LiveViewTest.number(metrics, "gyro_global_queue_length")).isBetween(1.0, 2.0);

            launch(holder); // restarted on its database: it holds the token again and serves the waiting order
            String back = awaitLine(waiter, l -> l.contains("INFO") && l.contains("instance " + holder + " at "
                    + ring.get(holder) + " is reachable again"), 60);
            System.out.println("instance " + waiter + " logged: " + back);
            Reply served = waited.get(5, TimeUnit.MINUTES);
            patient.close();
            assertThat(served.ok()).as(served.toString()).isTrue();
            RingChecks.awaitQuiet(client, 3);
            JsonNode after = new ObjectMapper().readTree(client.status(waiter));
            assertThat(after.get("lastGsn").asLong()).as("the order that waited ran, the withdrawn one did not: 4 orders")
                    .isEqualTo(4);
            assertThat(after.get("ringBroken").asBoolean()).isFalse();
        }
    }
}
