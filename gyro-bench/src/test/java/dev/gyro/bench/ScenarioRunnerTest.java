package dev.gyro.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.micro.Micro;
import dev.gyro.cluster.Backend;
import dev.gyro.emulation.Capacity;
import dev.gyro.cluster.LocalCluster;
import dev.gyro.emulation.wan.Wan;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A tiny scenario runs end to end through the generic engine, as a quick scenario runs in CI, and its results.json
 * validates: every point's fields, latency per class and per transaction adding up to the point's requests,
 * throughput over time adding up to them too, ratios equal to the points' own numbers (against the group's
 * reference where the other system ran only there), an invalid point marked with its checker's words, points
 * that could not run (a system this class path lacks, 2PC on SQLite) recorded with the reason instead of ending the
 * run, and a setting on the emulated WAN.
 */
@Tag("slow")
class ScenarioRunnerTest {

    /**
     * The centralized system whose database is damaged after the run, before its real checks: the micro-benchmark's
     * audit must find it and the point must come out invalid.
     */
    static SystemUnderTest tampered() {
        SystemUnderTest real = Systems.centralized();
        return new SystemUnderTest() {
            public String name() {
                return "tampered";
            }

            public String describe() {
                return "centralized, with MICRO_SHARED's total changed behind its back after the run";
            }

            public Deployment deploy(Setup setup) throws Exception {
                Deployment d = real.deploy(setup);
                return new Deployment() {
                    public Target target() {
                        return d.target();
                    }

                    public int databases() {
                        return d.databases();
                    }

                    public List<String> settleAndCheck() throws Exception {
                        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + LocalCluster.databaseFile(setup.dir(), 0));
                             Statement s = c.createStatement()) {
                            s.executeUpdate("UPDATE MICRO_SHARED SET MS_VALUE = MS_VALUE + 1 WHERE MS_KEY = 0");
                        }
                        return d.settleAndCheck();
                    }

                    public List<dev.gyro.emulation.Capacity> servers() {
                        return d.servers();
                    }

                    public void close() throws Exception {
                        d.close();
                    }
                };
            }
        };
    }

    static SystemUnderTest systems(String name) {
        return name.equals("tampered") ? tampered() : Systems.byName(name);
    }

    static Scenario tiny() {
        Micro app = new Micro();
        Capacity capacity = Capacity.of(2, 2);
        WorkloadOptions options = WorkloadOptions.of(Map.of("local", "90", "service-ms", "0"));
        List<Scenario.Setting> settings = List.of(
                new Scenario.Setting("n1", "micro", Map.of("instances", 1), app, 1, options, 1, Backend.SQLITE,
                        capacity, null, Wan.OFF, List.of("centralized")),
                new Scenario.Setting("n3", "micro", Map.of("instances", 3), app, 1, options, 3, Backend.SQLITE,
                        capacity, null, Wan.OFF, List.of()),
                new Scenario.Setting("wan", "wan", Map.of("instances", 1), app, 1, options, 1, Backend.SQLITE,
                        capacity, null, Wan.paper(), List.of("centralized")));
        return new Scenario("tiny", "engine test", "none", settings, List.of("gyro", "2pc", "nope", "tampered"),
                Scenario.Load.closed(List.of(2, 6)), Duration.ofMillis(500), Duration.ofMillis(1500),
                Scenario.Bound.LAN, 5, true, new Scenario.Figure("instances", "instances", "operations"),
                List.of(Scenario.PaperRatio.of("gyro vs centralized", Map.of("instances", 3), "gyro", "centralized",
                        Scenario.Metric.PEAK_THROUGHPUT, 2.0)), List.of("a note"));
    }

    @Test
    void aTinyScenarioWritesResultsThatValidate(@TempDir Path dir) throws Exception {
        Scenario scenario = tiny();
        List<String> started = new ArrayList<>(), warmUps = new ArrayList<>();
        List<Measured> warmedUp = new ArrayList<>();
        List<Measured> points = ScenarioRunner.run(scenario, dir.resolve("work"), new ScenarioRunner.Listener() {
            public void point(int index, int of, String label) {
                started.add(index + "/" + of);
            }

            public void warmingUp(String label) {
                assertThat(started).as("warm-up before every point").isEmpty();
                warmUps.add(label.replaceAll(" +", " "));
            }

            public void warmedUp(Measured m) {
                warmedUp.add(m);
            }
        }, ScenarioRunnerTest::systems, true);
        assertThat(started).hasSize(scenario.points()).startsWith("1/12").endsWith("12/12");
        // the JIT's warm-up: each system of the first setting once, at the heaviest load, and not among the points
        assertThat(warmUps).containsExactly("centralized n1 6 clients");
        assertThat(warmedUp).singleElement().satisfies(m -> assertThat(m.ran()).isTrue());
        assertThat(points).hasSize(scenario.points()).doesNotContain(warmedUp.get(0));
        Path out = dir.resolve("out");
        ScenarioOutput.write(out, new ScenarioOutput.Run(scenario, "./gyro bench tiny", 3), points);

        JsonNode root = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        assertThat(root.get("scenario").asText()).isEqualTo("tiny");
        assertThat(root.get("command").asText()).isEqualTo("./gyro bench tiny");
        assertThat(root.get("machine").get("cores").asInt()).isPositive();
        assertThat(root.get("mode").asText()).contains("capacity emulation", "2 transaction(s) at a time", "2 ms");
        assertThat(root.get("settings")).hasSize(3);
        assertThat(root.get("settings").get(2).get("network").asText()).startsWith("WAN");
        assertThat(root.get("load").get("clients").toString()).isEqualTo("[2,6]");
        assertThat(root.get("latencyBoundMs").asDouble()).isEqualTo(2000);
        assertThat(root.get("valid").asBoolean()).as("the tampered points are invalid").isFalse();
        assertThat(root.get("pointsRun").asInt()).isEqualTo(8); // centralized 2 + 2 on the WAN, gyro 2, tampered 2
        assertThat(root.get("pointsNotRun").asInt()).isEqualTo(4); // 2pc 2 (SQLite), nope 2

        Map<String, JsonNode> byKey = new HashMap<>();
        for (JsonNode p : root.get("points")) {
            String key = p.get("system").asText() + "/" + p.get("setting").asText() + "/"
                    + p.get("parameters").get("clients").asInt();
            byKey.put(key, p);
            if (!p.get("ran").asBoolean()) {
                assertThat(p.get("notRun").asText()).as(key).isNotBlank();
                assertThat(p.has("throughput")).isFalse();
                continue;
            }
            assertThat(p.get("requests").asLong()).as(key).isPositive();
            assertThat(p.get("throughput").asDouble()).isCloseTo(p.get("requests").asLong() / p.get("seconds").asDouble(),
                    within(0.01));
            JsonNode l = p.get("latencyMs");
            for (String f : List.of("mean", "p50", "p95", "p99", "max")) assertThat(l.get(f).asDouble()).as(key + " " + f).isPositive();
            assertThat(l.get("p50").asDouble()).isLessThanOrEqualTo(l.get("p95").asDouble());
            assertThat(l.get("p95").asDouble()).isLessThanOrEqualTo(l.get("p99").asDouble());
            assertThat(l.get("p99").asDouble()).isLessThanOrEqualTo(l.get("max").asDouble());
            // every point is emulated: it used some of its servers' slot time, and no more than there was (a slot
            // taken just before the window and freed in it counts whole: a little over 1 is possible, not more)
            assertThat(p.get("serversBusy").asDouble()).as(key + ": share of the emulated servers in use").isPositive()
                    .isLessThan(1.1);
            // every completed request spent at least the 2 ms service time in a slot (the window's edges cut a little)
            assertThat(p.get("slots").asLong()).as(key + ": the emulated slots").isPositive();
            assertThat(p.get("slotMsPerRequest").asDouble()).as(key + ": slot time per request").isGreaterThan(1.5);
            if (MachineCpu.read() != null) // Linux: how busy the machine's own cores were, a share
                assertThat(p.get("machineCpuBusy").asDouble()).as(key + ": machine CPU").isBetween(0.0, 1.0);
            long requests = p.get("requests").asLong();
            // per class and per transaction, every request once
            long byClass = 0;
            for (JsonNode c : p.get("latencyMsByClass")) byClass += c.get("count").asLong();
            assertThat(byClass).as(key).isEqualTo(requests);
            long byTx = 0;
            for (var e : iterable(p.get("latencyMsByTransaction"))) {
                JsonNode t = e.getValue();
                assertThat(e.getKey()).isIn("localOp", "globalOp");
                assertThat(t.get("count").asLong()).isEqualTo(t.get("ok").asLong() + t.get("aborted").asLong()
                        + t.get("failed").asLong());
                assertThat(t.get("mean").asDouble()).isPositive();
                assertThat(t.get("p50").asDouble()).isLessThanOrEqualTo(t.get("p99").asDouble());
                byTx += t.get("count").asLong();
            }
            assertThat(byTx).as(key).isEqualTo(requests);
            assertThat(p.get("latencyMsByTransaction").has("localOp")).as(key + ": 90% local").isTrue();
            // throughput over time: 20 intervals of 75 ms over the 1.5 s measured, adding up to the requests
            JsonNode series = p.get("throughputOverTime");
            double interval = series.get("intervalSeconds").asDouble();
            assertThat(interval).isEqualTo(0.075);
            assertThat(series.get("throughput")).hasSize(20);
            assertThat(series.get("meanLatencyMs")).hasSize(20);
            double sum = 0;
            for (JsonNode x : series.get("throughput")) sum += x.asDouble() * interval;
            assertThat(sum).as(key).isCloseTo(requests, within(0.5));
        }
        // gyro runs local requests locally; the centralized baseline labels them by the classification
        assertThat(byKey.get("gyro/n3/6").get("latencyMsByClass").has("local")).isTrue();
        // points that could not run say why, and the run went on
        assertThat(byKey.get("nope/n3/2").get("notRun").asText()).contains("unknown system 'nope'", "gyro", "centralized");
        assertThat(byKey.get("2pc/n3/6").get("notRun").asText()).contains("SQLite");
        // on the emulated WAN every client pays its site's round trip to the database in Germany: session 0 in
        // Germany 20 ms, session 1 in Japan 253 ms (Table II), which the slowest calls show
        JsonNode far = byKey.get("centralized/wan/2");
        assertThat(far.get("valid").asBoolean()).isTrue();
        assertThat(far.get("latencyMs").get("max").asDouble()).isGreaterThanOrEqualTo(253);
        assertThat(far.get("latencyMs").get("p50").asDouble()).isGreaterThanOrEqualTo(20);
        // the damaged database fails the real audit: marked invalid with the checker's words, kept out of ratios
        JsonNode bad = byKey.get("tampered/n3/2");
        assertThat(bad.get("valid").asBoolean()).isFalse();
        assertThat(bad.get("problems").toString()).contains("MICRO_SHARED row 0");
        for (int clients : List.of(2, 6)) {
            JsonNode g = byKey.get("gyro/n3/" + clients), c = byKey.get("centralized/n1/" + clients);
            assertThat(g.get("valid").asBoolean()).as(g.toPrettyString()).isTrue();
            assertThat(c.get("valid").asBoolean()).as(c.toPrettyString()).isTrue();
            // centralized ran only at n1: the group's reference, at the same client count
            JsonNode r = g.get("ratios").get("centralized");
            assertThat(r.get("setting").asText()).isEqualTo("n1");
            assertThat(r.get("throughput").asDouble()).isCloseTo(
                    g.get("throughput").asDouble() / c.get("throughput").asDouble(), within(0.01));
            assertThat(r.get("meanLatency").asDouble()).isCloseTo(
                    c.get("latencyMs").get("mean").asDouble() / g.get("latencyMs").get("mean").asDouble(), within(0.01));
            assertThat(g.get("ratios").has("tampered")).isFalse();
            assertThat(g.get("ratios").has("2pc")).isFalse();
        }
        // a Gyro point says where its global requests' time went, by phase, over the measured window only
        for (int clients : List.of(2, 6)) {
            JsonNode point = byKey.get("gyro/n3/" + clients), phases = point.get("globalPhases");
            long globals = point.get("latencyMsByClass").get("global").get("count").asLong();
            assertThat(phases.get("globals").asLong()).as("the window's globals, give or take those at its edges")
                    .isPositive().isLessThanOrEqualTo(globals + clients);
            double share = 0, mean = 0;
            for (JsonNode ph : phases.get("phasesMs")) {
                share += ph.get("share").asDouble();
                mean += ph.get("mean").asDouble();
                assertThat(ph.get("p50").asDouble()).isLessThanOrEqualTo(ph.get("p99").asDouble());
            }
            assertThat(phases.get("phasesMs").has("token")).isTrue();
            assertThat(share).isCloseTo(1, within(0.01));
            assertThat(mean).as("the phases add up").isCloseTo(phases.get("totalMs").get("mean").asDouble(),
                    within(0.02));
            assertThat(phases.get("totalMs").get("mean").asDouble()).as("at the owner, within the client's latency")
                    .isLessThanOrEqualTo(point.get("latencyMsByClass").get("global").get("mean").asDouble());
            assertThat(phases.get("token").get("visits").asLong()).isPositive();
            assertThat(phases.get("token").get("globalsPerVisit").asDouble()).isPositive();
        }
        assertThat(byKey.get("centralized/n1/2").has("globalPhases")).as("no token, no phases").isFalse();
        // peaks: the best valid point per system and setting, with its ratios
        Map<String, JsonNode> peaks = new HashMap<>();
        for (JsonNode p : root.get("peaks")) peaks.put(p.get("system").asText() + "/" + p.get("setting").asText(), p);
        assertThat(peaks).containsOnlyKeys("gyro/n3", "centralized/n1", "centralized/wan");
        JsonNode gp = peaks.get("gyro/n3"), cp = peaks.get("centralized/n1");
        double best = Math.max(byKey.get("gyro/n3/2").get("throughput").asDouble(), byKey.get("gyro/n3/6").get("throughput").asDouble());
        assertThat(gp.get("throughput").asDouble()).isEqualTo(best);
        assertThat(gp.get("ratios").get("centralized").get("throughput").asDouble()).isCloseTo(
                best / cp.get("throughput").asDouble(), within(0.01));
        JsonNode paper = root.get("paper").get(0);
        assertThat(paper.get("paper").asDouble()).isEqualTo(2.0);
        assertThat(paper.get("thisRun").asDouble()).isCloseTo(best / cp.get("throughput").asDouble(), within(0.01));

        for (String png : List.of("throughput-micro.png", "latency-light-micro.png", "latency-heavy-micro.png",
                "throughput-wan.png", "curve-n3.png", "timeline-n3.png", "timeline-n1.png", "curve-wan.png"))
            assertThat(Files.size(out.resolve(png))).as(png).isGreaterThan(1000);
        String summary = Files.readString(out.resolve("summary.md"));
        assertThat(summary).contains("`./gyro bench tiny`", "cores", "capacity emulation", "## Not run",
                "unknown system 'nope'", "SQLite has no prepared transactions", "INVALID", "WAN (the paper's Table II)", "| gyro vs centralized | 2.0x |", "a note",
                "## Where a global request's time goes", "### gyro, n3, 6 clients", "| token (waiting for the token) |",
                "| **total** |", "| valid |", "| servers busy |", "| slot ms / request |", "| machine CPU |");
        assertThat(summary).containsPattern("\\| gyro \\| n3 \\| 6 \\| .* \\| \\d+% \\| \\d+\\.\\d \\| (\\d+%|-) \\| yes \\|");
        if (MachineCpu.read() != null) assertThat(summary).containsPattern("machine CPU while measuring: \\d+% to \\d+% busy");
    }

    @Test
    void pointsMeasuredOnASaturatedMachineAreNamedInTheSummary() {
        Scenario s = tiny();
        Map<String, Object> params = Map.of("clients", 6);
        Measured hot = Measured.failed("gyro", "tiny", "n3", params, "m", "x").withMachineBusy(0.95);
        Measured calm = Measured.failed("centralized", "tiny", "n1", params, "m", "x").withMachineBusy(0.4);
        assertThat(hot.machineSaturated()).isTrue();
        assertThat(calm.machineSaturated()).isFalse();
        assertThat(ScenarioOutput.machineLine(new ScenarioAnalysis(s, List.of(hot, calm))))
                .contains("40% to 95% busy", "1 of 2 points", "(gyro n3 6 clients)", "the machine, not the emulated servers")
                .doesNotContain("centralized");
        assertThat(ScenarioOutput.machineLine(new ScenarioAnalysis(s, List.of(calm))))
                .isEqualTo("- machine CPU while measuring: 40% to 40% busy\n");
        assertThat(ScenarioOutput.machineLine(new ScenarioAnalysis(s, List.of(calm.withMachineBusy(null))))).isEmpty();
    }

    private static Iterable<Map.Entry<String, JsonNode>> iterable(JsonNode object) {
        return object::fields;
    }
}
