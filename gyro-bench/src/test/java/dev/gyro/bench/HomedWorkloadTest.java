package dev.gyro.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gyro.app.Call;
import dev.gyro.app.ClientSession;
import dev.gyro.app.Outcome;
import dev.gyro.app.Workload;
import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.micro.Micro;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.Value;
import dev.gyro.cluster.Backend;
import dev.gyro.emulation.Capacity;
import dev.gyro.emulation.wan.Wan;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link HomedWorkload}: session k draws its keys among the partitions of the instance channel k enters at, and on
 * the emulated WAN a homed micro-benchmark's requests are run where they enter instead of being forwarded.
 */
@Tag("slow")
class HomedWorkloadTest {

    private static final Logger log = LoggerFactory.getLogger(HomedWorkloadTest.class);
    static final ObjectMapper JSON = new ObjectMapper();
    static final Workload MICRO = new Micro().workload(1, WorkloadOptions.of(Map.of("local", "90", "service-ms", "0")));

    @Test
    void sessionKIsHomedAtTheInstanceItsChannelEntersAt() {
        for (int n : new int[] {3, 5, 6}) {
            Wan.Placement placement = Wan.paper().place(n);
            PartitionMap map = PartitionMap.uniform(n);
            HomedWorkload homed = HomedWorkload.of(MICRO, n);
            for (int k = 0; k < 20; k++) {
                int entry = placement.entryInstance(k);
                ClientSession s = homed.newSession(k, WorkloadRunner.sessionRandom(3, k));
                Outcome ok = Outcome.ok(List.of());
                for (int i = 0; i < 50; i++) {
                    Call call = s.next(i == 0 ? null : ok);
                    assertThat(map.instanceOf(Value.of(call.parameters().get(0))))
                            .as("%d instances, session %d (%s), %s", n, k, Wan.Placement.clientSite(k), call)
                            .isEqualTo(entry);
                }
            }
        }
        // Three instances at G, J, US: Brazil's clients enter at US east, Australia's at Japan.
        Wan.Placement three = Wan.paper().place(3);
        List<Integer> entries = new ArrayList<>();
        for (int k = 0; k < 5; k++) entries.add(three.entryInstance(k));
        assertThat(entries).containsExactly(0, 1, 2, 2, 1);
    }

    @Test
    void theStreamDependsOnlyOnPlacementMapAndSeed() {
        HomedWorkload a = HomedWorkload.of(MICRO, 3);
        HomedWorkload b = HomedWorkload.of(MICRO, Wan.paper().withIntraSiteRoundTripMillis(0).place(3),
                PartitionMap.uniform(3));
        for (int k = 0; k < 5; k++) {
            ClientSession x = a.newSession(k, WorkloadRunner.sessionRandom(8, k));
            ClientSession y = b.newSession(k, WorkloadRunner.sessionRandom(8, k));
            for (int i = 0; i < 30; i++) assertThat(x.next(null).toString()).isEqualTo(y.next(null).toString());
        }
        assertThat(a.describe()).startsWith(MICRO.describe()).contains("homed").contains("3 instances");
    }

    @Test
    void aMapForAnotherClusterIsRefused() {
        assertThatThrownBy(() -> HomedWorkload.of(MICRO, Wan.paper().place(3), PartitionMap.uniform(5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the partition map routes to 5 instances but the placement places 3");
    }

    @Test
    void channelsOpenedOutOfOrderSitWhereTheirSessionNumberSays(@TempDir Path dir) throws Exception {
        SystemUnderTest.Setup setup = new SystemUnderTest.Setup(new Micro(), dir, 3, 1, 7, Capacity.PLAIN,
                Backend.SQLITE, Wan.paper());
        try (SystemUnderTest.Deployment d = Systems.centralized().deploy(setup)) {
            for (int k : new int[] {4, 1, 3}) assertThat(d.target().open(k).site()).contains(Wan.Placement.clientSite(k));
        }
    }

    /**
     * Three instances (G, J, US), ten clients over the five sites, 90% local: unhomed, a local operation belongs to
     * the client's entry instance one time in three and the rest are forwarded; homed, none is. Counted by the
     * instances themselves (their status "forwarded"), over a fixed number of calls per client.
     */
    @Test
    void homedClientsAreServedWhereTheyEnterOnTheWan(@TempDir Path dir) throws Exception {
        SystemUnderTest.Setup setup = new SystemUnderTest.Setup(new Micro(), dir, 3, 1, 7, Capacity.PLAIN,
                Backend.SQLITE, Wan.paper());
        int clients = 10, calls = 25;
        try (SystemUnderTest.Deployment d = Systems.gyro().deploy(setup)) {
            InProcessTarget target = (InProcessTarget) d.target();
            List<Target.Channel> channels = new ArrayList<>();
            for (int k = clients - 1; k >= 0; k--) channels.add(0, target.open(k)); // out of order on purpose
            HomedWorkload homed = HomedWorkload.of(MICRO, target.wan(), PartitionMap.uniform(3));

            long before = forwarded(target);
            double unhomedMillis = drive(MICRO, channels, calls);
            long unhomed = forwarded(target) - before;
            double homedMillis = drive(homed, channels, calls);
            long homedForwarded = forwarded(target) - before - unhomed;
            // For the record only: times depend on the machine, the counts above are what the test asserts.
            log.info("{} calls per run: unhomed {} forwarded, mean {} ms; homed {} forwarded, mean {} ms",
                    clients * calls, unhomed, String.format("%.0f", unhomedMillis), homedForwarded,
                    String.format("%.0f", homedMillis));

            int total = clients * calls;
            assertThat(unhomed).as("forwarded of %d unhomed calls", total).isGreaterThan(total / 2);
            assertThat(homedForwarded).as("forwarded of %d homed calls", total).isZero();
            assertThat(d.settleAndCheck()).isEmpty();
        }
    }

    static long forwarded(InProcessTarget target) throws Exception {
        long sum = 0;
        for (int i = 0; i < target.wan().instances(); i++)
            sum += JSON.readTree(target.client().status(i)).get("forwarded").asLong();
        return sum;
    }

    /**
     * Session k on channel k, {@code calls} calls each, all sessions at once; every call must succeed. Returns the
     * mean latency of a call in milliseconds.
     */
    static double drive(Workload workload, List<Target.Channel> channels, int calls) throws Exception {
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        AtomicLong ok = new AtomicLong(), nanos = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int k = 0; k < channels.size(); k++) {
            int index = k;
            Thread t = new Thread(() -> {
                ClientSession session = workload.newSession(index, WorkloadRunner.sessionRandom(21, index));
                Outcome previous = null;
                for (int i = 0; i < calls; i++) {
                    Call call = session.next(previous);
                    long t0 = System.nanoTime();
                    previous = channels.get(index).execute(call).outcome();
                    nanos.addAndGet(System.nanoTime() - t0);
                    if (previous.ok()) ok.incrementAndGet();
                    else failures.add(call + ": " + previous);
                }
            }, "homed-test-session-" + k);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) t.join();
        assertThat(failures).isEmpty();
        assertThat(ok.get()).isEqualTo((long) channels.size() * calls);
        return nanos.get() / 1e6 / ok.get();
    }
}
