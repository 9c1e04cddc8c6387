package dev.gyro.replication;

import dev.gyro.protocol.Codec;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The entries of a group's log and the rule every replica applies them by (docs/decisions/42-group-commit.md): an entry
 * holds only on the state it was computed on, named by the basis and the entry before it in its batch.
 */
class GroupEntryTest {

    private static final RowChange ROW = new RowChange("orders", RowChange.Kind.UPSERT, List.of("id", "amount"),
            List.of(Value.of(1L), Value.of(10L)), List.of("id"));
    private static final GroupEntry.RequestId BEFORE = new GroupEntry.RequestId(7, 3);

    @Test
    void severalEntriesOfABatchTravelInOneLogEntryInTheirOrder() {
        GroupEntry first = new GroupEntry(5, 9, 1, 0, 1, BEFORE, List.of(ROW));
        GroupEntry second = new GroupEntry(5, 9, 2, 0, 2, first.requestId(), List.of(ROW));
        assertThat(GroupEntry.decodeAll(GroupEntry.encodeAll(List.of(first, second)))).containsExactly(first, second);
        assertThat(GroupEntry.decodeAll(GroupEntry.encodeAll(List.of(first)))).containsExactly(first);
    }

    @Test
    void theFirstEntryOfABatchHoldsOnItsBasisAndALaterOneOnTheEntryBeforeIt() {
        GroupEntry first = new GroupEntry(5, 9, 1, 0, 1, BEFORE, List.of(ROW));
        GroupEntry second = new GroupEntry(5, 9, 2, 0, 2, first.requestId(), List.of(ROW));
        assertThat(first.holdsOn(5, BEFORE)).isTrue();
        assertThat(first.holdsOn(6, BEFORE)).as("another entry applied since").isFalse();
        assertThat(first.holdsOn(5, new GroupEntry.RequestId(7, 4))).as("another entry at that index").isFalse();
        assertThat(second.holdsOn(6, first.requestId())).isTrue();
        assertThat(second.holdsOn(5, BEFORE)).as("the entry before it was not applied").isFalse();
    }

    @Test
    void anEntryOfVersionOneIsReadAndJudgedByItsBasisAlone() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(1);
            out.writeLong(5);
            out.writeLong(9);
            out.write(Codec.encodeUpdate(new StateUpdate(4, 2, List.of(ROW))));
        }
        GroupEntry old = GroupEntry.decode(bytes.toByteArray());
        assertThat(old.requestId()).isEqualTo(new GroupEntry.RequestId(9, 4));
        assertThat(old.leader()).isEqualTo(2);
        assertThat(old.changes()).containsExactly(ROW);
        assertThat(old.holdsOn(5, BEFORE)).isTrue();
        assertThat(old.holdsOn(5, GroupEntry.RequestId.NONE)).isTrue();
        assertThat(old.holdsOn(4, BEFORE)).isFalse();
    }

    @Test
    void aDamagedLogEntryIsRefused() {
        byte[] two = GroupEntry.encodeAll(List.of(new GroupEntry(0, 1, 1, 0, List.of()),
                new GroupEntry(0, 1, 2, 0, 2, new GroupEntry.RequestId(1, 1), List.of())));
        assertThatThrownBy(() -> GroupEntry.decodeAll(java.util.Arrays.copyOf(two, two.length - 3)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> GroupEntry.decodeAll(new byte[] {9, 0, 0})).isInstanceOf(IllegalArgumentException.class);
    }
}
