package dev.gyro.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * {@code scale-sim} end to end on a reduced sweep, through the code path the command line takes (run, table, files):
 * every point is reported in order, the figures do not depend on the threads, the files and plots are written, and
 * the table states where each ring stops scaling.
 */
class ScaleSimScenarioTest {

    static ScaleSimScenario.Config reduced() {
        ScaleSimScenario.Ring fourBelts = new ScaleSimScenario.Ring("4-belts", 4, true, "four belts");
        return new ScaleSimScenario.Config(true, 42, ScaleSimScenario.model(), List.of(1, 2, 8), List.of(0.9, 0.95),
                List.of(1, 4), List.of(ScaleSimScenario.ONE_AT_A_TIME, fourBelts), 1_000, 1_000);
    }

    @Test
    void oneRingIsBoundedByItsHoldersExecutionWhateverItsSize() {
        // 1 / 20 ms = 50 globals/s, the whole mix at 95% local 1,000/s: 10x one instance's 100/s; side by side 20x
        assertThat(ScaleSimScenario.oneRingBound(ScaleSimScenario.model(), 0.95, false)).isCloseTo(10, within(1e-9));
        assertThat(ScaleSimScenario.oneRingBound(ScaleSimScenario.model(0, 0.2), 0.95, true)).isCloseTo(20, within(1e-9));
        // and the simulated ring, even with free applies, stays under it at a size where its capacity is 64x
        var r = dev.gyro.sim.perf.PerfSimulator.run(ScaleSimScenario.model(0, 0.2),
                new dev.gyro.sim.perf.PerfSetting(64, 1, false, 0.95, 8, 5_000, 5_000, 42));
        assertThat(r.throughput()).as(r.summary()).isLessThanOrEqualTo(10 * 100 * 1.05);
    }

    @Test
    void aReducedSweepRunsWritesAndStatesWhereEachRingStopsScaling(@TempDir Path out) throws Exception {
        ScaleSimScenario.Config config = reduced();
        List<Integer> seen = new ArrayList<>();
        ScaleSimScenario.Result r = ScaleSimScenario.run(config, 2, (i, n, p, elapsed) -> {
            assertThat(n).isEqualTo(config.points());
            seen.add(i);
        });
        assertThat(seen).hasSize(24).isSorted().startsWith(1).endsWith(24);
        assertThat(r.points()).hasSize(24);

        // one thread or two: each point is its own seeded simulation
        ScaleSimScenario.Result alone = ScaleSimScenario.run(config, 1, (i, n, p, elapsed) -> {});
        assertThat(ScaleSimScenario.csv(alone)).isEqualTo(ScaleSimScenario.csv(r));

        // one instance is every ring's reference, the emulated server's 100 requests/s
        for (ScaleSimScenario.Ring ring : config.rings())
            for (double ratio : config.localRatios())
                assertThat(r.peak(ring, ratio, 1).throughput()).isBetween(95.0, 101.0);
        // at 8 instances and 90% local, one ring is held by its global ceiling; four belts carry more
        double ring = r.peak(ScaleSimScenario.ONE_AT_A_TIME, 0.9, 8).throughput();
        double belts = r.peak(config.rings().get(1), 0.9, 8).throughput();
        assertThat(ring).isLessThan(0.75 * 800);
        assertThat(belts).isGreaterThan(1.3 * ring);

        String table = ScaleSimScenario.table(r);
        assertThat(table).contains("90% local", "95% local", "ring:", "4-belts:");
        assertThat(table).containsPattern("ring: (stops scaling at \\d+ instances|scales to 8 instances)");

        List<String> plots = ScaleSimScenario.write(out, r, "test", 1.0);
        assertThat(plots).containsExactly("throughput-90.png", "latency-global-90.png", "rotation-90.png",
                "throughput-95.png", "latency-global-95.png", "rotation-95.png");
        for (String p : plots) assertThat(Files.size(out.resolve(p))).isGreaterThan(1_000);
        List<String> csv = Files.readAllLines(out.resolve("results.csv"));
        assertThat(csv).hasSize(25);
        assertThat(csv.get(0)).startsWith("ring,belts,parallel_globals,local_ratio,instances");
        String summary = Files.readString(out.resolve("summary.md"));
        assertThat(summary).contains("# scale-sim", ScaleSimScenario.model().describe(), "## The closed form",
                "## 95% local", "`4-belts`");
    }
}
