package dev.gyro.bench;

import dev.gyro.analyzer.AnalysisResult;
import dev.gyro.analyzer.Analyzer;
import dev.gyro.app.Application;
import dev.gyro.app.Call;
import dev.gyro.app.Classification;
import dev.gyro.app.ClientSession;
import dev.gyro.app.Kind;
import dev.gyro.app.Workload;
import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.micro.Micro;
import dev.gyro.apps.rubis.Rubis;
import dev.gyro.apps.store.OnlineStore;
import dev.gyro.apps.tpcc.Tpcc;
import dev.gyro.apps.tpcw.Tpcw;
import dev.gyro.check.Access;
import dev.gyro.check.AccessLog;
import dev.gyro.check.ReadFromChecker;
import dev.gyro.client.GyroClient;
import dev.gyro.cluster.LocalCluster;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The static analysis and the dynamic check of Definition 1 agree on every built-in application: each application's
 * source is classified by {@code gyro analyze} (gyro-analyzer), the instances route by that classification, not the
 * application's hand-written one, and while its mix runs on three instances every request's reads and writes are
 * recorded; no request may have read a row that a request the analyzer classified local wrote in another partition
 * (ReadFromChecker). Where the analyzer differs from the hand-written files is said in gyro-analyzer/TABLE-I.md.
 */
@Tag("slow")
class AnalyzerAgreementTest {

    /** The analyzer's classification of one built-in application, from gyro-apps' source in this checkout. */
    static Classification analyzed(String app) {
        Path source = Path.of("..", "gyro-apps", "src", "main", "java", "dev", "gyro", "apps", app);
        assertThat(source).as("the source of " + app + " (tests run in gyro-bench/)").isDirectory();
        AnalysisResult result = new Analyzer().analyze(List.of(source));
        return result.classificationFile();
    }

    static Set<String> named(Classification c, Kind kind, boolean writers) {
        return c.rules().stream().filter(r -> r.kind() == kind && (!writers || !r.readOnly()))
                .map(Classification.Rule::name).collect(Collectors.toSet());
    }

    /** Runs the spec with the analyzer's classification, checks Definition 1, returns what was recorded. */
    static List<Access> assertAgrees(ClusterBenchmark.Spec spec, Classification analyzed) throws Exception {
        AccessLog accesses = new AccessLog();
        ClusterBenchmark.Report report = ClusterBenchmark.run(spec, new ClusterBenchmark.Listener() {}, accesses, analyzed);
        assertThat(report.problems()).as(spec.app().name() + " with the analyzer's classification").isEmpty();
        assertLocalWritersRan(accesses.all(), analyzed);
        return accesses.all();
    }

    /** The check means something only if requests the analyzer made local and that write did run, and wrote. */
    static void assertLocalWritersRan(List<Access> all, Classification analyzed) {
        Set<String> localWriters = named(analyzed, Kind.LOCAL, true);
        localWriters.addAll(named(analyzed, Kind.LOCAL_OR_GLOBAL, true));
        assertThat(all).as("recorded accesses").hasSizeGreaterThan(20);
        assertThat(all).as("a local write by a transaction the analyzer classified local or local-or-global")
                .anySatisfy(a -> {
                    assertThat(localWriters).contains(a.transaction());
                    assertThat(a.global()).isFalse();
                    assertThat(a.writes()).isNotEmpty();
                });
        assertThat(ReadFromChecker.check(all)).isEmpty();
    }

    @Test
    void tpcwOrderingMix(@TempDir Path dir) throws Exception {
        Classification c = analyzed("tpcw");
        assertThat(named(c, Kind.GLOBAL, false)).containsExactlyInAnyOrder("adminUpdate", "createEmptyCart",
                "createNewCustomer", "doBuyConfirm", "doBuyConfirmWithAddress");
        List<Access> all = assertAgrees((new ClusterBenchmark.Spec(new Tpcw(new Tpcw.Size(300, 400)), dir, 3, 1, 5, 8,
                Bounded.AT_MOST, WorkloadOptions.of(Map.of("mix", "ordering")))).bounded(Bounded.CALLS), c);
        // the two writers the existence reads made local ran locally, beside the inserts at MAX + 1 they once feared
        assertThat(all).anySatisfy(a -> assertThat(a.transaction()).isEqualTo("doCart"));
        assertThat(all).anySatisfy(a -> assertThat(a.transaction()).isEqualTo("createEmptyCart"));
    }

    @Test
    void rubisBiddingMix(@TempDir Path dir) throws Exception {
        Classification c = analyzed("rubis");
        assertThat(named(c, Kind.LOCAL_OR_GLOBAL, false)).containsExactlyInAnyOrder("storeBid", "storeBuyNow",
                "retractBid", "storeComment");
        List<Access> all = assertAgrees((new ClusterBenchmark.Spec(new Rubis(new Rubis.Size(300, 200, 100)), dir, 3, 1,
                7, 10, Bounded.AT_MOST, WorkloadOptions.NONE)).bounded(Bounded.CALLS), c);
        assertThat(all).anySatisfy(a -> {
            assertThat(a.transaction()).isEqualTo("storeBid");
            assertThat(a.global()).isFalse();
        });
    }

    /**
     * TPC-C's New-Order and Payment come out global (their lines are array elements the analysis does not trace), so
     * under the mix few requests complete in a few seconds; the terminals' calls are sent one by one instead, with a
     * Delivery (the one writer the analyzer makes local) for every district of every warehouse among them.
     */
    @Test
    void tpccTerminalsCallsAndDeliveries(@TempDir Path dir) throws Exception {
        Classification c = analyzed("tpcc");
        assertThat(named(c, Kind.LOCAL, true)).containsExactly("delivery");
        int warehouses = 4;
        Tpcc tpcc = new Tpcc(new Tpcc.Size(500, 20));
        Workload mix = tpcc.workload(warehouses, WorkloadOptions.of(Map.of("remote-lines", "20", "remote-payments", "40")));
        List<Call> calls = new ArrayList<>();
        for (int terminal = 0; terminal < warehouses; terminal++) {
            ClientSession session = mix.newSession(terminal, new SplittableRandom(9 + terminal));
            for (int i = 0; i < 10; i++) calls.add(session.next(null));
            calls.add(Call.of("delivery", 1 + terminal, 1 + terminal));
        }
        List<Access> all = runByHand(tpcc, warehouses, dir, c, calls);
        assertThat(all).anySatisfy(a -> assertThat(a.transaction()).isEqualTo("newOrder"));
    }

    @Test
    void microMostlyLocal(@TempDir Path dir) throws Exception {
        Classification c = analyzed("micro");
        assertThat(named(c, Kind.LOCAL, true)).containsExactly("localOp");
        assertAgrees((new ClusterBenchmark.Spec(new Micro(), dir, 3, 1, 3, 6, Bounded.AT_MOST,
                WorkloadOptions.of(Map.of("service-ms", "0", "local", "70")))).bounded(Bounded.CALLS), c);
    }

    /** The store defines no workload: carts are filled and ordered by hand, as its tutorial does. */
    @Test
    void storeCartsFilledAndOrdered(@TempDir Path dir) throws Exception {
        Classification c = analyzed("store");
        assertThat(named(c, Kind.LOCAL, true)).containsExactlyInAnyOrder("createCart", "addItem");
        // carts of every partition buy from one small catalogue, so orders and other carts' addItem meet on ITEMS
        SplittableRandom random = new SplittableRandom(3);
        List<Long> open = new ArrayList<>();
        List<Call> calls = new ArrayList<>();
        for (long cart = 1; cart <= 90; cart++) {
            calls.add(Call.of("createCart", cart));
            open.add(cart);
            calls.add(Call.of("addItem", open.get(random.nextInt(open.size())), 1L + random.nextInt(10), 1 + random.nextInt(3)));
            if (cart % 3 == 0) {
                long done = open.remove(random.nextInt(open.size()));
                calls.add(Call.of("addItem", done, 1L + random.nextInt(10), 1));
                calls.add(Call.of("getCart", done));
                calls.add(Call.of("order", done));
            }
        }
        List<Access> all = runByHand(new OnlineStore(), 1, dir, c, calls);
        assertThat(all).anySatisfy(a -> assertThat(a.transaction()).isEqualTo("order"));
    }

    /** Sends the calls one by one to three instances routing by {@code c}, recording, then checks Definition 1. */
    static List<Access> runByHand(Application app, int scale, Path dir, Classification c, List<Call> calls) throws Exception {
        AccessLog log = new AccessLog();
        try (LocalCluster cluster = LocalCluster.create(dir, app, 3, scale, 42, n -> {}).withClassification(c).startAll();
             GyroClient client = GyroClient.connect(cluster.addresses())) {
            for (int i = 0; i < 3; i++) cluster.instance(i).observeRequests(log);
            for (Call call : calls) client.call(call.transaction(), call.parameterArray());
            assertThat(cluster.awaitQuiet(30_000)).isTrue();
        }
        assertLocalWritersRan(log.all(), c);
        return log.all();
    }
}
