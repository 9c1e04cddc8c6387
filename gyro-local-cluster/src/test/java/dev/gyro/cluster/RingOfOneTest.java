package dev.gyro.cluster;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.client.GyroClient;
import dev.gyro.wire.Reply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/** One instance alone: globals run at once, and its outbox does not grow with every update it ever executed. */
class RingOfOneTest {

    @Test
    void aLoneInstanceRunsGlobalsAndKeepsItsOutboxEmpty(@TempDir Path dir) throws Exception {
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 1, 1, 42, n -> {}).startAll();
             GyroClient client = GyroClient.connect(cluster.addresses())) {
            for (long cart = 1; cart <= 5; cart++) {
                assertThat(client.call("createCart", cart).ok()).isTrue();
                assertThat(client.call("addItem", cart, cart, 1).ok()).isTrue();
                Reply order = client.call("order", cart);
                assertThat(order.status()).as(order.toString()).isEqualTo(Reply.Status.OK);
                assertThat(order.gsn()).isEqualTo(cart);
            }
            assertThat(cluster.awaitQuiet(10_000)).isTrue();
            try (Connection c = cluster.connect(0); Statement s = c.createStatement()) {
                assertThat(scalar(s, "SELECT COUNT(*) FROM gyro_outbox")).isZero();
                assertThat(scalar(s, "SELECT last_gsn FROM gyro_state")).isEqualTo(5);
                assertThat(scalar(s, "SELECT COUNT(*) FROM ORDERS")).isEqualTo(5);
            }
        }
    }

    static long scalar(Statement s, String sql) throws Exception {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
