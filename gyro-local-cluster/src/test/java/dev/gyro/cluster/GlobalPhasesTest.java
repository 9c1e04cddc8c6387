package dev.gyro.cluster;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.client.GyroClient;
import dev.gyro.runtime.hook.PhaseObserver;
import dev.gyro.runtime.hook.PhaseObserver.Phase;
import dev.gyro.wire.Reply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A global request's time at its owner splits into phases that add up to it (PhaseObserver): one that finds the token
 * elsewhere waits for it and the holder's apply; one that finds the token parked at its owner waits for no apply. Each
 * visit of the token says what it applied, executed and carried on; the instance's metrics have the same timers.
 */
class GlobalPhasesTest {

    /** What one instance told. */
    static final class Told implements PhaseObserver {
        final BlockingQueue<Global> globals = new LinkedBlockingQueue<>();
        final BlockingQueue<TokenVisit> visits = new LinkedBlockingQueue<>();

        @Override
        public void global(Global request) {
            globals.add(request);
        }

        @Override
        public void tokenVisit(TokenVisit visit) {
            visits.add(visit);
        }

        Global nextGlobal() throws InterruptedException {
            Global g = globals.poll(30, TimeUnit.SECONDS);
            assertThat(g).as("a global request's phases").isNotNull();
            return g;
        }

        TokenVisit nextVisit() throws InterruptedException {
            TokenVisit v = visits.poll(30, TimeUnit.SECONDS);
            assertThat(v).as("a token visit").isNotNull();
            return v;
        }
    }

    @Test
    void aGlobalRequestsTimeSplitsIntoPhasesThatAddUp(@TempDir Path dir) throws Exception {
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 3, 1, 42, n -> {}).startAll();
             GyroClient client = GyroClient.connect(cluster.addresses())) {
            Told[] told = new Told[3];
            for (int i = 0; i < 3; i++) cluster.instance(i).observePhases(told[i] = new Told());
            // Instance 0 starts with the token (hop 0) and parks it; instance 2 owns the cart, so its order waits for
            // the token to come from 0 through 1.
            long cart = StoreClusterChecks.cartOwnedBy(client, 2, 1);
            assertThat(client.call("createCart", cart).ok()).isTrue();
            assertThat(client.call("addItem", cart, 5L, 2).ok()).isTrue();
            long t0 = System.nanoTime();
            Reply first = client.call("order", cart);
            long clientNanos = System.nanoTime() - t0;
            assertThat(first.ok()).as(first.toString()).isTrue();
            assertThat(first.executedAs()).isEqualTo("global");

            PhaseObserver.Global g = told[2].nextGlobal();
            assertThat(g.transaction()).isEqualTo("order");
            for (Phase p : Phase.values()) assertThat(g.nanos(p)).as(p.label()).isNotNegative();
            assertThat(g.nanos(Phase.TOKEN)).as("it waited for the token from instance 0").isPositive();
            assertThat(g.nanos(Phase.APPLY)).as("and for instance 2 to record it, a DBMS transaction").isPositive();
            assertThat(g.nanos(Phase.EXECUTE)).isPositive();
            assertThat(g.attempts()).as("its DBMS transaction ran once: nothing raced it").isEqualTo(1);
            assertThat(g.totalNanos()).as("its time at the instance is within what the client saw")
                    .isLessThanOrEqualTo(clientNanos);
            assertThat(cluster.awaitQuiet(30_000)).isTrue();

            // The token left 2 with the order's update, went through 0 and 1, each applying it, and parked back at 2.
            PhaseObserver.TokenVisit at2 = told[2].nextVisit();
            assertThat(at2.globals()).isEqualTo(1);
            assertThat(at2.updatesCarried()).isEqualTo(1);
            // The order's update reached 0 and 1 with the token, or just before it, sent ahead of it by 2 (decision 25):
            // applied once either way.
            PhaseObserver.TokenVisit at0 = told[0].nextVisit();
            assertThat(at0.updatesApplied()).isBetween(0, 1);
            assertThat(at0.updatesCarried()).isEqualTo(1);
            assertThat(at0.rotationNanos()).as("0 passed the token before, to 1, on the way to 2").isPositive();
            assertThat(told[1].nextVisit().updatesApplied()).as("the empty token on its way to 2").isZero();
            assertThat(told[1].nextVisit().updatesApplied()).isBetween(0, 1);
            assertThat(cluster.instance(0).appliedGsn()).isEqualTo(1);
            assertThat(cluster.instance(1).appliedGsn()).isEqualTo(1);

            // The token is parked at 2 now: a second order there waits for no apply (its token phase is only the hand
            // over to the belt loop).
            long second = StoreClusterChecks.cartOwnedBy(client, 2, cart + 1);
            assertThat(client.call("createCart", second).ok()).isTrue();
            assertThat(client.call("addItem", second, 7L, 1).ok()).isTrue();
            assertThat(client.call("order", second).ok()).isTrue();
            PhaseObserver.Global parked = told[2].nextGlobal();
            assertThat(parked.nanos(Phase.APPLY)).isZero();
            assertThat(parked.nanos(Phase.EXECUTE)).isPositive();
            assertThat(told[0].globals).as("globals are timed at their owner only").isEmpty();

            String metrics = cluster.instance(2).metricsText();
            for (Phase p : Phase.values())
                assertThat(metrics).containsPattern("(?m)^gyro_global_phase_seconds_count\\{.*phase=\"" + p.label()
                        + "\".*} 2(\\.0)?$");
            assertThat(metrics).contains("gyro_token_apply_seconds_count", "gyro_token_hold_seconds_count",
                    "gyro_token_visit_globals_sum", "gyro_token_pass_updates_sum", "gyro_token_apply_updates_sum");
            // every token carried one update at most, one order at a time, and applied it unless it came ahead
            assertThat(List.of(cluster.instance(0).metricsText().split("\n")))
                    .anyMatch(l -> l.startsWith("gyro_token_apply_updates_max") && l.matches(".* [01](\\.0)?"));
            assertThat(List.of(cluster.instance(0).metricsText().split("\n")))
                    .anyMatch(l -> l.startsWith("gyro_updates_applied_total") && l.matches(".* 2(\\.0)?"));
        }
    }
}
