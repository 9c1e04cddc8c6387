package dev.gyro.wire;

import dev.gyro.protocol.MalformedMessageException;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.Value;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WireFormatTest {

    @Test
    void requestsAndRepliesRoundTrip() {
        Request r = new Request("addItem", List.of(new Value.Int(5), new Value.Text("x"), Value.NULL), true, 17);
        assertThat(Request.decode(r.encode())).isEqualTo(r);
        Reply reply = new Reply(Reply.Status.OK, "", List.of(new Value.Int(1), new Value.Real(2.5)), 2, "global", 9);
        assertThat(Reply.decode(reply.encode())).isEqualTo(reply);
    }

    @Test
    void malformedBodiesAreRejected() {
        assertThatThrownBy(() -> Request.decode(new byte[] {1, 0, 0})).isInstanceOf(MalformedMessageException.class);
        assertThatThrownBy(() -> Request.decode(dev.gyro.protocol.Codec.encodeValues(List.of(new Value.Int(1)))))
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("transaction name");
    }

    @Test
    void routingPicksTheOwnerAndDecidesDoubleKeys() {
        PartitionMap map = PartitionMap.uniform(3);
        RoutingTable t = new RoutingTable(map, List.of("a:1", "b:1", "c:1"), List.of(
                new RoutingTable.Route("addItem", "local", new int[] {0}),
                new RoutingTable.Route("bid", "local-or-global", new int[] {0, 1}),
                new RoutingTable.Route("search", "global", new int[] {})));
        Value cart = new Value.Int(12345);
        RoutingTable.Decision d = t.decide("addItem", List.of(cart, new Value.Int(1)), 0);
        assertThat(d.owner()).isEqualTo(map.instanceOf(cart));
        assertThat(d.global()).isFalse();
        // local-or-global: local exactly when both keys route to the same instance
        long a = 1, b = 2;
        while (map.instanceOf(new Value.Int(b)) == map.instanceOf(new Value.Int(a))) b++;
        long same = b + 1;
        while (map.instanceOf(new Value.Int(same)) != map.instanceOf(new Value.Int(a))) same++;
        assertThat(t.decide("bid", List.of(new Value.Int(a), new Value.Int(b)), 0).global()).isTrue();
        assertThat(t.decide("bid", List.of(new Value.Int(a), new Value.Int(same)), 0).global()).isFalse();
        assertThat(t.decide("search", List.of(), 2)).isEqualTo(new RoutingTable.Decision(2, true));
        assertThat(t.decide("nope", List.of(), 0)).isNull();
        assertThat(t.decide("addItem", List.of(), 0)).isNull();
        assertThat(RoutingTable.fromJson(t.toJson()).decide("bid", List.of(new Value.Int(a), new Value.Int(b)), 1))
                .isEqualTo(t.decide("bid", List.of(new Value.Int(a), new Value.Int(b)), 1));
    }
}
