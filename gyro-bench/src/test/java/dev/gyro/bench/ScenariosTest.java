package dev.gyro.bench;

import dev.gyro.app.Call;
import dev.gyro.cluster.Backend;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The scenario definitions say what each experiment needs and what the paper reports for it (the engine itself:
 * ScenarioRunnerTest).
 */
@Tag("servers")
class ScenariosTest {

    static Scenario quick(String name) {
        return Scenarios.define(name, Scenarios.Options.of(true));
    }

    static Set<Object> values(Scenario s, String parameter) {
        return s.settings().stream().map(st -> st.parameters().get(parameter)).collect(Collectors.toSet());
    }

    @Test
    void unknownScenarioNamesTheKnownOnes() {
        assertThatThrownBy(() -> quick("scale-wan")).hasMessageContaining("unknown scenario 'scale-wan'")
                .hasMessageContaining("local-ratio, scale-lan, wan-latency, wan-scale, tpcc");
    }

    @Test
    void scaleLanComparesGyroWithTwoPhaseCommitAndThePeerOnPostgresByDefault() {
        for (boolean quick : List.of(true, false)) {
            Scenario s = Scenarios.define("scale-lan", Scenarios.Options.of(quick));
            assertThat(s.allSystems()).containsExactly("gyro", "2pc", "peer", "centralized");
            assertThat(values(s, "app")).containsExactlyInAnyOrder("tpcw", "rubis");
            assertThat(s.settings()).allMatch(st -> st.backend() == Backend.POSTGRES && !st.wan().emulated()
                    && st.capacity().emulated());
            assertThat(s.bound().meanMs()).isEqualTo(2000);
            // centralized only at one instance, the reference; every other setting has gyro, 2pc and the peer
            for (Scenario.Setting st : s.settings())
                if (st.instances() == 1) assertThat(s.systemsAt(st)).contains("centralized");
                else assertThat(s.systemsAt(st)).containsExactly("gyro", "2pc", "peer");
            assertThat(s.paper()).extracting(Scenario.PaperRatio::paper).contains(4.2, 58.6, 1.4, 35.7);
        }
        assertThat(values(Scenarios.define("scale-lan", Scenarios.Options.of(false)), "instances"))
                .containsExactlyInAnyOrder(1, 2, 4, 8);
        Scenario sqlite = Scenarios.define("scale-lan", new Scenarios.Options(true, Backend.SQLITE, false, null, null));
        assertThat(sqlite.settings()).allMatch(st -> st.backend() == Backend.SQLITE);
        Scenario plain = Scenarios.define("scale-lan", new Scenarios.Options(true, null, true, null, null));
        assertThat(plain.settings()).allMatch(st -> !st.capacity().emulated() && st.mode().startsWith("plain"));
    }

    @Test
    void tpccPartitionsAMultipleOfTheInstancesInWarehouses() {
        for (boolean quick : List.of(true, false)) {
            Scenario s = Scenarios.define("tpcc", Scenarios.Options.of(quick));
            assertThat(s.systems()).containsExactly("gyro", "2pc", "centralized");
            for (Scenario.Setting st : s.settings()) {
                assertThat(st.scale()).isEqualTo(st.parameters().get("warehouses"));
                assertThat(st.scale() % st.instances()).isZero();
                assertThat(st.scale()).isGreaterThanOrEqualTo(st.instances());
            }
        }
    }

    @Test
    void wanScenariosRunOnThePapersWan() {
        for (String name : List.of("wan-latency", "wan-scale")) {
            Scenario s = quick(name);
            assertThat(s.bound().meanMs()).isEqualTo(5000);
            assertThat(s.settings()).allMatch(st -> st.wan().emulated());
            for (Scenario.Setting st : s.settings()) assertThat(st.instances()).isEqualTo(st.parameters().get("sites"));
        }
        // Table III: both centralized deployments, gyro and read-only side by side at 2, 3 and 5 sites (quick: 5), on
        // the same (homed) calls, on row-locking PostgreSQL; the paper's ratios against the paper's centralized setting
        Scenario full = Scenarios.define("wan-latency", Scenarios.Options.of(false));
        assertThat(values(full, "sites")).containsExactlyInAnyOrder(2, 3, 5);
        assertThat(full.paper()).extracting(Scenario.PaperRatio::paper).contains(2.1, 3.2, 47.9, 10.8, 11.9, 4.3);
        Scenario latency = quick("wan-latency");
        assertThat(values(latency, "sites")).containsExactly(5);
        assertThat(latency.settings()).allMatch(st -> st.backend() == Backend.POSTGRES && latency.systemsAt(st)
                .containsAll(List.of("gyro", "read-only", "centralized", "centralized-jdbc")));
        assertThat(latency.paper()).extracting(Scenario.PaperRatio::paper).containsExactlyInAnyOrder(47.9, 10.8, 11.9, 4.3);
        assertThat(latency.paper()).allMatch(p -> p.baseline().equals("centralized-jdbc"));
        // Figure 6: the centralized deployments are the one-site reference of each application
        Scenario scale = quick("wan-scale");
        for (Scenario.Setting st : scale.settings())
            if (scale.systemsAt(st).contains("centralized"))
                assertThat(st.instances()).isEqualTo(1);
            else assertThat(scale.systemsAt(st)).containsExactly("gyro", "read-only");
        assertThat(scale.settings()).filteredOn(st -> st.instances() == 1)
                .allMatch(st -> scale.systemsAt(st).equals(List.of("centralized", "centralized-jdbc")));
    }

    @Test
    void thinkTimeComesFromTheWorkloadOptionTheScenarioSets() {
        Scenario s = Scenarios.define("scale-lan", new Scenarios.Options(true, Backend.SQLITE, false, 250L, null));
        for (Scenario.Setting st : s.settings()) {
            assertThat(st.options().asMap()).containsEntry("think-ms", "250");
            var workload = st.app().workload(st.scale(), st.options());
            assertThat(workload.describe()).contains("think time mean 250 ms");
            Call first = workload.newSession(0, WorkloadRunner.sessionRandom(1, 0)).next(null);
            assertThat(first.thinkMillis()).isPositive();
        }
    }

    @Test
    void anOpenLoopReplacesTheClientSweep() {
        Scenario.Load open = Scenario.Load.open(List.of(50.0, 100.0), 8, WorkloadRunner.Arrivals.POISSON);
        Scenario s = Scenarios.define("tpcc", new Scenarios.Options(true, null, false, null, open));
        assertThat(s.load().closedLoop()).isFalse();
        assertThat(s.load().parameters(1)).containsEntry("rate", 100.0).containsEntry("sessions", 8);
        assertThat(s.load().openLoop(0).ratePerSecond()).isEqualTo(50.0);
    }
}
