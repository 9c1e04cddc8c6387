package dev.gyro.wire;

import dev.gyro.protocol.PartitionMap;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A routing table learns instances' addresses (docs/decisions/44-ring-changes.md and 47-new-member.md): instances that
 * joined, and a group's address that changed, which a table of a later change replaces and one of an earlier change
 * does not; the change's epoch travels in the table's JSON.
 */
class RoutingTableTest {

    static RoutingTable table(String... addresses) {
        return new RoutingTable(PartitionMap.uniform(2), List.of(addresses), List.of());
    }

    @Test
    void aMovedAddressIsTakenFromATableOfALaterChangeAndNotFromAnEarlierOne() {
        RoutingTable client = table("a:1+b:1+c:1", "d:1");
        RoutingTable instance = table("a:1+b:1+c:1", "d:1");
        assertThat(instance.moveAddress(0, "a:1+x:1+c:1", 3)).isTrue();
        assertThat(instance.moveAddress(0, "a:1+y:1+c:1", 2)).as("an earlier change").isFalse();
        assertThat(instance.addresses().get(0)).isEqualTo("a:1+x:1+c:1");

        RoutingTable sent = RoutingTable.fromJson(instance.toJson());
        assertThat(sent.addressEpoch()).isEqualTo(3);
        assertThat(client.adopt(sent)).isTrue();
        assertThat(client.addresses()).containsExactly("a:1+x:1+c:1", "d:1");
        assertThat(client.addressEpoch()).isEqualTo(3);

        // A table that has not seen the change yet, but knows an instance that joined: the join is taken, not the
        // old address.
        RoutingTable stale = table("a:1+b:1+c:1", "d:1", "e:1");
        assertThat(client.adopt(stale)).isTrue();
        assertThat(client.addresses()).containsExactly("a:1+x:1+c:1", "d:1", "e:1");
        assertThat(client.adopt(stale)).as("nothing new").isFalse();
    }

    @Test
    void aMoveOfAnInstanceTheTableDoesNotKnowIsRefused() {
        assertThatThrownBy(() -> table("a:1", "b:1").moveAddress(2, "c:1+d:1", 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("instance 2");
    }
}
