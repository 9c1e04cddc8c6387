package dev.gyro.cluster;

import dev.gyro.check.Access;
import dev.gyro.check.AccessLog;
import dev.gyro.check.ReadFromChecker;

import dev.gyro.app.Classification;
import dev.gyro.app.Kind;
import dev.gyro.apps.store.OnlineStore;
import dev.gyro.client.GyroClient;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dynamic check of Definition 1 on a live 3-instance ring: with the store's correct
 * classification no request reads from a local request of another partition; with order misclassified as local,
 * addItem requests of other carts read the ITEMS rows such local orders wrote, and the checker names them.
 */
@Tag("slow")
class DynamicCheckTest {

    @TempDir
    Path dir;

    List<ReadFromChecker.Violation> runStore(Classification classification, Path where) throws Exception {
        try (LocalCluster cluster = LocalCluster.create(where, new OnlineStore(), 3, 1, 42, n -> {})
                .withClassification(classification).startAll();
             GyroClient client = GyroClient.connect(cluster.addresses())) {
            AccessLog log = new AccessLog();
            for (int i = 0; i < 3; i++) cluster.instance(i).observeRequests(log);
            SplittableRandom random = new SplittableRandom(1);
            for (long cart = 1; cart <= 60; cart++) {
                client.call("createCart", cart);
                for (int l = 0; l < 2; l++) client.call("addItem", cart, 1L + random.nextInt(20), 1);
                client.call("getCart", cart);
                client.call("order", cart);
            }
            assertThat(cluster.awaitQuiet(10_000)).isTrue();
            List<Access> all = log.all();
            assertThat(all).hasSizeGreaterThanOrEqualTo(60 * 5);
            assertThat(all).anySatisfy(a -> assertThat(a.reads()).anySatisfy(r -> {
                assertThat(r.table()).isEqualTo("ITEMS");
                assertThat(r.wholeTable()).isFalse();
            }));
            assertThat(all).anySatisfy(a -> assertThat(a.writes()).isNotEmpty());
            return ReadFromChecker.check(all);
        }
    }

    @Test
    void theStoresClassificationPassesTheCheck() throws Exception {
        assertThat(runStore(new OnlineStore().classification(), dir.resolve("right"))).isEmpty();
    }

    @Test
    void orderMisclassifiedAsLocalIsCaught() throws Exception {
        List<Classification.Rule> rules = new ArrayList<>();
        for (Classification.Rule r : new OnlineStore().classification().rules())
            rules.add(r.name().equals("order")
                    ? new Classification.Rule(r.name(), Kind.LOCAL, r.readOnly(), r.partitionBy(), "deliberately wrong")
                    : r);
        List<ReadFromChecker.Violation> violations = runStore(new Classification(rules), dir.resolve("wrong"));
        assertThat(violations).isNotEmpty();
        assertThat(violations).anySatisfy(v -> {
            assertThat(v.writer().transaction()).isEqualTo("order");
            assertThat(v.row().table()).isEqualTo("ITEMS");
            assertThat(v.reader().partition()).isNotEqualTo(v.writer().partition());
        });
    }
}
