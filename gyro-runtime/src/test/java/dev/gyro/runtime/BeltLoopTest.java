package dev.gyro.runtime;

import dev.gyro.driver.BeltLoop;
import dev.gyro.driver.BeltActions;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.protocol.BeltEvent;
import dev.gyro.protocol.ConveyorBelt;
import dev.gyro.protocol.ConveyorBeltConfig;
import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.Message;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.MetadataStore;
import dev.gyro.runtime.db.SqliteDialect;
import dev.gyro.runtime.hook.TransactionGate;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The driver's own duties, on instance 1 of a ring of two (a follower: the token starts at 0) over a real SQLite file,
 * its belt loop a lane this test runs: the answers that depend on the belt (a global request refused because the queue
 * is full is answered by the driver), every event seen in the order given, and fail-stop as an event.
 */
class BeltLoopTest {

    @TempDir
    Path dir;

    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final ShellSimulationTest.Lane loopLane = new ShellSimulationTest.Lane();
    private final List<BeltEvent> stepped = new ArrayList<>();
    private final List<Throwable> stops = new ArrayList<>();
    private final List<Message> sent = new ArrayList<>();
    private Database db;
    private ConveyorBelt belt;
    private BeltLoop loop;
    private GlobalExecutor globals;

    @AfterEach
    void close() {
        timers.shutdownNow();
        if (db != null) db.close();
    }

    /** The instance, its queue Q bounded at {@code maxQueued} global requests. */
    private void instance(int maxQueued) throws SQLException {
        db = Database.open(SqliteDialect.INSTANCE, dir.resolve("i1.db").toString());
        db.inTransaction(false, c -> {
            try (Statement st = c.createStatement()) {
                st.execute("CREATE TABLE counters (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)");
                st.execute("CREATE TABLE history (k INTEGER PRIMARY KEY, id INTEGER, n INTEGER)");
            }
            MetadataStore.createTables(c);
            return null;
        });
        belt = new ConveyorBelt(new ConveyorBeltConfig(1, 2, maxQueued, 50, 20), DurableState.initial(1), 0);
        loop = new BeltLoop(1, belt, loopLane, stops::add, v -> {}, (event, actions) -> stepped.add(event), () -> 0);
        InstanceStats stats = new InstanceStats();
        SessionGate session = new SessionGate(0, timers);
        globals = new GlobalExecutor(1, db, new TransactionCatalog(List.of(new ShellSimulationTest.Bump())),
                TransactionGate.NONE, new Replies(1, stats), stats, session, new AtomicLong(1), r -> List.of(),
                new ShellSimulationTest.Lane(), null, new PhaseClock(null), timers);
        globals.attach(loop);
        loop.start(new BeltActions(1, new JdbcBeltStore(1, db, () -> false), (to, m) -> sent.add(m), globals,
                loop::step, new ShellProgress(stats, session, ShellProgress.TokenEvents.NONE)));
    }

    private void runLoop() {
        for (Runnable task; (task = loopLane.tasks.poll()) != null; ) task.run();
    }

    @Test
    void aGlobalRequestTheBeltRefusesIsAnsweredOverloadedByTheDriver() throws Exception {
        instance(1);
        List<Reply> first = new ArrayList<>(), second = new ArrayList<>();
        globals.enqueue(Request.of("bump", 1L, 0L), Arguments.NONE, System.nanoTime(), first::add);
        globals.enqueue(Request.of("bump", 2L, 0L), Arguments.NONE, System.nanoTime(), second::add);
        runLoop();

        assertThat(first).as("queued: it waits for the token").isEmpty();
        assertThat(second).singleElement().satisfies(r -> {
            assertThat(r.status()).isEqualTo(Reply.Status.OVERLOADED);
            assertThat(r.message()).contains("already has 1 global requests waiting for the token");
        });
        assertThat(belt.queuedGlobals()).isEqualTo(1);
        assertThat(sent).as("the waiting instance asks for the token").anyMatch(m -> m instanceof Message.Want);
        assertThat(stepped).as("the belt waited for no time before the first request: the loop tells it the time")
                .containsExactly(new BeltEvent.Start(), new BeltEvent.Tick(0), new BeltEvent.GlobalRequest(1),
                        new BeltEvent.GlobalRequest(2));
        assertThat(stops).isEmpty();
    }

    @Test
    void aFailStopEventStopsTheInstanceOnceTheEventsBeforeAreHandledAndNothingAfter() throws Exception {
        instance(10);
        loop.step(new BeltEvent.Tick(100));
        loop.failStop(new IllegalStateException("the database says otherwise"));
        loop.step(new BeltEvent.Tick(200));
        runLoop();

        assertThat(stops).singleElement().satisfies(t -> assertThat(t).hasMessage("the database says otherwise"));
        assertThat(stepped).extracting(Object::getClass).containsExactly(BeltEvent.Start.class, BeltEvent.Tick.class,
                BeltEvent.FailStop.class);
    }
}
