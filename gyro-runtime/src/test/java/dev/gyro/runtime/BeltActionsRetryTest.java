package dev.gyro.runtime;

import dev.gyro.driver.BeltLoop;
import dev.gyro.driver.BeltActions;
import dev.gyro.protocol.Action;
import dev.gyro.protocol.ConveyorBelt;
import dev.gyro.protocol.ConveyorBeltConfig;
import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Token;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.MetadataStore;
import dev.gyro.runtime.db.SqliteDialect;
import dev.gyro.runtime.hook.TransactionGate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A durable belt action whose commit went through but whose answer was lost (a database server that crashed
 * inside the commit) is retried, and the retry must see that the first attempt committed
 * (docs/decisions/05-exactly-once.md): applying updates sent ahead again would fail the check that the recorded last
 * gsn is the one before them, and the instance would stop. The lost answer is made by a database view whose write
 * transactions commit for real and then report a broken connection (SQLSTATE 08006), on a real SQLite file
 * ({@link LostCommitAnswers}, which {@link ShellSimulationTest} uses too).
 */
class BeltActionsRetryTest {

    @TempDir
    Path dir;

    private Database db;
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void close() {
        timers.shutdownNow();
        if (db != null) db.close();
    }

    private LostCommitAnswers replication;
    private ShellSimulationTest.Lane loopLane;
    private BeltActions actions;

    /** Instance 1 of a ring of two (a follower: the token starts at 0) on a SQLite file, writing through the view. */
    private void instance() throws SQLException {
        db = Database.open(SqliteDialect.INSTANCE, dir.resolve("i1.db").toString());
        db.inTransaction(false, c -> {
            try (Statement st = c.createStatement()) {
                st.execute("CREATE TABLE counters (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)");
            }
            MetadataStore.createTables(c);
            return MetadataStore.load(c, 1);
        });
        replication = new LostCommitAnswers(db);
        Database flaky = replication;
        loopLane = new ShellSimulationTest.Lane();
        BeltLoop loop = new BeltLoop(1, new ConveyorBelt(new ConveyorBeltConfig(1, 2, 1_000, 50, 20),
                DurableState.initial(1), 0), loopLane, t -> {}, v -> {}, BeltLoop.Recorder.NONE,
                () -> 0);
        SessionGate session = new SessionGate(0, timers);
        InstanceStats stats = new InstanceStats();
        TransactionCatalog catalog = new TransactionCatalog(List.of(new ShellSimulationTest.Bump()));
        GlobalExecutor globals = new GlobalExecutor(1, flaky, catalog, TransactionGate.NONE, new Replies(1, stats),
                stats, session, new AtomicLong(), r -> List.of(), new ShellSimulationTest.Lane(), null,
                new PhaseClock(null), null);
        actions = new BeltActions(1, new JdbcBeltStore(1, flaky, () -> false), (to, m) -> {}, globals, loop::step,
                new ShellProgress(stats, session, ShellProgress.TokenEvents.NONE));
    }

    @Test
    void updatesAppliedAheadWhoseCommitsAnswerWasLostAreNotAppliedAgain() throws Exception {
        instance();
        replication.lostAnswers.set(1);
        actions.perform(new Action.ApplyAhead(List.of(update(1, 7, 70), update(2, 8, 80)), 2));

        assertThat(replication.commits).as("the first attempt committed, the retry committed nothing new").hasValue(2);
        assertThat(db.inTransaction(true, MetadataStore::lastGsn)).isEqualTo(2);
        assertThat(counter(7)).isEqualTo(70);
        assertThat(counter(8)).isEqualTo(80);
        assertThat(loopLane.tasks).as("the belt hears the updates were applied").isNotEmpty();

        // and the next run after them applies as ever
        actions.perform(new Action.ApplyAhead(List.of(update(3, 7, 71)), 3));
        assertThat(db.inTransaction(true, MetadataStore::lastGsn)).isEqualTo(3);
        assertThat(counter(7)).isEqualTo(71);
    }

    /**
     * The token's updates applied and the token recorded as held, the answer lost, and a local request committed
     * before the retry: the retry finds the token of that hop recorded and writes nothing, so the local request's write
     * stays (applying the row images again would overwrite it).
     */
    @Test
    void aTokenWhoseReceiptsCommitAnswerWasLostIsNotAppliedAgainOverLaterLocalWrites() throws Exception {
        instance();
        replication.meanwhile = () -> db.inTransaction(false, c -> {
            try (Statement st = c.createStatement()) {
                st.execute("UPDATE counters SET n = 99 WHERE id = 7"); // a local request, after the lost answer
            }
            return null;
        });
        replication.lostAnswers.set(1);
        Token token = new Token(1, List.of(update(1, 7, 70), update(2, 8, 80)));
        actions.perform(new Action.ApplyUpdates(token, token.updates(), 2));

        assertThat(counter(7)).as("the local request's write, not the token's row image again").isEqualTo(99);
        assertThat(counter(8)).isEqualTo(80);
        DurableState recorded = db.inTransaction(true, c -> MetadataStore.load(c, 1));
        assertThat(recorded.lastGsn()).isEqualTo(2);
        assertThat(recorded.tokenStatus()).isEqualTo(DurableState.TokenStatus.HELD);
        assertThat(recorded.token().hop()).isEqualTo(1);
    }

    private static StateUpdate update(long gsn, long id, long n) {
        return new StateUpdate(gsn, 0, List.of(new RowChange("counters", RowChange.Kind.UPSERT, List.of("id", "n"),
                List.of(new Value.Int(id), new Value.Int(n)), List.of("id"))));
    }

    private long counter(long id) throws SQLException {
        return db.inTransaction(true, c -> {
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT n FROM counters WHERE id = " + id)) {
                assertThat(rs.next()).as("counter " + id).isTrue();
                return rs.getLong(1);
            }
        });
    }
}
