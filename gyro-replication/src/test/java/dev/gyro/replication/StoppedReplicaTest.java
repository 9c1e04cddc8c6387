package dev.gyro.replication;

import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.Dialect;
import dev.gyro.runtime.db.UpdateApplier;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A replica that stops leaves to its restart every log entry its database does not hold
 * (docs/decisions/42-group-commit.md, docs/decisions/11-fail-stop.md). A leader killed with a batch open loses the
 * batch's transaction, entries the log had committed included, and an entry that fails to apply is not in the database
 * either; Ratis may still deliver the next committed entries before its server has closed. Were one of them recorded,
 * the database's index would pass the entries it lacks: the restart would skip them as held, and every later entry
 * would be stale on that replica alone while its index kept up with the group's. Each step is called in the order a
 * loaded machine once ran them (the chaos demo's divergence), so the test waits for nothing.
 */
class StoppedReplicaTest {

    static final long SESSION = 7, NEXT_SESSION = 99;

    @TempDir
    Path dir;

    /** The first two entries of one batch of replica 0, and a newer leader's entry on the state after both. */
    final GroupEntry first = new GroupEntry(0, SESSION, 1, 0, 1, GroupEntry.RequestId.NONE, order(1, 1, 10));
    final GroupEntry second = new GroupEntry(0, SESSION, 2, 0, 2, first.requestId(), order(2, 2, 30));
    final GroupEntry third = new GroupEntry(2, NEXT_SESSION, 1, 1, 1, second.requestId(), order(3, 3, 60));

    @Test
    void aLeaderKilledWithABatchOpenTakesNoLaterEntryAndItsRestartCatchesUp() throws Exception {
        List<String> files = Groups.databases(dir, 2); // replica 0 leads, replica 1 follows
        try (Database follower = Database.open(Dialect.forTarget(files.get(1)), files.get(1))) {
            ReplicaStateMachine f = machine(follower, 1, new ReentrantLock(true), new ArrayList<>());
            deliver(f, 1, 1, first);
            deliver(f, 1, 2, second);
            deliver(f, 2, 4, third); // index 3: the new leader's own first entry, which Ratis applies itself

            try (Database led = Database.open(Dialect.forTarget(files.get(0)), files.get(0))) {
                ReentrantLock writer = new ReentrantLock(true);
                List<Throwable> failures = new ArrayList<>();
                ReplicaStateMachine l = machine(led, 0, writer, failures);
                LeaderBatch b;
                writer.lock();
                try {
                    b = l.open(led.writeConnection(), 1);
                    ran(b, led, first);
                    ran(b, led, second);
                } finally {
                    writer.unlock();
                }
                deliver(l, 1, 1, first); // committed: logged in the batch's transaction, which waits for the second
                assertThat(b.logged).hasSize(1);
                assertThat(b.ended).isFalse();
                writer.lock(); // the kill: the batch is abandoned (GroupReplica.close, or a request that saw it)
                try {
                    l.abandon(b);
                } finally {
                    writer.unlock();
                }
                deliver(l, 1, 2, second); // Ratis' apply thread, still running while the server closes
                assertThat(Groups.single(led, "SELECT applied_index FROM gyro_replica"))
                        .as("the database records no entry past the first, which it lost with the batch").isZero();
                assertThat(failures).isEmpty();
            }

            try (Database restarted = Database.open(Dialect.forTarget(files.get(0)), files.get(0))) {
                ReplicaStateMachine r = machine(restarted, 0, new ReentrantLock(true), new ArrayList<>());
                deliver(r, 1, 1, first); // Ratis replays its log from the start
                deliver(r, 1, 2, second);
                deliver(r, 2, 4, third);
                assertThat(r.staleEntries.sum()).isZero();
                assertThat(Groups.contents(restarted)).isEqualTo(Groups.contents(follower));
                assertThat(Groups.single(restarted, "SELECT n FROM totals")).isEqualTo(3);
                assertThat(r.stored()).isEqualTo(f.stored());
            }
        }
    }

    @Test
    void aReplicaWhoseEntryFailedToApplyTakesNoLaterEntry() throws Exception {
        List<String> files = Groups.databases(dir, 2);
        GroupEntry needsTable = new GroupEntry(0, SESSION, 1, 0, 1, GroupEntry.RequestId.NONE, List.of(
                new RowChange("audit", RowChange.Kind.UPSERT, List.of("id"), List.of(Value.of(1L)), List.of("id")),
                order(1, 1, 10).get(0), order(1, 1, 10).get(1)));
        for (String file : files) {
            if (file.equals(files.get(0))) continue; // replica 0's database lacks the table: its apply fails
            try (Database db = Database.open(Dialect.forTarget(file), file)) {
                createAudit(db);
            }
        }
        try (Database follower = Database.open(Dialect.forTarget(files.get(1)), files.get(1))) {
            ReplicaStateMachine f = machine(follower, 1, new ReentrantLock(true), new ArrayList<>());
            deliver(f, 1, 1, needsTable);
            deliver(f, 1, 2, second);

            try (Database db = Database.open(Dialect.forTarget(files.get(0)), files.get(0))) {
                List<Throwable> failures = new ArrayList<>();
                ReplicaStateMachine m = machine(db, 0, new ReentrantLock(true), failures);
                LogEntryProto failing = logEntry(1, 1, needsTable);
                assertThat(m.applyTransaction(trx(m, failing))).isCompletedExceptionally();
                assertThat(failures).as("the replica stops").hasSize(1);
                deliver(m, 1, 2, second); // delivered before the replica has closed
                assertThat(Groups.single(db, "SELECT applied_index FROM gyro_replica")).isZero();
                createAudit(db); // the cause fixed, the replica restarts
            }

            try (Database restarted = Database.open(Dialect.forTarget(files.get(0)), files.get(0))) {
                ReplicaStateMachine r = machine(restarted, 0, new ReentrantLock(true), new ArrayList<>());
                deliver(r, 1, 1, needsTable);
                deliver(r, 1, 2, second);
                assertThat(Groups.contents(restarted)).isEqualTo(Groups.contents(follower));
                assertThat(Groups.single(restarted, "SELECT COUNT(*) FROM orders")).isEqualTo(2);
            }
        }
    }

    /** Order {@code id} (amount {@code 10 * id}) and the totals after it, as absolute row images. */
    static List<RowChange> order(long id, long n, long total) {
        return List.of(
                new RowChange("orders", RowChange.Kind.UPSERT, List.of("id", "amount"),
                        List.of(Value.of(id), Value.of(id * 10)), List.of("id")),
                new RowChange("totals", RowChange.Kind.UPSERT, List.of("id", "n", "total"),
                        List.of(Value.of(1L), Value.of(n), Value.of(total)), List.of("id")));
    }

    static void createAudit(Database db) throws Exception {
        db.inTransaction(false, c -> {
            try (Statement st = c.createStatement()) {
                st.executeUpdate("CREATE TABLE audit (id BIGINT PRIMARY KEY)");
            }
            return null;
        });
    }

    /** Replica {@code replica}'s state machine on {@code db}, where it stands; failures go to {@code failed}. */
    static ReplicaStateMachine machine(Database db, int replica, ReentrantLock writer, List<Throwable> failed)
            throws Exception {
        ReplicaProgress.Position at = db.inTransaction(false, c -> ReplicaProgress.claim(c, "group", replica));
        return new ReplicaStateMachine("replica " + replica, db, at, null, 1L << 20, writer, new GroupSignal(),
                failed::add);
    }

    /** A request of {@code b} that wrote {@code entry}'s rows, its entry appended: what GroupReplica.commit leaves. */
    static void ran(LeaderBatch b, Database db, GroupEntry entry) throws Exception {
        UpdateApplier.apply(b.real, db.dialect(), entry.changes());
        LeaderBatch.Member m = new LeaderBatch.Member(b, null, null);
        m.entry = entry;
        m.entriesBefore = b.appended + 1;
        b.members.add(m);
        b.byEntry.put(entry.requestId(), m);
        b.appended++;
        b.head = entry.requestId();
    }

    /** Ratis applying the committed log entry {@code index} of {@code term} that carries {@code entry}. */
    static void deliver(ReplicaStateMachine m, long term, long index, GroupEntry entry) throws Exception {
        m.applyTransaction(trx(m, logEntry(term, index, entry))).get();
    }

    static LogEntryProto logEntry(long term, long index, GroupEntry entry) {
        return LogEntryProto.newBuilder().setTerm(term).setIndex(index)
                .setStateMachineLogEntry(StateMachineLogEntryProto.newBuilder()
                        .setLogData(ByteString.copyFrom(entry.encode())))
                .build();
    }

    static TransactionContext trx(ReplicaStateMachine m, LogEntryProto e) {
        return TransactionContext.newBuilder().setStateMachine(m).setServerRole(RaftPeerRole.FOLLOWER).setLogEntry(e)
                .build();
    }
}
