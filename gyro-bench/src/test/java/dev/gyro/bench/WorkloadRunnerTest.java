package dev.gyro.bench;

import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.micro.Micro;
import dev.gyro.cluster.Backend;
import dev.gyro.emulation.Capacity;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The load generator against a real system: the centralized micro-benchmark database behind an emulated server of
 * one transaction at a time, 20 ms each, so that it completes at most 50 calls a second whatever this machine does.
 */
@Tag("slow")
class WorkloadRunnerTest {

    static final Micro APP = new Micro();

    static SystemUnderTest.Deployment slowServer(Path dir) throws Exception {
        return Systems.centralized().deploy(new SystemUnderTest.Setup(APP, dir, 1, 1, 3, Capacity.of(1, 20), Backend.SQLITE));
    }

    static WorkloadRunner.Result run(SystemUnderTest.Deployment d, int sessions, WorkloadRunner.OpenLoop open)
            throws InterruptedException {
        return WorkloadRunner.run(APP.workload(1, WorkloadOptions.of(Map.of("service-ms", "0"))), d.target(),
                new WorkloadRunner.Settings(sessions, Duration.ofSeconds(2), 9, Duration.ofMillis(500), open, null),
                (e, t, c) -> {});
    }

    @Test
    void anOverloadedOpenLoopShowsItsBacklogInTheLatency(@TempDir Path dir) throws Exception {
        try (SystemUnderTest.Deployment d = slowServer(dir)) {
            // 100 arrivals/s against a server that completes at most 50/s
            WorkloadRunner.Result r = run(d, 4, new WorkloadRunner.OpenLoop(100, WorkloadRunner.Arrivals.FIXED, 0));
            WorkloadRunner.OpenLoopResult o = r.openLoop();
            // arrivals every 10 ms, 2 s of them after the warm-up: they are due whether or not anyone is free
            assertThat(o.offered()).isBetween(199L, 201L);
            assertThat(o.dropped()).isZero();
            assertThat(r.completed()).isLessThan((long) (0.75 * o.offered()));
            assertThat(o.unfinished()).isEqualTo(o.offered() - r.completed());
            assertThat(o.unfinished()).isPositive();
            assertThat(o.mostQueued()).isGreaterThan(10);
            // a closed loop of 4 sessions would report about 4 x 20 ms; from the intended arrival, the backlog counts
            Measured m = Measured.of("centralized", "t", "s", Map.of(), "m", r, List.of());
            assertThat(m.all().meanMs()).isGreaterThan(200);
            assertThat(m.openLoop().queueWait().p50Ms()).isGreaterThan(100);
            assertThat(m.openLoop().offeredRate()).isCloseTo(100, org.assertj.core.api.Assertions.within(1.0));
            assertThat(d.settleAndCheck()).isEmpty();
        }
    }

    @Test
    void aBoundedQueueDropsWhatDoesNotFit(@TempDir Path dir) throws Exception {
        try (SystemUnderTest.Deployment d = slowServer(dir)) {
            WorkloadRunner.Result r = run(d, 1, new WorkloadRunner.OpenLoop(100, WorkloadRunner.Arrivals.POISSON, 2));
            WorkloadRunner.OpenLoopResult o = r.openLoop();
            assertThat(o.dropped()).isPositive();
            assertThat(o.mostQueued()).isLessThanOrEqualTo(2);
            assertThat(o.dropped() + o.unfinished() + r.completed()).isEqualTo(o.offered());
        }
    }

    @Test
    void channelsAreOpenedInSessionOrderBeforeAnySessionSends(@TempDir Path dir) throws Exception {
        try (SystemUnderTest.Deployment d = slowServer(dir)) {
            List<String> events = Collections.synchronizedList(new ArrayList<>());
            Thread caller = Thread.currentThread();
            Target recording = new Target() {
                int opened;

                public Channel open() {
                    int index = opened++;
                    events.add("open " + index + (Thread.currentThread() == caller ? "" : " elsewhere"));
                    Channel real = d.target().open();
                    return call -> {
                        events.add("call " + index);
                        return real.execute(call);
                    };
                }

                public void close() {}
            };
            WorkloadRunner.run(APP.workload(1, WorkloadOptions.NONE), recording,
                    new WorkloadRunner.Settings(3, Duration.ofMillis(300), 1), (e, t, c) -> {});
            assertThat(events.subList(0, 3)).containsExactly("open 0", "open 1", "open 2");
            assertThat(events.subList(3, events.size())).allMatch(e -> e.startsWith("call "));
            assertThat(events.subList(3, events.size())).contains("call 0", "call 1", "call 2");
        }
    }

    @Test
    void perTransactionAndPerClassHistogramsAndTheTimelineAddUp(@TempDir Path dir) throws Exception {
        try (SystemUnderTest.Deployment d = slowServer(dir)) {
            WorkloadRunner.Result r = run(d, 3, null);
            assertThat(r.openLoop()).isNull();
            long perTx = r.latencyByTransaction().values().stream().mapToLong(h -> h.getTotalCount()).sum();
            long perClass = r.latencyMicros().values().stream().mapToLong(h -> h.getTotalCount()).sum();
            long inTime = 0;
            for (long c : r.timeline().completed()) inTime += c;
            assertThat(r.completed()).isPositive();
            assertThat(perTx).isEqualTo(r.completed());
            assertThat(perClass).isEqualTo(r.completed());
            assertThat(inTime).isEqualTo(r.completed());
            assertThat(r.timeline().completed()).hasSize(20); // 2 s in 100 ms intervals
            assertThat(r.latencyByTransaction().keySet()).isEqualTo(r.byTransaction().keySet());
            // the emulated server's 20 ms are in every call
            for (var h : r.latencyByTransaction().values()) assertThat(h.getMinValue()).isGreaterThanOrEqualTo(20_000);
        }
    }

    @Test
    void callsASystemCannotRunAreCountedApart(@TempDir Path dir) throws Exception {
        try (SystemUnderTest.Deployment d = slowServer(dir)) {
            // the real server runs every call but globalOp, which it refuses the way the ShardingSphere peer does
            Target refusing = new Target() {
                public Channel open() {
                    Channel real = d.target().open();
                    return call -> call.transaction().equals("globalOp")
                            ? new Result(new dev.gyro.app.Outcome(dev.gyro.app.Outcome.Status.FAILED, List.of(),
                            "cannot run globalOp: no reason"), UNSUPPORTED)
                            : real.execute(call);
                }

                public void close() {}
            };
            WorkloadRunner.Result r = WorkloadRunner.run(APP.workload(1, WorkloadOptions.of(Map.of("local", "50",
                    "service-ms", "0"))), refusing, new WorkloadRunner.Settings(2, Duration.ofSeconds(1), 4), (e, t, c) -> {});
            assertThat(r.unsupported()).isPositive();
            assertThat(r.failed()).isZero();
            assertThat(r.byTransaction().get("globalOp").total()).isZero();
            assertThat(r.byTransaction().get("globalOp").unsupportedWhy()).isEqualTo("cannot run globalOp: no reason");
            assertThat(r.latencyByTransaction()).doesNotContainKey("globalOp");
            assertThat(r.latencyMicros()).doesNotContainKey(Target.UNSUPPORTED);
            Measured m = Measured.of("peer", "t", "s", Map.of(), "m", r, List.of());
            assertThat(m.partial()).isTrue();
            assertThat(m.requests()).isEqualTo(r.byTransaction().get("localOp").total());
        }
    }

    /**
     * A call sent in the window counts however late it completes: one session whose calls take 400 ms each sends at
     * about 0, 0.4 and 0.8 s of a 1 s window, and all three count with their whole 400 ms, the third completing after
     * the end. Counting only calls that also completed in the window left out the slowest calls of every window.
     */
    @Test
    void aCallSentInTheWindowCountsHoweverLateItCompletes() throws InterruptedException {
        Target slow = new Target() {
            public Channel open() {
                return call -> {
                    try {
                        Thread.sleep(400);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return new Result(dev.gyro.app.Outcome.ok(List.of()), "local");
                };
            }

            public void close() {}
        };
        WorkloadRunner.Result r = WorkloadRunner.run(APP.workload(1, WorkloadOptions.NONE), slow,
                new WorkloadRunner.Settings(1, Duration.ofSeconds(1), 9, Duration.ZERO, null, null), (e, t, c) -> {});
        assertThat(r.completed()).isEqualTo(3);
        assertThat(r.latencyMicros().get("local").getMinValue()).as("3 significant digits").isGreaterThanOrEqualTo(399_000);
        long inTime = 0;
        for (long c : r.timeline().completed()) inTime += c;
        assertThat(inTime).as("the timeline counts each call in the interval it was sent in").isEqualTo(3);
    }

    /**
     * A run bounded by calls ends once that many were recorded, long before its bound in time, and its throughput is
     * over the time it took: 4 sessions against a target that answers at once make 50 calls long before 60 s.
     */
    @Test
    void aRunBoundedByCallsEndsWhenTheyAreMade() throws InterruptedException {
        Target instant = new Target() {
            public Channel open() {
                return call -> new Result(dev.gyro.app.Outcome.ok(List.of()), "local");
            }

            public void close() {}
        };
        WorkloadRunner.Result r = WorkloadRunner.run(APP.workload(1, WorkloadOptions.of(Map.of("service-ms", "0"))),
                instant, WorkloadRunner.Settings.calls(4, 50, Duration.ofSeconds(60), 9), (e, t, c) -> {});
        assertThat(r.completed()).as("the calls asked for, and those in flight at the end").isBetween(50L, 54L);
        assertThat(r.seconds()).as("measured until the calls were made, not for the 60 s").isLessThan(60);
    }

    @Test
    void aRunBoundedByNoCallsIsRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> WorkloadRunner.Settings.calls(4, 0,
                Duration.ofSeconds(1), 1)).hasMessageContaining("at least one");
    }
}
