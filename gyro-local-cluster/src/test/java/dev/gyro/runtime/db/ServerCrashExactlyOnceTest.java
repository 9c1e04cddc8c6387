package dev.gyro.runtime.db;

import dev.gyro.protocol.Action;
import dev.gyro.protocol.ConveyorBelt;
import dev.gyro.protocol.ConveyorBeltConfig;
import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.Message;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Token;
import dev.gyro.protocol.Value;
import dev.gyro.cluster.Backend;
import dev.gyro.servers.DatabaseServer;
import dev.gyro.cluster.TestServers;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import org.junit.jupiter.api.Tag;

/**
 * Exactly once across crashes of the database server itself (docs/decisions/05-exactly-once.md): instance 1 of a ring
 * of three, its database on a real server that is crashed (PostgreSQL: immediate shutdown; MariaDB: SIGKILL) once in
 * the middle of applying a token's updates and once right after committing them. After each restart the instance
 * resumes from what its database recorded, driven by the real {@link ConveyorBelt}: the update that did not commit
 * is applied again, the one that did is not.
 */
@Tag("servers")
class ServerCrashExactlyOnceTest {

    static final StateUpdate U1 = update(1, 0, 1, 10);
    static final StateUpdate U2 = update(2, 2, 2, 20);

    static StateUpdate update(long gsn, int origin, long id, long stock) {
        return new StateUpdate(gsn, origin, List.of(new RowChange("items", RowChange.Kind.UPSERT,
                List.of("id", "stock"), List.of(new Value.Int(id), new Value.Int(stock)), List.of("id"))));
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"POSTGRES", "MARIADB"})
    void updatesAreAppliedExactlyOnceAcrossServerCrashes(Backend backend) throws Exception {
        try (DatabaseServer server = TestServers.privateServer(backend)) {
            server.createDatabase("gyro");
            String url = server.jdbcUrl("gyro");
            ConveyorBeltConfig config = ConveyorBeltConfig.of(1, 3);

            Database db = Database.open(backend.dialect(), url);
            DurableState state = db.inTransaction(false, c -> {
                try (var st = c.createStatement()) {
                    st.executeUpdate("CREATE TABLE items (id BIGINT PRIMARY KEY, stock BIGINT NOT NULL)");
                }
                MetadataStore.createTables(c);
                return MetadataStore.load(c, 1);
            });
            ConveyorBelt belt = new ConveyorBelt(config, state, 0);
            belt.onMessage(new Message.TokenPass(0, new Token(1, List.of(U1))));
            performAll(db, belt);
            assertThat(ids(db)).containsExactly(1L);

            // The next token, hop 4, brings U2; the server dies before the transaction applying it commits.
            Token second = new Token(4, List.of(U2));
            belt.onMessage(new Message.TokenPass(0, second));
            Action.ApplyUpdates apply = only(belt.ready(), Action.ApplyUpdates.class);
            assertThat(apply.updates()).containsExactly(U2);
            Connection c = db.writeConnection();
            UpdateApplier.applyAll(c, apply.updates());
            MetadataStore.recordReceived(c, apply.token(), apply.lastGsn());
            server.crash();
            closeQuietly(c);
            db.close();

            server.start();
            db = Database.open(backend.dialect(), url);
            state = db.inTransaction(false, cc -> MetadataStore.load(cc, 1));
            assertThat(state.lastGsn()).as("U2 did not commit").isEqualTo(1);
            assertThat(state.tokenStatus()).isEqualTo(DurableState.TokenStatus.PASSED);
            assertThat(ids(db)).containsExactly(1L);

            // Restarted, the instance gets the token again (its sender resends until acknowledged): U2 once more.
            belt = new ConveyorBelt(config, state, 0);
            belt.ready();
            belt.onMessage(new Message.TokenPass(0, second));
            apply = only(belt.ready(), Action.ApplyUpdates.class);
            assertThat(apply.updates()).as("applied again: it never committed").containsExactly(U2);
            Action.ApplyUpdates committed = apply;
            db.inTransaction(false, cc -> {
                UpdateApplier.applyAll(cc, committed.updates());
                MetadataStore.recordReceived(cc, committed.token(), committed.lastGsn());
                return null;
            });
            server.crash(); // after the commit, before the acknowledgement went out
            db.close();

            server.start();
            db = Database.open(backend.dialect(), url);
            state = db.inTransaction(false, cc -> MetadataStore.load(cc, 1));
            assertThat(state.lastGsn()).isEqualTo(2);
            assertThat(ids(db)).containsExactly(1L, 2L);
            belt = new ConveyorBelt(config, state, 0);
            belt.ready();
            belt.onMessage(new Message.TokenPass(0, second)); // the resent token: a duplicate now
            assertThat(belt.ready()).as("a duplicate is acknowledged, never applied again")
                    .noneMatch(a -> a instanceof Action.ApplyUpdates)
                    .contains(new Action.Send(0, new Message.TokenAck(1, 4)));
            db.close();
        }
    }

    /** Performs the belt's actions the way GyroInstance does, until it asks for nothing more. */
    static void performAll(Database db, ConveyorBelt belt) throws SQLException {
        for (List<Action> actions = belt.ready(); !actions.isEmpty(); actions = belt.ready()) {
            for (Action a : actions) {
                if (a instanceof Action.ApplyUpdates au) {
                    db.inTransaction(false, c -> {
                        UpdateApplier.applyAll(c, au.updates());
                        MetadataStore.recordReceived(c, au.token(), au.lastGsn());
                        return null;
                    });
                    belt.onUpdatesApplied(au.token().hop());
                } else if (a instanceof Action.PassToken pt) {
                    db.inTransaction(false, c -> {
                        MetadataStore.recordPassed(c, pt.token());
                        return null;
                    });
                }
            }
        }
    }

    static <T> T only(List<Action> actions, Class<T> type) {
        List<Action> matching = actions.stream().filter(type::isInstance).toList();
        assertThat(matching).as("actions " + actions).hasSize(1);
        return type.cast(matching.get(0));
    }

    static List<Long> ids(Database db) throws SQLException {
        return Db.dump(db, "items").stream().map(r -> ((Value.Int) r.get(0)).value()).toList();
    }

    static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException | RuntimeException ignored) {
            // the server is gone
        }
    }
}
