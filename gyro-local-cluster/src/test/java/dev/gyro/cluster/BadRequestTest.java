package dev.gyro.cluster;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.client.GyroClient;
import dev.gyro.protocol.Value;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.runtime.InstanceConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A request with wrong parameters is refused at once (docs/decisions/10-errors.md), found by fuzzing: it used to
 * wait in the session gate for the gsn its client named (up to 30 s) before a local request was refused, and to
 * queue for the token before a global one was.
 */
class BadRequestTest {

    @Test
    void wrongParametersAreRefusedBeforeTheSessionGateAndTheToken(@TempDir Path dir) throws Exception {
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 2, 1, 42, n -> {}).startAll()) {
            // local: createCart(long), with a text and a session gsn no instance will reach
            Reply local = cluster.instance(1).call(new Request("createCart", List.of(new Value.Text("x")), false,
                    Long.MAX_VALUE));
            assertThat(local.status()).as(local.toString()).isEqualTo(Reply.Status.BAD_REQUEST);
            assertThat(local.message()).contains("expected").contains("createCart");
            // global: order(long) with a blob; refused without asking for the token
            // global: order(long) with a blob that instance 1 owns; refused without asking for the token, which
            // instance 0 holds and would otherwise pass
            Value blob = null;
            for (byte b = 0; blob == null; b++) {
                Value v = new Value.Blob(new byte[] {b});
                if (cluster.instance(1).routing().decide("order", List.of(v), 1).owner() == 1) blob = v;
            }
            Reply global = cluster.instance(1).call(new Request("order", List.of(blob), false, 0));
            assertThat(global.status()).as(global.toString()).isEqualTo(Reply.Status.BAD_REQUEST);
            assertThat(global.message()).contains("expected").contains("order");
            assertThat(new String(cluster.instance(0).statusJson())).contains("\"tokenPasses\":0");
        }
    }

    /**
     * A huge argument is refused by its size, and no reply repeats what it quotes whole: a 200 MB argument once came
     * back as a 200-million-character error, and the cluster's memory stayed grown.
     */
    @Test
    void aHugeRequestIsRefusedByItsSizeAndNoErrorEchoesItsArgument(@TempDir Path dir) throws Exception {
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 2, 1, 42, n -> {}).startAll();
             GyroClient client = GyroClient.connect(cluster.addresses())) {
            String huge = "x".repeat(InstanceConfig.MAX_REQUEST_BYTES + 1);
            Reply tooBig = client.call("createCart", huge);
            assertThat(tooBig.status()).isEqualTo(Reply.Status.BAD_REQUEST);
            assertThat(tooBig.message()).contains("bytes is refused").contains(Integer.toString(InstanceConfig.MAX_REQUEST_BYTES))
                    .doesNotContain("xxx");
            // under the limit, but of the wrong type: refused, quoting at most a short part of it
            String big = "y".repeat(InstanceConfig.MAX_REQUEST_BYTES / 2);
            Reply wrongType = client.call("createCart", big);
            assertThat(wrongType.status()).isEqualTo(Reply.Status.BAD_REQUEST);
            assertThat(wrongType.message()).contains("createCart").hasSizeLessThan(Reply.MAX_MESSAGE_CHARS + 100);
            assertThat(client.call("createCart", 5L).ok()).as("the instance serves on").isTrue();
        }
    }

    /** The limit is the instance's setting ({@code maxRequestBytes}; at least 1024 bytes). */
    @Test
    void theLimitIsASetting(@TempDir Path dir) throws Exception {
        try (LocalCluster cluster = LocalCluster.create(dir, new OnlineStore(), 1, 1, 42, n -> {})
                .withInstanceConfig(c -> c.withMaxRequestBytes(2048)).startAll();
             GyroClient client = GyroClient.connect(cluster.addresses())) {
            Reply refused = client.call("createCart", "z".repeat(3000));
            assertThat(refused.status()).isEqualTo(Reply.Status.BAD_REQUEST);
            assertThat(refused.message()).contains("at most 2048 bytes");
            assertThat(client.call("createCart", 6L).ok()).isTrue();
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> LocalCluster.create(dir.resolve("small"),
                        new OnlineStore(), 1, 1, 42, n -> {}).withInstanceConfig(c -> c.withMaxRequestBytes(100)).startAll())
                .hasMessageContaining("maxRequestBytes must be from 1024");
    }
}
