package dev.gyro.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gyro.client.GyroClient;
import dev.gyro.wire.Transport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.gyro.cli.ClusterCommandTest.gyro;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Watching a cluster that {@code gyro cluster start} runs (mutual TLS, the default): each instance's {@code /metrics}
 * during a workload, {@code gyro cluster status}, and the live view in a real headless Chromium, which must show the
 * ring with live numbers (a last gsn above 0, the token's holder).
 */
@Tag("processes")
class LiveViewTest {

    @TempDir
    Path tmp;
    Path dir;

    @AfterEach
    void stop() {
        if (dir != null) gyro("cluster", "stop", "--dir", dir.toString());
    }

    static String get(String url) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(url).isEqualTo(200);
        return r.body();
    }

    @Test
    void metricsStatusAndTheLiveViewShowTheRingDuringAWorkload() throws Exception {
        Path chromium = Chromium.require();
        dir = tmp.resolve("cluster");
        var start = gyro("cluster", "start", "--backend", "sqlite", "--instances", "3", "--dir", dir.toString(),
                "--detach");
        assertThat(start.exit()).as(start.out()).isZero();
        assertThat(start.out()).contains("watch:     http://127.0.0.1:");
        JsonNode info = new ObjectMapper().readTree(dir.resolve("cluster.json").toFile());
        List<String> http = new ArrayList<>();
        for (JsonNode n : info.get("instances")) http.add(n.get("http").asText());
        assertThat(http).hasSize(3).allMatch(u -> u.matches("http://127\\.0\\.0\\.1:\\d+"));
        List<String> ring = ClusterCommandTest.addresses(info);
        Transport transport = ClusterCommand.clientTransport(dir);

        AtomicBoolean done = new AtomicBoolean();
        AtomicLong orders = new AtomicLong();
        try (GyroClient client = GyroClient.connect(ring, transport)) {
            // A workload that runs while everything below watches it: carts of every instance, local and global.
            Thread workload = new Thread(() -> {
                for (long cart = 100; !done.get(); cart++) {
                    client.call("createCart", cart);
                    client.call("addItem", cart, 1L + cart % 100, 1); // spread: no item runs out of stock
                    client.call("getCart", cart);
                    if (client.call("order", cart).ok()) orders.incrementAndGet();
                }
            });
            workload.start();
            try {
                RingChecks.awaitOrders(orders, 6);

                String metrics = get(http.get(0) + "/metrics");
                assertThat(metrics)
                        .containsPattern("gyro_requests_total\\{.*class=\"global\".*outcome=\"ok\".*transaction=\"order\"")
                        .containsPattern("gyro_requests_total\\{.*class=\"local\".*outcome=\"ok\".*transaction=\"addItem\"")
                        .contains("gyro_request_latency_seconds_bucket{").contains("gyro_token_passes_total")
                        .contains("gyro_token_rotation_seconds_count").contains("gyro_global_queue_length")
                        .contains("gyro_updates_applied_total").contains("gyro_retries_total")
                        .contains("gyro_db_connections{").contains("jvm_memory_used_bytes").contains("gyro_ring_broken");
                assertThat(number(metrics, "gyro_last_gsn")).isPositive();
                System.out.println("metrics of instance 0 during the workload (excerpt):");
                metrics.lines().filter(l -> l.startsWith("gyro_") && !l.contains("_bucket")).limit(40)
                        .forEach(System.out::println);

                var status = gyro("cluster", "status", "--dir", dir.toString());
                System.out.println(status.out());
                assertThat(status.exit()).as(status.out()).isZero();
                assertThat(status.out()).contains("3 of 3 instances up").contains("token at instance");
                assertThat(status.out().lines().filter(l -> l.matches("\\d +127\\.0\\.0\\.1:\\d+ .* up .*")).count())
                        .as(status.out()).isEqualTo(3);

                JsonNode ringJson = new ObjectMapper().readTree(get(http.get(1) + "/ring.json"));
                assertThat(ringJson.get("instances")).hasSize(3).allMatch(n -> n.get("up").asBoolean());
                assertThat(ringJson.get("tokenHolder").asInt()).isBetween(0, 2);

                Path profile = Files.createDirectories(tmp.resolve("profile"));
                String dom = Chromium.run(profile, http.get(0) + "/", 4_000, "--dump-dom");
                assertThat(dom).as(dom).contains("id=\"row-0\"").contains("id=\"row-2\"").contains("token at instance");
                Matcher gsn = Pattern.compile("<td class=\"gsn\">(\\d+)</td>").matcher(dom);
                List<Long> shown = new ArrayList<>();
                while (gsn.find()) shown.add(Long.parseLong(gsn.group(1)));
                assertThat(shown).as(dom).hasSize(3).allMatch(g -> g > 0);

                Path png = Path.of("target", "live-view.png").toAbsolutePath();
                Files.deleteIfExists(png);
                Chromium.run(Files.createDirectories(tmp.resolve("profile2")), http.get(0) + "/", 4_000,
                        "--screenshot=" + png, "--window-size=1440,400", "--hide-scrollbars");
                assertThat(png).exists();
                assertThat(Files.size(png)).as("a screenshot with something on it").isGreaterThan(10_000);
            } finally {
                done.set(true);
                workload.join();
            }
        }
    }

    @Test
    void theLiveViewDrawsAMoveInProgressInTheBoxOfItsOldOwner() throws Exception {
        Path chromium = Chromium.require();
        byte[] page;
        try (var in = LiveViewTest.class.getResourceAsStream("/dev/gyro/runtime/live-view.html")) {
            page = in.readAllBytes();
        }
        // /ring.json as an instance serves it, instance 1 moving two buckets (its status's "moving", Buckets.status)
        String ring = "{\"asOf\":1764655200000,\"tokenHolder\":0,\"instances\":["
                + "{\"instance\":0,\"address\":\"127.0.0.1:1\",\"up\":true,\"role\":\"PRIMARY\",\"lastGsn\":7},"
                + "{\"instance\":1,\"address\":\"127.0.0.1:2\",\"up\":true,\"role\":\"IDLE\",\"lastGsn\":7,"
                + "\"moving\":{\"buckets\":[3,17],\"to\":2,\"phase\":\"copying\",\"rowsCopied\":1240,"
                + "\"since\":\"2026-12-02T06:00:00Z\"}},"
                + "{\"instance\":2,\"address\":\"127.0.0.1:3\",\"up\":true,\"role\":\"IDLE\",\"lastGsn\":7}]}";
        com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            boolean json = exchange.getRequestURI().getPath().endsWith("/ring.json");
            byte[] body = json ? ring.getBytes(java.nio.charset.StandardCharsets.UTF_8) : page;
            exchange.getResponseHeaders().add("Content-Type", json ? "application/json" : "text/html; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (var out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
            String dom = Chromium.run(Files.createDirectories(tmp.resolve("profile")), url, 4_000, "--dump-dom");
            assertThat(dom).as(dom).contains("id=\"moving-1\"")
                    .contains("moving buckets [3,17] to 2: copying, 1,240 rows")
                    .doesNotContain("id=\"moving-0\"").doesNotContain("id=\"moving-2\"");
        } finally {
            server.stop(0);
        }
    }

    /** The value of an unlabelled-but-common-tagged gauge line {@code name{...} value}. */
    static double number(String metrics, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + "\\{[^}]*} ([0-9.eE+-]+)$").matcher(metrics);
        assertThat(m.find()).as(name + " in\n" + metrics).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
