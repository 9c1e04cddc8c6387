package dev.gyro.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gyro.cluster.Backend;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code gyro bench} is registered, refuses what it cannot run with the reason before running anything, and runs a
 * scenario's quick configuration end to end as a user would (the engine is tested further in gyro-bench:
 * ScenarioRunnerTest, LocalRatioScenarioTest).
 */
@Tag("servers")
class BenchCommandTest {

    record Run(int exit, String out) {}

    static Run bench(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        int exit;
        try {
            System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            String[] all = new String[args.length + 1];
            all[0] = "bench";
            System.arraycopy(args, 0, all, 1, args.length);
            exit = Gyro.commandLine().execute(all);
        } finally {
            System.setOut(saved);
        }
        return new Run(exit, bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void unknownScenarioFailsNamingTheKnownOnes() {
        Run r = bench("scale-wan", "--quick");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).startsWith("bench: FAILED: unknown scenario 'scale-wan'")
                .contains("local-ratio", "scale-lan", "wan-latency", "wan-scale", "tpcc", "scale-sim");
    }

    @Test
    void scaleSimRefusesWhatOnlyDeployedSystemsTake() {
        Run r = bench("scale-sim", "--quick", "--backend", "postgres", "--plain");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).startsWith("bench: FAILED: scale-sim runs in the performance simulator")
                .contains("--backend, --plain");
        Run seed = bench("tpcc", "--quick", "--seed", "7");
        assertThat(seed.exit()).isEqualTo(2);
        assertThat(seed.out()).startsWith("bench: FAILED: --seed, --apply-ms and --hop-ms go with scale-sim");
        Run cost = bench("scale-sim", "--quick", "--apply-ms", "-1");
        assertThat(cost.exit()).isEqualTo(2);
        assertThat(cost.out()).startsWith("bench: FAILED: apply cost and hop latency must not be negative");
    }

    @Test
    void unknownBackendFailsNamingTheKnownOnes() {
        Run r = bench("scale-lan", "--quick", "--backend", "oracle");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).startsWith("bench: FAILED: unknown backend 'oracle'").contains("sqlite, postgres, mariadb");
    }

    @Test
    void openLoopOptionsAreChecked() {
        Run arrivals = bench("tpcc", "--quick", "--rates", "50,100", "--arrivals", "bursty");
        assertThat(arrivals.exit()).isEqualTo(2);
        assertThat(arrivals.out()).startsWith("bench: FAILED: unknown arrival schedule 'bursty'").contains("fixed, poisson");
        Run rate = bench("tpcc", "--quick", "--rates", "0");
        assertThat(rate.exit()).isEqualTo(2);
        assertThat(rate.out()).startsWith("bench: FAILED: rates must be positive");
    }

    @Test
    void aPartOfAScenarioIsCheckedBeforeAnythingRuns() {
        assertThat(refused("tpcc", "--quick", "--instances", "5"))
                .startsWith("bench: FAILED: scenario tpcc has no point with instances [5]").contains("at instances 3");
        assertThat(refused("tpcc", "--quick", "--systems", "gyro,oracle"))
                .startsWith("bench: FAILED: scenario tpcc measures no system oracle").contains("gyro, 2pc, centralized");
        assertThat(refused("tpcc", "--quick", "--clients", "4", "--rates", "10"))
                .startsWith("bench: FAILED: --clients (closed loop) and --rates (open loop)");
        assertThat(refused("tpcc", "--quick", "--clients", "0")).startsWith("bench: FAILED: --clients counts are at least 1");
        assertThat(refused("scale-sim", "--quick", "--instances", "8"))
                .startsWith("bench: FAILED: --instances, --systems and --clients go with");
    }

    /** What {@code gyro bench args} printed, having exited with 2 (refused before anything ran). */
    static String refused(String... args) {
        Run r = bench(args);
        assertThat(r.exit()).as(r.out()).isEqualTo(2);
        return r.out();
    }

    @Test
    void aWorkloadOptionTheApplicationLacksFailsBeforeAnythingRuns(@TempDir Path dir) {
        // local-ratio's micro-benchmark takes a think time; a negative one is refused by the workload itself
        Run r = bench("local-ratio", "--quick", "--think-ms", "-5", "--out", dir.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).contains("bench: FAILED: workload option think-ms=-5 is outside");
        assertThat(dir.resolve("results.json")).doesNotExist();
    }

    /**
     * The cheapest quick scenario, TPC-C on PostgreSQL (3 instances, 6 warehouses), through the command line, as a user
     * reruns a part of it: each system (gyro, 2pc, centralized) at 2 clients, 3 points of its 6. It ends OK, and its
     * results.json holds those points and no other, valid, with the ratios, and the plots. (The whole quick scenario,
     * 2 and 16 clients, costs a minute more of the suite and runs no other code.)
     */
    @Test
    void aPartOfTheQuickTpccScenarioRunsEndToEnd() throws Exception {
        ClusterCommandTest.require(Backend.POSTGRES);
        // a private folder, as mktemp -d makes it (mode 700): the servers' data goes elsewhere, where their system
        // user can reach it when the tests run as root
        Path out = Files.createTempDirectory("bench-tpcc-quick");
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(out)))
                .isEqualTo("rwx------");
        Run r = bench("tpcc", "--quick", "--systems", "gyro,2pc,centralized", "--clients", "2", "--out", out.toString());
        assertThat(r.exit()).as(r.out()).isZero();
        assertThat(r.out()).as("progress, then the verdict").contains("1/3", "3/3", "bench: OK (tpcc, 3 points run");

        JsonNode root = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        assertThat(root.get("scenario").asText()).isEqualTo("tpcc");
        assertThat(root.get("quick").asBoolean()).isTrue();
        assertThat(root.get("valid").asBoolean()).isTrue();
        assertThat(root.get("pointsRun").asInt()).isEqualTo(3);
        assertThat(root.get("command").asText()).contains("--systems gyro,2pc,centralized --clients 2");
        Set<String> systems = new HashSet<>();
        for (JsonNode p : root.get("points")) {
            String key = p.get("system").asText() + " at " + p.get("parameters").get("clients");
            systems.add(p.get("system").asText());
            assertThat(p.get("valid").asBoolean()).as(key).isTrue();
            assertThat(p.get("throughput").asDouble()).as(key).isPositive();
            assertThat(p.get("parameters").get("warehouses").asInt()).as(key).isEqualTo(6);
            assertThat(p.get("parameters").get("clients").asInt()).as(key).isEqualTo(2);
            if (p.get("system").asText().equals("gyro"))
                assertThat(p.get("ratios").get("2pc").get("throughput").asDouble()).as(key).isPositive();
        }
        assertThat(systems).containsExactlyInAnyOrder("gyro", "2pc", "centralized");
        for (String f : List.of("throughput.png", "latency-light.png", "summary.md"))
            assertThat(Files.size(out.resolve(f))).as(f).isGreaterThan(500);
        assertThat(out.resolve(".work")).as("the work directory is removed").doesNotExist();
    }
}
