package dev.gyro.runtime.db;

import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Token;
import dev.gyro.protocol.Value;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Gyro's metadata tables (docs/decisions/05-exactly-once.md): durable, and changed only with the data they describe.
 */
class MetadataStoreTest {

    @TempDir
    Path dir;

    static StateUpdate update(long gsn, int origin, String name) {
        return new StateUpdate(gsn, origin, List.of(new RowChange("items", RowChange.Kind.UPSERT,
                List.of("id", "name"), List.of(Value.of(gsn), Value.of(name)), List.of("id"))));
    }

    static Database openInstance(Path file) throws SQLException {
        Database db = Database.open(SqliteDialect.INSTANCE, file.toString());
        Db.exec(db, "CREATE TABLE IF NOT EXISTS items (id INTEGER PRIMARY KEY, name TEXT)");
        db.inTransaction(false, c -> {
            MetadataStore.createTables(c);
            return null;
        });
        return db;
    }

    static DurableState load(Database db, int self) throws SQLException {
        return db.inTransaction(false, c -> MetadataStore.load(c, self));
    }

    /** Action.ApplyUpdates, as the runtime performs it: one transaction. */
    static void applyUpdates(Database db, Token held, List<StateUpdate> updates, long lastGsn) throws SQLException {
        db.inTransaction(false, c -> {
            for (StateUpdate u : updates) UpdateApplier.apply(c, u.changes());
            MetadataStore.recordReceived(c, held, lastGsn);
            return null;
        });
    }

    @Test
    void aFreshDatabaseStartsFromTheInitialStateAndRecordsIt() throws SQLException {
        try (Database a = openInstance(dir.resolve("a.db")); Database b = openInstance(dir.resolve("b.db"))) {
            assertThat(load(a, 0)).isEqualTo(DurableState.initial(0));
            assertThat(load(b, 1)).isEqualTo(DurableState.initial(1));
            assertThat(load(a, 0)).isEqualTo(DurableState.initial(0));
            assertThat(a.inTransaction(true, MetadataStore::lastGsn)).isZero();
            assertThatThrownBy(() -> load(b, 2)).isInstanceOf(SQLException.class)
                    .hasMessageContaining("instance 1, not of instance 2");
        }
    }

    @Test
    void loadWithoutTablesSaysWhatIsMissing() throws SQLException {
        try (Database db = Db.open(dir, "bare.db")) {
            assertThatThrownBy(() -> load(db, 0)).isInstanceOf(SQLException.class)
                    .hasMessageContaining("gyro_state").hasMessageContaining("createTables");
        }
    }

    @Test
    void theDurableStateRoundTripsAcrossCloseAndReopen() throws SQLException {
        Path file = dir.resolve("instance1.db");
        Token received = new Token(3, List.of(update(1, 0, "a"), update(2, 2, "b")));
        Token passed = new Token(4, List.of(update(1, 0, "a"), update(2, 2, "b"), update(3, 1, "c"), update(4, 1, "d")));
        try (Database db = openInstance(file)) {
            load(db, 1);
            applyUpdates(db, received, received.updates(), 2);
            for (StateUpdate own : List.of(update(3, 1, "c"), update(4, 1, "d"))) {
                db.inTransaction(false, c -> { // Action.ExecuteGlobal: the request's writes + recordGlobal
                    UpdateApplier.apply(c, own.changes());
                    MetadataStore.recordGlobal(c, own);
                    return null;
                });
            }
            assertThat(load(db, 1)).isEqualTo(new DurableState(4, DurableState.TokenStatus.HELD, received,
                    List.of(update(3, 1, "c"), update(4, 1, "d"))));
            db.inTransaction(false, c -> {
                MetadataStore.recordPassed(c, passed);
                return null;
            });
        }
        try (Database db = openInstance(file)) {
            assertThat(load(db, 1)).isEqualTo(new DurableState(4, DurableState.TokenStatus.PASSED, passed,
                    List.of(update(3, 1, "c"), update(4, 1, "d"))));
            assertThat(Db.count(db, "items")).isEqualTo(4);

            // The token comes back with the own updates dropped: the outbox empties.
            Token back = new Token(7, List.of(update(5, 2, "e")));
            applyUpdates(db, back, back.updates(), 5);
            assertThat(load(db, 1)).isEqualTo(new DurableState(5, DurableState.TokenStatus.HELD, back, List.of()));
        }
    }

    @Test
    void protocolViolationsAreRefused() throws SQLException {
        try (Database db = openInstance(dir.resolve("x.db"))) {
            load(db, 1); // NONE: instance 1 has not seen the token
            assertThatThrownBy(() -> db.inTransaction(false, c -> {
                MetadataStore.recordGlobal(c, update(1, 1, "x"));
                return null;
            })).isInstanceOf(SQLException.class).hasMessageContaining("token NONE");
            applyUpdates(db, new Token(1, List.of()), List.of(), 3);
            assertThatThrownBy(() -> db.inTransaction(false, c -> {
                MetadataStore.recordGlobal(c, update(5, 1, "gap"));
                return null;
            })).isInstanceOf(SQLException.class).hasMessageContaining("gsn 5").hasMessageContaining("last gsn is 3");
            assertThatThrownBy(() -> applyUpdates(db, new Token(2, List.of()), List.of(), 2))
                    .isInstanceOf(SQLException.class).hasMessageContaining("last gsn 2");
            assertThat(load(db, 1).lastGsn()).isEqualTo(3);
            assertThat(Db.count(db, "gyro_outbox")).isZero();
        }
    }

    @Test
    void aRolledBackApplyLeavesTheOldStateAndData() throws SQLException {
        try (Database db = openInstance(dir.resolve("r.db"))) {
            DurableState before = load(db, 0);
            Token t = new Token(5, List.of(update(1, 1, "x"), update(2, 2, "y")));
            assertThatThrownBy(() -> db.inTransaction(false, c -> {
                UpdateApplier.apply(c, t.updates().get(0).changes());
                UpdateApplier.apply(c, t.updates().get(1).changes());
                MetadataStore.recordReceived(c, t, 2);
                throw new IllegalStateException("crash before commit");
            })).hasMessage("crash before commit");
            assertThat(load(db, 0)).isEqualTo(before);
            assertThat(Db.count(db, "items")).isZero();
        }
    }

    @Test
    void aConnectionDroppedBeforeCommitLeavesTheOldStateAndData() throws Exception {
        Path file = dir.resolve("d.db");
        try (Database db = openInstance(file)) {
            load(db, 0);
        }
        // A raw connection, closed without commit: what the DBMS sees when the process holding it goes away.
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
            c.setAutoCommit(false);
            Token t = new Token(5, List.of(update(1, 1, "x")));
            UpdateApplier.apply(c, t.updates().get(0).changes());
            MetadataStore.recordReceived(c, t, 1);
        }
        try (Database db = openInstance(file)) {
            assertThat(load(db, 0)).isEqualTo(DurableState.initial(0));
            assertThat(Db.count(db, "items")).isZero();
        }
    }

    static byte[] recorded(Database db, String id) throws SQLException {
        return db.inTransaction(true, c -> MetadataStore.recordedReply(c, id));
    }

    /**
     * The replies of requests with ids (docs/decisions/37-request-ids.md): recorded with the request's writes, so a
     * rolled-back request leaves none; kept for REPLY_KEPT_MILLIS, then dropped; one id, one record.
     */
    @Test
    void requestRepliesAreRecordedWithTheirWritesAndForgottenAfterTheirTime() throws SQLException {
        try (Database db = openInstance(dir.resolve("replies.db"))) {
            String kept = "00000000-0000-0000-0000-000000000001";
            String old = "00000000-0000-0000-0000-000000000002";
            String rolledBack = "00000000-0000-0000-0000-000000000003";
            long now = 1_000_000_000L;
            db.inTransaction(false, c -> {
                MetadataStore.recordReply(c, kept, new byte[] {1}, now);
                MetadataStore.recordReply(c, old, new byte[] {2}, now - MetadataStore.REPLY_KEPT_MILLIS - 1);
                return null;
            });
            assertThatThrownBy(() -> db.inTransaction(false, c -> {
                MetadataStore.recordReply(c, rolledBack, new byte[] {3}, now);
                throw new SQLException("the request failed");
            })).hasMessageContaining("the request failed");
            assertThat(recorded(db, kept)).containsExactly(1);
            assertThat(recorded(db, old)).containsExactly(2);
            assertThat(recorded(db, rolledBack)).isNull();

            assertThatThrownBy(() -> db.inTransaction(false, c -> {
                MetadataStore.recordReply(c, kept, new byte[] {4}, now);
                return null;
            })).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> db.inTransaction(true, c -> MetadataStore.recordedReply(c, "order-7")))
                    .hasMessageContaining("a request id is a UUID, not 'order-7'");

            int forgotten = db.inTransaction(false, c -> MetadataStore.forgetReplies(c, now));
            assertThat(forgotten).isOne();
            assertThat(recorded(db, old)).isNull();
            assertThat(recorded(db, kept)).containsExactly(1);
        }
    }

    /** Recording replies drops the old ones by itself, whatever ids clients choose. */
    @Test
    void recordingRepliesForgetsOldOnesByItself() throws SQLException {
        try (Database db = openInstance(dir.resolve("forget.db"))) {
            long now = 1_000_000_000L;
            db.inTransaction(false, c -> {
                MetadataStore.recordReply(c, new java.util.UUID(7, 7).toString(), new byte[] {0},
                        now - MetadataStore.REPLY_KEPT_MILLIS - 1);
                for (int i = 0; i < MetadataStore.FORGET_EVERY; i++) // ids a clock-based client might send
                    MetadataStore.recordReply(c, new java.util.UUID(1, 1 + ((long) i << 32)).toString(), new byte[] {1},
                            now);
                return null;
            });
            assertThat(recorded(db, new java.util.UUID(7, 7).toString()))
                    .isNull();
        }
    }

    @Test
    void aProcessKilledBeforeCommitLeavesTheOldStateAndData() throws Exception {
        Path file = dir.resolve("k.db");
        try (Database db = openInstance(file)) {
            load(db, 0);
            applyUpdates(db, new Token(1, List.of(update(1, 1, "kept"))), List.of(update(1, 1, "kept")), 1);
        }
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), CrashBeforeCommit.class.getName(), file.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isEqualTo(CrashBeforeCommit.EXIT);
        assertThat(out).contains("applied, not committed");
        try (Database db = openInstance(file)) {
            assertThat(load(db, 0)).isEqualTo(new DurableState(1, DurableState.TokenStatus.HELD,
                    new Token(1, List.of(update(1, 1, "kept"))), List.of()));
            assertThat(Db.dump(db, "items")).containsExactly(List.of(Value.of(1L), Value.of("kept")));
        }
    }

    /** Applies a token's updates and records it, then halts the JVM before the commit. */
    public static final class CrashBeforeCommit {
        static final int EXIT = 77;

        public static void main(String[] args) throws Exception {
            Database db = Database.open(SqliteDialect.INSTANCE, args[0]);
            Connection c = db.writeConnection();
            Token t = new Token(2, List.of(update(2, 2, "lost"), update(3, 1, "lost too")));
            for (StateUpdate u : t.updates()) UpdateApplier.apply(c, u.changes());
            MetadataStore.recordReceived(c, t, 3);
            System.out.println("applied, not committed");
            System.out.flush();
            Runtime.getRuntime().halt(EXIT);
        }
    }
}
