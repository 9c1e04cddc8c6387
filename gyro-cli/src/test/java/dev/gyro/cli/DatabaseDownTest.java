package dev.gyro.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gyro.apps.store.OnlineStore;
import dev.gyro.client.GyroClient;
import dev.gyro.cluster.Backend;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.servers.ThrowawayServers;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A database outage is never silent (docs/operations.md, "Watching a cluster"): two instances, each on its own real
 * PostgreSQL server; instance 1's server is stopped the way a crash stops it ({@code pg_ctl stop -m immediate}). While
 * it is down, instance 1's {@code /status.json} says since when its database is unreachable, then that it retries the
 * belt's durable work for a global request of instance 0; {@code gyro status} shows it {@code db-down} and exits 5;
 * {@code gyro_database_down} is 1; the ring's view of instance 0 says so too. When the server is back, all of it says
 * so and the global request completes. Every wait is for a status that changes.
 */
@Tag("servers")
class DatabaseDownTest {

    static final ObjectMapper JSON = new ObjectMapper();

    LocalCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) cluster.close();
    }

    record Printed(int exit, String out) {}

    Printed status() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exit = StatusCommand.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), cluster.addresses(),
                cluster.clientTransport());
        return new Printed(exit, bytes.toString(StandardCharsets.UTF_8));
    }

    JsonNode statusJson(int instance) throws Exception {
        return JSON.readTree(LiveViewTest.get("http://" + cluster.httpAddresses().get(instance) + "/status.json"));
    }

    /** Asks instance {@code instance}'s /status.json until it says what is wanted; the limit ends a hung test. */
    JsonNode awaitStatus(int instance, String what, Predicate<JsonNode> wanted) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        for (JsonNode s; ; Thread.sleep(20)) {
            s = statusJson(instance);
            if (wanted.test(s)) return s;
            if (System.nanoTime() > deadline)
                throw new AssertionError("instance " + instance + " did not say " + what + " within 3 minutes: " + s);
        }
    }

    /** Instance 0's live view, in a real headless Chromium when there is one, shows instance 1's row saying so. */
    void liveViewSays(Path dir, String text) throws Exception {
        try {
            Chromium.require();
        } catch (org.opentest4j.TestAbortedException noBrowser) {
            System.out.println("the live view is not checked: " + noBrowser.getMessage());
            return;
        }
        Path profile = java.nio.file.Files.createDirectories(dir.resolve("profile-" + System.nanoTime()));
        String dom = Chromium.run(profile, "http://" + cluster.httpAddresses().get(0) + "/", 4_000, "--dump-dom");
        java.util.regex.Matcher row = java.util.regex.Pattern.compile("<tr id=\"row-1\"[^>]*>(.*?)</tr>").matcher(dom);
        assertThat(row.find()).as(dom).isTrue();
        assertThat(row.group(0)).contains("class=\"dbdown\"").contains(text);
        assertThat(dom).contains("1 with its database down (db-down)");
    }

    long cartOf(GyroClient client, int owner, long from) {
        long cart = from;
        while (client.routing().decide("order", Request.of("order", cart).parameters(), -1).owner() != owner) cart++;
        return cart;
    }

    @Test
    void aStoppedDatabaseServerShowsAsDbDownUntilItIsBack() throws Exception {
        ClusterCommandTest.require(Backend.POSTGRES);
        Path dir = ThrowawayServers.base().resolve("db-down-" + System.nanoTime());
        cluster = LocalCluster.create(Backend.POSTGRES, dir, new OnlineStore(), 2, 1, 42, n -> {}).withHttp();
        cluster.startAll();
        try (GyroClient client = GyroClient.connect(cluster.addresses(), cluster.clientTransport())) {
            long cart0 = cartOf(client, 0, 1);
            long cart1 = cartOf(client, 1, 1);
            for (long cart : new long[] {cart0, cart1}) {
                assertThat(client.call("createCart", cart).ok()).isTrue();
                assertThat(client.call("addItem", cart, 3L, 1).ok()).isTrue();
                assertThat(client.call("order", cart).ok()).isTrue();
            }
            Printed healthy = status();
            System.out.println(healthy.out());
            assertThat(healthy.exit()).as(healthy.out()).isZero();
            assertThat(healthy.out()).doesNotContain("db-down");
            assertThat(statusJson(1).get("database").asText()).isEqualTo("ok");
            assertThat(LiveViewTest.number(cluster.instance(1).metricsText(), "gyro_database_down")).isZero();

            long next = cartOf(client, 0, cart0 + 1); // a cart of instance 0's, for a global request during the outage
            assertThat(client.call("createCart", next).ok()).isTrue();
            assertThat(client.call("addItem", next, 4L, 1).ok()).isTrue();

            cluster.server(1).crash(); // pg_ctl stop -m immediate

            JsonNode down = awaitStatus(1, "its database is unreachable", s -> s.path("databaseDown").asBoolean());
            System.out.println("instance 1 says: " + down.get("database").asText());
            assertThat(down.get("database").asText()).startsWith("unreachable since ");
            assertThat(LiveViewTest.number(cluster.instance(1).metricsText(), "gyro_database_down")).isOne();
            Printed dbDown = status();
            System.out.println(dbDown.out());
            assertThat(dbDown.exit()).as(dbDown.out()).isEqualTo(StatusCommand.DATABASE_DOWN);
            assertThat(dbDown.out()).containsPattern("(?m)^1 .* db-down: database unreachable since ")
                    .containsPattern("(?m)^0 .* up +")
                    .contains("2 of 2 instances up, 1 with its database down (db-down)");
            JsonNode ring = JSON.readTree(LiveViewTest.get("http://" + cluster.httpAddresses().get(0) + "/ring.json"));
            assertThat(ring.get("instances").get(1).get("databaseDown").asBoolean()).as(ring.toString()).isTrue();
            assertThat(ring.get("instances").get(0).get("databaseDown").asBoolean()).as(ring.toString()).isFalse();
            liveViewSays(dir, "db-down: database unreachable since ");

            // A global request of instance 0: its update has to reach instance 1, whose belt retries until it can.
            CompletableFuture<Reply> order = CompletableFuture.supplyAsync(() -> client.call("order", next));
            JsonNode retrying = awaitStatus(1, "it retries the belt's work",
                    s -> s.path("database").asText().contains("retrying to "));
            System.out.println("instance 1 says: " + retrying.get("database").asText());
            assertThat(retrying.get("databaseDown").asBoolean()).isTrue();

            cluster.server(1).start();

            awaitStatus(1, "its database answers", s -> !s.path("databaseDown").asBoolean());
            Reply r = order.get(3, TimeUnit.MINUTES);
            assertThat(r.status()).as(r.toString()).isIn(Reply.Status.OK, Reply.Status.UNAVAILABLE);
            Printed back = status();
            System.out.println(back.out());
            assertThat(back.exit()).as(back.out()).isZero();
            assertThat(back.out()).doesNotContain("db-down").contains("2 of 2 instances up;");
            assertThat(statusJson(1).get("database").asText()).isEqualTo("ok");
            assertThat(LiveViewTest.number(cluster.instance(1).metricsText(), "gyro_database_down")).isZero();
        }
    }
}
