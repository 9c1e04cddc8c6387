package dev.gyro.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gyro.app.Call;
import dev.gyro.app.ClientSession;
import dev.gyro.app.Outcome;
import dev.gyro.app.Workload;
import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.micro.Micro;
import dev.gyro.client.GyroClient;
import dev.gyro.protocol.Value;
import dev.gyro.cluster.Backend;
import dev.gyro.emulation.Capacity;
import dev.gyro.emulation.wan.Site;
import dev.gyro.emulation.wan.Wan;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The systems under test on the paper's emulated WAN (Section VII-D): Gyro on three sites (G, J, US) with clients
 * at all five, each sending to its nearest instance; the centralized database in Germany. Every latency bound is a
 * lower bound the emulation guarantees (Table II round trips), except where the point is that a request crosses
 * no inter-site link: there the median must stay under the shortest one-way delay it would otherwise add.
 */
@Tag("slow")
class WanSystemsTest {

    static final ObjectMapper JSON = new ObjectMapper();

    static SystemUnderTest.Setup setup(Path dir) {
        return new SystemUnderTest.Setup(new Micro(), dir, 3, 1, 7, Capacity.PLAIN, Backend.SQLITE, Wan.paper());
    }

    static List<Target.Channel> fiveClients(Target target) {
        List<Target.Channel> channels = new ArrayList<>();
        for (int k = 0; k < 5; k++) channels.add(target.open());
        List<Site> sites = new ArrayList<>();
        for (Target.Channel c : channels) sites.add(c.site().orElseThrow());
        assertThat(sites).containsExactly(Site.values()); // G, J, US, B, A: the order channels are opened
        return channels;
    }

    static long nanos(Target.Channel channel, Call call) {
        long t0 = System.nanoTime();
        Target.Result r = channel.execute(call);
        long nanos = System.nanoTime() - t0;
        assertThat(r.outcome().status()).as(call + ": " + r.outcome()).isEqualTo(Outcome.Status.OK);
        return nanos;
    }

    static long partitionOwnedBy(GyroClient client, String transaction, int instance, long from) {
        for (long p = from; ; p++)
            if (client.routing().decide(transaction, List.of(new Value.Int(p)), 0).owner() == instance) return p;
    }

    static long rtt(Wan.Placement wan, Site client, int instance) {
        return 2 * wan.clientOneWay(client, instance).toNanos();
    }

    @Test
    void gyroClientsUseTheirNearestInstanceAndGlobalsPayTheRing(@TempDir Path dir) throws Exception {
        try (SystemUnderTest.Deployment d = Systems.gyro().deploy(setup(dir))) {
            InProcessTarget target = (InProcessTarget) d.target();
            Wan.Placement wan = target.wan();
            assertThat(wan.sites()).containsExactly(Site.GERMANY, Site.JAPAN, Site.US_EAST);
            List<Target.Channel> clients = fiveClients(target);
            GyroClient routing = target.client();

            // A local operation of a partition the client's nearest instance owns: only the client's own round trip
            // to it (G, J, US: 20 ms within the site; Brazil to US east 145 ms; Australia to Japan 188 ms).
            long next = 1;
            for (int k = 0; k < 5; k++) {
                Site site = Wan.Placement.clientSite(k);
                int entry = wan.entryInstance(k);
                long p = partitionOwnedBy(routing, "localOp", entry, next);
                next = p + 1;
                long[] t = new long[k == 0 ? 11 : 2];
                for (int i = 0; i < t.length; i++) t[i] = nanos(clients.get(k), Call.of("localOp", p, 1, 0));
                for (long x : t) assertThat(x).as("local at %s via instance %d", site, entry)
                        .isGreaterThanOrEqualTo(rtt(wan, site, entry));
                if (k == 0) { // Germany's client at Germany's instance: no inter-site link (shortest: G-US, 46 ms)
                    Arrays.sort(t);
                    assertThat(t[t.length / 2]).isLessThan(rtt(wan, site, entry) + wan.oneWay(0, 2).toNanos());
                }
            }
            // Germany's client, a partition Japan owns: Germany forwards it, G-J both ways on top.
            long japans = partitionOwnedBy(routing, "localOp", 1, next);
            assertThat(nanos(clients.get(0), Call.of("localOp", japans, 1, 0)))
                    .isGreaterThanOrEqualTo(rtt(wan, Site.GERMANY, 0) + 2 * wan.oneWay(0, 1).toNanos());

            // A global operation at the parked token holder's predecessor waits one whole emulated token round.
            int holder = awaitQuietHolder(routing, 3);
            int p = (holder + 2) % 3; // the clients at sites 0, 1, 2 enter at instances 0, 1, 2
            long partition = partitionOwnedBy(routing, "globalOp", p, 1);
            assertThat(nanos(clients.get(p), Call.of("globalOp", partition, 1, 0)))
                    .isGreaterThanOrEqualTo(rtt(wan, Site.values()[p], p) + wan.tokenRound().toNanos());

            // All five clients at once, half global: the replicas converge and the audit holds.
            Workload workload = new Micro().workload(1, WorkloadOptions.of(Map.of("local", "50", "service-ms", "0")));
            long ok = drive(workload, clients, Duration.ofSeconds(3));
            assertThat(ok).isPositive();
            assertThat(d.settleAndCheck()).isEmpty();
        }
    }

    @Test
    void readOnlyBaselineSendsWritesRoundTheRingFromTheNearestInstance(@TempDir Path dir) throws Exception {
        try (SystemUnderTest.Deployment d = Systems.readOnly().deploy(setup(dir))) {
            InProcessTarget target = (InProcessTarget) d.target();
            List<Target.Channel> clients = fiveClients(target);
            // Australia's client enters at Japan (188 ms); a write is global in this baseline.
            long p = partitionOwnedBy(target.client(), "localOp", 1, 1);
            Target.Result r = clients.get(4).execute(Call.of("localOp", p, 1, 0));
            assertThat(r.executedAs()).isEqualTo("global");
            assertThat(nanos(clients.get(4), Call.of("localOp", p, 2, 0)))
                    .isGreaterThanOrEqualTo(rtt(target.wan(), Site.AUSTRALIA, 1));
            assertThat(d.settleAndCheck()).isEmpty();
        }
    }

    @Test
    void centralizedClientsAllGoToGermany(@TempDir Path dir) throws Exception {
        Wan wan = Wan.paper();
        try (SystemUnderTest.Deployment d = Systems.centralized().deploy(setup(dir))) {
            List<Target.Channel> clients = fiveClients(d.target());
            for (int k = 0; k < 5; k++) {
                Site site = Site.values()[k];
                // Germany 20 ms (within the site), Japan 253, US east 92, Brazil 193, Australia 314
                assertThat(nanos(clients.get(k), Call.of("localOp", (long) k + 1, 1, 0)))
                        .as("client at " + site).isGreaterThanOrEqualTo(wan.roundTripMillis(site, Site.GERMANY) * 1_000_000);
            }
            assertThat(d.settleAndCheck()).isEmpty();
        }
    }

    @Test
    void centralizedJdbcPaysARoundTripPerStatementAndOneForTheCommit(@TempDir Path dir) throws Exception {
        Wan wan = Wan.paper();
        try (SystemUnderTest.Deployment d = Systems.centralizedJdbc().deploy(setup(dir))) {
            Systems.CentralizedTarget target = (Systems.CentralizedTarget) d.target();
            List<Target.Channel> clients = fiveClients(target);
            long japan = wan.roundTripMillis(Site.JAPAN, Site.GERMANY) * 1_000_000; // 253 ms
            // A row and partition the database has never seen: two updates that find nothing, two inserts, the
            // commit. Then the same row again: two updates, the commit.
            long before = target.roundTrips.sum();
            long first = nanos(clients.get(1), Call.of("localOp", 1_000_001L, 1, 0));
            assertThat(target.roundTrips.sum() - before).isEqualTo(5);
            assertThat(first).isGreaterThanOrEqualTo(5 * japan);
            long second = nanos(clients.get(1), Call.of("localOp", 1_000_001L, 1, 0));
            assertThat(target.roundTrips.sum() - before).isEqualTo(8);
            assertThat(second).isGreaterThanOrEqualTo(3 * japan).isLessThan(4 * japan);
            assertThat(target.calls.sum()).isEqualTo(2);
            // Germany's client is at the database's site: 20 ms round trips.
            assertThat(nanos(clients.get(0), Call.of("localOp", 1_000_001L, 1, 0))).isLessThan(japan);

            // All five sites at once: the WAN waits hold no emulated slot and lose no update.
            Workload workload = new Micro().workload(1, WorkloadOptions.of(Map.of("local", "50", "service-ms", "0")));
            assertThat(drive(workload, clients, Duration.ofSeconds(2))).isPositive();
            assertThat(d.settleAndCheck()).isEmpty();
        }
    }

    @Test
    void withoutWanChannelsHaveNoSite(@TempDir Path dir) throws Exception {
        SystemUnderTest.Setup lan = new SystemUnderTest.Setup(new Micro(), dir, 3, 1, 7, Capacity.PLAIN, Backend.SQLITE);
        assertThat(lan.wan()).isSameAs(Wan.OFF);
        assertThat(lan.withDir(dir.resolve("x")).wan()).isSameAs(Wan.OFF);
        assertThat(lan.withWan(Wan.paper()).wan()).isEqualTo(Wan.paper());
        try (SystemUnderTest.Deployment d = Systems.centralized().deploy(lan)) {
            Target.Channel c = d.target().open();
            assertThat(c.site()).isEmpty();
            assertThat(c.execute(Call.of("localOp", 1L, 1, 0)).outcome().status()).isEqualTo(Outcome.Status.OK);
        }
    }

    /** Runs one workload session per channel until {@code duration} is up; returns how many calls were OK. */
    static long drive(Workload workload, List<Target.Channel> channels, Duration duration) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong ok = new AtomicLong();
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int k = 0; k < channels.size(); k++) {
            int index = k;
            Thread t = new Thread(() -> {
                ClientSession session = workload.newSession(index, new SplittableRandom(index));
                Outcome previous = null;
                while (!stop.get()) {
                    Call call = session.next(previous);
                    Target.Result r = channels.get(index).execute(call);
                    previous = r.outcome();
                    if (previous.status() == Outcome.Status.OK) ok.incrementAndGet();
                    else if (previous.status() == Outcome.Status.FAILED) failures.add(call + ": " + previous);
                }
            });
            threads.add(t);
            t.start();
        }
        Thread.sleep(duration.toMillis());
        stop.set(true);
        for (Thread t : threads) t.join();
        assertThat(failures).isEmpty();
        return ok.get();
    }

    /** Waits until every instance has applied the same gsn and the token is parked; returns its holder. */
    static int awaitQuietHolder(GyroClient client, int instances) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < deadline) {
            int holder = -1, parked = 0;
            long gsn = -1;
            boolean same = true;
            for (int i = 0; i < instances; i++) {
                JsonNode s = JSON.readTree(client.status(i));
                if (gsn < 0) gsn = s.get("lastGsn").asLong();
                if (s.get("lastGsn").asLong() != gsn) same = false;
                if (s.get("role").asText().equals("PARKED")) {
                    parked++;
                    holder = i;
                }
            }
            if (same && parked == 1) return holder;
            Thread.sleep(20);
        }
        throw new AssertionError("the ring did not become quiet within 30 s");
    }
}
