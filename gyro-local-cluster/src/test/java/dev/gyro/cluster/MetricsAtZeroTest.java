package dev.gyro.cluster;

import dev.gyro.app.TransactionCatalog;
import dev.gyro.apps.store.OnlineStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fresh instance that served nothing already exposes its request counters (one per catalog transaction and class it
 * can run as) and its token passes, at zero: a dashboard's rate or an alert on them sees a series from the start.
 */
class MetricsAtZeroTest {

    @Test
    void aFreshClusterExposesEveryRequestCounterAndTheTokenPassesAtZero(@TempDir Path dir) throws Exception {
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 3, 1, 42, n -> {}).startAll()) {
            for (int i = 0; i < cluster.size(); i++) {
                String text = cluster.instance(i).metricsText();
                assertThat(text).as("instance " + i)
                        .containsPattern("gyro_token_passes_total\\{.*\\} 0\\.0")
                        .containsPattern("gyro_requests_total\\{.*class=\"global\".*outcome=\"ok\".*transaction=\"order\".*\\} 0\\.0")
                        .containsPattern("gyro_requests_total\\{.*class=\"local\".*outcome=\"ok\".*transaction=\"addItem\".*\\} 0\\.0")
                        .containsPattern("gyro_request_latency_seconds_count\\{.*class=\"local\".*transaction=\"getCart\".*\\} 0")
                        .doesNotContainPattern("gyro_requests_total\\{.*class=\"global\".*transaction=\"addItem\"");
                for (String tx : new TransactionCatalog(new OnlineStore().transactions()).names())
                    assertThat(text).as("instance " + i + ", " + tx)
                            .containsPattern("gyro_requests_total\\{.*outcome=\"ok\".*transaction=\"" + tx + "\".*\\} 0\\.0");
            }
        }
    }
}
