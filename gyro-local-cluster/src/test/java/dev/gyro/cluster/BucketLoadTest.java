package dev.gyro.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gyro.apps.store.OnlineStore;
import dev.gyro.client.GyroClient;
import dev.gyro.protocol.Value;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each instance counts the local requests of each bucket it owns (what {@code gyro cluster rebalance --by load}
 * reads, docs/operations.md): a cart's requests count in its bucket at its owner, nowhere else, and global requests
 * count in no bucket.
 */
class BucketLoadTest {

    @Test
    void aCartsLocalRequestsCountInItsBucketAtItsOwner(@TempDir Path dir) throws Exception {
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 2, 1, 42, n -> {}).startAll();
             GyroClient client = GyroClient.connect(cluster.addresses())) {
            long cart = StoreClusterChecks.cartOwnedBy(client, 1, 1);
            int bucket = client.routing().map().bucketOf(new Value.Int(cart));
            assertThat(client.call("createCart", cart).ok()).isTrue();
            for (int k = 0; k < 4; k++) assertThat(client.call("addItem", cart, 1L + k, 1).ok()).isTrue();
            assertThat(client.call("order", cart).ok()).isTrue(); // global: no bucket's
            JsonNode owner = new ObjectMapper().readTree(cluster.instance(1).statusJson()).get("bucketRequests");
            JsonNode other = new ObjectMapper().readTree(cluster.instance(0).statusJson()).get("bucketRequests");
            assertThat(owner).hasSize(client.routing().map().buckets());
            long elsewhere = 0;
            for (int b = 0; b < owner.size(); b++) {
                if (b != bucket) elsewhere += owner.get(b).asLong();
                elsewhere += other.get(b).asLong();
            }
            assertThat(owner.get(bucket).asLong()).as("requests of cart %d's bucket %d at its owner", cart, bucket)
                    .isEqualTo(5);
            assertThat(elsewhere).as("requests counted in other buckets or at the other instance").isZero();
        }
    }
}
