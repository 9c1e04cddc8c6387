package dev.gyro.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gyro.cluster.Backend;
import dev.gyro.emulation.Capacity;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The local-ratio scenario, shrunk to two shares and one client count, runs end to end in CI; its results.json
 * has every required field with sane values, its ratios agree with its own numbers, and the plots and summary
 * are written.
 */
@Tag("slow")
class LocalRatioScenarioTest {

    @Test
    void aSmallLocalRatioRunWritesValidResults(@TempDir Path dir) throws Exception {
        Scenario scenario = LocalRatioScenario.define(List.of(0, 90), List.of(4), LocalRatioScenario.SYSTEMS, 3, Capacity.of(2, 5),
                Duration.ofSeconds(1), Duration.ofMillis(1500), 11, Backend.SQLITE, true);
        List<Measured> points = ScenarioRunner.run(scenario, dir.resolve("work"), new ScenarioRunner.Listener() {});
        Path out = dir.resolve("out");
        ScenarioOutput.write(out, new ScenarioOutput.Run(scenario, "test", 1), points);

        JsonNode root = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        assertThat(root.get("scenario").asText()).isEqualTo("local-ratio");
        assertThat(root.get("mode").asText()).contains("capacity emulation", "2 transaction(s) at a time", "5 ms");
        assertThat(root.get("machine").get("cores").asInt()).isPositive();
        assertThat(root.get("valid").asBoolean()).as(root.toPrettyString()).isTrue();
        JsonNode ps = root.get("points");
        assertThat(ps).hasSize(6);
        Map<String, JsonNode> byKey = new HashMap<>();
        for (JsonNode p : ps) {
            assertThat(p.get("system").asText()).isIn(LocalRatioScenario.SYSTEMS);
            assertThat(p.get("valid").asBoolean()).isTrue();
            assertThat(p.get("throughput").asDouble()).isPositive();
            assertThat(p.get("requests").asLong()).isPositive();
            JsonNode l = p.get("latencyMs");
            for (String f : List.of("mean", "p50", "p95", "p99")) assertThat(l.get(f).asDouble()).as(f).isPositive();
            assertThat(l.get("p50").asDouble()).isLessThanOrEqualTo(l.get("p95").asDouble());
            assertThat(l.get("p95").asDouble()).isLessThanOrEqualTo(l.get("p99").asDouble());
            // the emulated server's 5 ms are in every request's latency
            assertThat(l.get("mean").asDouble()).isGreaterThanOrEqualTo(5.0);
            assertThat(p.get("parameters").get("localPercent").isInt()).isTrue();
            byKey.put(p.get("system").asText() + "/" + p.get("parameters").get("localPercent").asInt(), p);
        }
        // gyro at 90% local runs local requests; at 0% none
        assertThat(byKey.get("gyro/90").get("latencyMsByClass").has("local")).isTrue();
        assertThat(byKey.get("gyro/0").get("latencyMsByClass").has("local")).isFalse();
        assertThat(byKey.get("read-only/90").get("latencyMsByClass").has("local")).isFalse();
        // ratios are consistent with the points' own numbers
        for (int share : List.of(0, 90)) {
            JsonNode g = byKey.get("gyro/" + share), c = byKey.get("centralized/" + share);
            JsonNode r = g.get("ratios").get("centralized");
            assertThat(r.get("throughput").asDouble()).isCloseTo(
                    g.get("throughput").asDouble() / c.get("throughput").asDouble(), within(0.01));
            assertThat(r.get("meanLatency").asDouble()).isCloseTo(
                    c.get("latencyMs").get("mean").asDouble() / g.get("latencyMs").get("mean").asDouble(), within(0.01));
            assertThat(g.get("ratios").has("read-only")).isTrue();
        }
        assertThat(root.get("peaks")).isNotEmpty();
        for (String png : List.of("throughput.png", "latency-light.png"))
            assertThat(Files.size(out.resolve(png))).as(png).isGreaterThan(1000);
        String summary = Files.readString(out.resolve("summary.md"));
        assertThat(summary).contains("capacity emulation", "`test`", "5477", "| gyro |", "cores");
    }
}
