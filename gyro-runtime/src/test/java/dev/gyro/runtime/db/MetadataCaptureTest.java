package dev.gyro.runtime.db;

import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Gyro's own metadata captured as row images, for a replicated group whose log carries every change of a replica's
 * database (docs/decisions/12-replicated-groups.md): refused on the application's capture, captured on the runtime's,
 * and applied elsewhere it gives the same durable state.
 */
class MetadataCaptureTest {

    @TempDir
    Path dir;

    @Test
    void metadataWritesTravelAsRowImagesOnlyOnTheRuntimesCapture() throws SQLException {
        try (Database leader = MetadataStoreTest.openInstance(dir.resolve("leader.db"));
             Database follower = MetadataStoreTest.openInstance(dir.resolve("follower.db"))) {
            assertThatThrownBy(() -> leader.inTransaction(false, c -> MetadataStore.load(
                    CapturingConnection.wrap(c, leader.dialect(), leader.tables()).connection(), 0)))
                    .hasMessageContaining("Gyro's own metadata");

            // A global request of gsn 1, the way Action.ExecuteGlobal runs it: its writes, then its gsn and update.
            List<RowChange> changes = leader.inTransaction(false, c -> {
                CapturingConnection app = CapturingConnection.wrap(c, leader.dialect(), leader.tables());
                CapturingConnection runtime = CapturingConnection.wrapIncludingMetadata(c, leader.dialect(),
                        leader.tables());
                MetadataStore.load(runtime.connection(), 0); // instance 0 of a new ring: holds the token
                try (Statement st = app.connection().createStatement()) {
                    st.executeUpdate("INSERT INTO items (id, name) VALUES (1, 'pen')");
                }
                MetadataStore.recordGlobal(runtime.connection(), new StateUpdate(1, 0, app.changes()));
                return concat(app.changes(), runtime.changes());
            });
            StateUpdate own = new StateUpdate(1, 0, changes.subList(0, 1));
            assertThat(changes).extracting(RowChange::table).containsExactly("items", "gyro_state", "gyro_outbox");

            follower.inTransaction(false, c -> {
                UpdateApplier.apply(c, changes);
                return null;
            });
            assertThat(Db.dump(follower, "items")).isEqualTo(Db.dump(leader, "items"));
            DurableState there = follower.inTransaction(false, c -> MetadataStore.load(c, 0));
            assertThat(there).isEqualTo(leader.inTransaction(false, c -> MetadataStore.load(c, 0)));
            assertThat(there.lastGsn()).isEqualTo(1);
            assertThat(there.outbox()).containsExactly(own);
        }
    }

    private static List<RowChange> concat(List<RowChange> a, List<RowChange> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
