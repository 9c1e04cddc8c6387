package dev.gyro.cli;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.cluster.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.UUID;

import static dev.gyro.cli.ClusterCommandTest.gyro;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code gyro call --id}: a call sent again with the same id is answered from its record, not run twice, which is how
 * a user learns the outcome an earlier answer called unknown (docs/decisions/37-request-ids.md); an id that is no UUID
 * is refused, naming the problem.
 */
class CallIdTest {

    @Test
    void aCallSentAgainWithItsIdIsAnsweredFromItsRecord(@TempDir Path dir) throws Exception {
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 1, 1, 42, n -> {}).startAll()) {
            String ring = cluster.addresses().get(0);
            assertThat(gyro("call", "--ring", ring, "--insecure", "createCart", "9").out()).startsWith("OK");
            String id = UUID.randomUUID().toString();
            ClusterCommandTest.Run first = gyro("call", "--ring", ring, "--insecure", "--id", id, "addItem", "9", "3", "1");
            ClusterCommandTest.Run again = gyro("call", "--ring", ring, "--insecure", "--id", id, "addItem", "9", "3", "1");
            assertThat(first.exit()).as(first.out()).isZero();
            assertThat(first.out()).startsWith("OK");
            assertThat(again.out()).isEqualTo(first.out());
            try (Connection c = cluster.connect(0); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT QTY FROM SHOPPING_CARTS WHERE CART_ID = 9 AND ITEM_ID = 3")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(1);
            }

            ByteArrayOutputStream err = new ByteArrayOutputStream();
            PrintStream saved = System.err;
            ClusterCommandTest.Run bad;
            try {
                System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
                bad = gyro("call", "--ring", ring, "--insecure", "--id", "cart-9", "addItem", "9", "3", "1");
            } finally {
                System.setErr(saved);
            }
            assertThat(bad.exit()).isEqualTo(2);
            assertThat(err.toString(StandardCharsets.UTF_8))
                    .contains("gyro call: --id cart-9 is not a request id: a request id is a UUID");
        }
    }
}
