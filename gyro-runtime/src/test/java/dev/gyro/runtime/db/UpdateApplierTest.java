package dev.gyro.runtime.db;

import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static dev.gyro.protocol.RowChange.Kind.DELETE;
import static dev.gyro.protocol.RowChange.Kind.UPSERT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Applying row images (docs/decisions/04-row-images.md and docs/decisions/05-exactly-once.md) on real SQLite files. */
class UpdateApplierTest {

    @TempDir
    Path dir;
    Database db;

    @BeforeEach
    void setUp() throws SQLException {
        db = Db.open(dir, "replica.db", Database.Options.defaults().withForeignKeys(true));
        Db.exec(db,
                "CREATE TABLE kinds (id INTEGER PRIMARY KEY, i INTEGER, r REAL, t TEXT, b BLOB)",
                "CREATE TABLE parent (id TEXT PRIMARY KEY, name TEXT)",
                "CREATE TABLE child (pid TEXT NOT NULL REFERENCES parent (id), n INTEGER NOT NULL, v TEXT,"
                        + " PRIMARY KEY (pid, n))",
                "INSERT INTO kinds VALUES (1, 1, 1.0, 'one', NULL)");
    }

    @AfterEach
    void tearDown() {
        db.close();
    }

    private static RowChange upsert(String table, List<String> cols, List<String> keys, Object... values) {
        List<Value> vs = new ArrayList<>();
        for (Object o : values) vs.add(Value.of(o));
        return new RowChange(table, UPSERT, cols, vs, keys);
    }

    private static RowChange delete(String table, List<String> keys, Object... values) {
        List<Value> vs = new ArrayList<>();
        for (Object o : values) vs.add(Value.of(o));
        return new RowChange(table, DELETE, keys, vs, keys);
    }

    private void apply(List<RowChange> changes) throws SQLException {
        db.inTransaction(false, c -> {
            UpdateApplier.apply(c, changes);
            return null;
        });
    }

    static final List<String> KINDS = List.of("id", "i", "r", "t", "b");

    @Test
    void everyValueKindRoundTripsExactlyAndReapplyingChangesNothing() throws SQLException {
        List<RowChange> changes = List.of(
                upsert("kinds", KINDS, List.of("id"), 1L, Long.MIN_VALUE, -0.5, "", new byte[0]),
                upsert("kinds", KINDS, List.of("id"), 2L, Long.MAX_VALUE, 1e300, "gr\u00fc\u00df \ud83d\ude00", new byte[] {0, -1, 7}),
                upsert("kinds", KINDS, List.of("id"), 3L, null, null, null, null),
                upsert("kinds", KINDS, List.of("id"), 4L, 4L, 4.0, "4", new byte[] {4}),
                delete("kinds", List.of("id"), 4L),
                delete("kinds", List.of("id"), 99L)); // deleting a missing row is fine
        apply(changes);
        List<List<Value>> once = Db.dump(db, "kinds");
        assertThat(once).containsExactly(
                changes.get(0).values(), changes.get(1).values(), changes.get(2).values());
        apply(changes);
        assertThat(Db.dump(db, "kinds")).isEqualTo(once);
    }

    @Test
    void anUpsertOverwritesEveryColumnOfAnExistingRow() throws SQLException {
        apply(List.of(upsert("kinds", List.of("id", "t"), List.of("id"), 1L, "only t")));
        assertThat(Db.dump(db, "kinds").get(0)).containsExactly(
                Value.of(1L), Value.of(1L), Value.of(1.0), Value.of("only t"), Value.NULL);
        apply(List.of(upsert("kinds", KINDS, List.of("id"), 1L, 2L, 2.5, "all", null)));
        assertThat(Db.dump(db, "kinds").get(0)).containsExactly(
                Value.of(1L), Value.of(2L), Value.of(2.5), Value.of("all"), Value.NULL);
    }

    @Test
    void foreignKeysAreCheckedAtCommitSoRowImagesMayArriveChildFirst() throws SQLException {
        List<String> childCols = List.of("pid", "n", "v");
        List<String> childKey = List.of("pid", "n");
        apply(List.of(
                upsert("child", childCols, childKey, "p1", 1L, "a"),
                upsert("child", childCols, childKey, "p1", 2L, "b"),
                upsert("parent", List.of("id", "name"), List.of("id"), "p1", "P")));
        assertThat(Db.count(db, "child")).isEqualTo(2);

        // A real violation still fails, at commit, and leaves nothing behind.
        assertThatThrownBy(() -> apply(List.of(
                upsert("parent", List.of("id", "name"), List.of("id"), "p2", "Q"),
                upsert("child", childCols, childKey, "nobody", 1L, "x"))))
                .isInstanceOf(SQLException.class).hasMessageContaining("FOREIGN KEY");
        assertThat(Db.count(db, "parent")).isEqualTo(1);
        assertThat(Db.count(db, "child")).isEqualTo(2);
    }

    @Test
    void anUnknownTableOrColumnIsNamedAndNothingOfTheUpdateIsApplied() throws SQLException {
        List<List<Value>> before = Db.dump(db, "kinds");
        RowChange good = upsert("kinds", KINDS, List.of("id"), 7L, 7L, 7.0, "seven", null);
        assertThatThrownBy(() -> apply(List.of(good, upsert("nope", List.of("id"), List.of("id"), 1L))))
                .isInstanceOf(SQLException.class).hasMessageContaining("table nope").hasMessageContaining("no such table");
        assertThatThrownBy(() -> apply(List.of(good, upsert("kinds", List.of("id", "colour"), List.of("id"), 1L, "red"))))
                .isInstanceOf(SQLException.class).hasMessageContaining("kinds").hasMessageContaining("colour");
        assertThatThrownBy(() -> apply(List.of(good, delete("kinds", List.of("ident"), 1L))))
                .isInstanceOf(SQLException.class).hasMessageContaining("kinds").hasMessageContaining("ident");
        assertThat(Db.dump(db, "kinds")).isEqualTo(before);
    }

    @Test
    void applyAllAppliesUpdatesInOrder() throws SQLException {
        db.inTransaction(false, c -> {
            UpdateApplier.applyAll(c, List.of(
                    new StateUpdate(1, 0, List.of(upsert("parent", List.of("id", "name"), List.of("id"), "x", "first"))),
                    new StateUpdate(2, 1, List.of(upsert("parent", List.of("id", "name"), List.of("id"), "x", "second"))),
                    new StateUpdate(3, 2, List.of(upsert("parent", List.of("id", "name"), List.of("id"), "y", "y"),
                            delete("parent", List.of("id"), "y")))));
            return null;
        });
        assertThat(Db.dump(db, "parent")).containsExactly(List.of(Value.of("x"), Value.of("second")));
    }

    /**
     * A token's updates are one run of changes: the dialect's set-up once, not once per update, and changes of one
     * shape in consecutive updates in one batch, each a round trip saved per hop on a database server.
     */
    @Test
    void aTokensUpdatesRunAsOneRunOfChanges() throws SQLException {
        List<String> cols = List.of("id", "name");
        List<StateUpdate> updates = new ArrayList<>();
        for (int i = 1; i <= 5; i++)
            updates.add(new StateUpdate(i, i % 3, List.of(upsert("parent", cols, List.of("id"), "p" + i, "n" + i),
                    upsert("parent", cols, List.of("id"), "q", "from " + i))));
        List<String> statements = new ArrayList<>();
        db.inTransaction(false, c -> {
            UpdateApplier.applyAll(counting(c, statements), SqliteDialect.INSTANCE, updates);
            return null;
        });
        assertThat(statements).as("one PRAGMA, one batch of ten upserts").hasSize(2);
        assertThat(Db.dump(db, "parent")).hasSize(6).contains(List.of(Value.of("q"), Value.of("from 5")));
    }

    /**
     * Changes of alternating tables (TPC-C's new order: a stock row, an order line, a stock row, ...) are grouped by
     * shape, one batch per table, while every row's own changes keep their order.
     */
    @Test
    void alternatingTablesAreGroupedIntoOneBatchEachAndEachRowKeepsItsOrder() throws SQLException {
        Db.exec(db, "CREATE TABLE lines (id INTEGER PRIMARY KEY, v TEXT)");
        List<RowChange> changes = new ArrayList<>();
        changes.add(upsert("lines", List.of("id", "v"), List.of("id"), 0, "first"));
        for (int n = 1; n <= 4; n++) {
            changes.add(upsert("kinds", KINDS, List.of("id"), 10 + n, n, 1.0, "k", null));
            changes.add(upsert("lines", List.of("id", "v"), List.of("id"), n, "v" + n));
        }
        changes.add(delete("kinds", List.of("id"), 11)); // a later run changes row 11 again: it must stay after
        changes.add(upsert("kinds", KINDS, List.of("id"), 11, 99, 9.0, "again", null));
        assertThat(UpdateApplier.groupedRuns(changes, UpdateApplier::rowsOf)).extracting(List::size)
                .containsExactly(5, 4, 1, 1);
        List<String> statements = new ArrayList<>();
        db.inTransaction(false, c -> {
            UpdateApplier.apply(counting(c, statements), SqliteDialect.INSTANCE, changes);
            return null;
        });
        assertThat(statements).as("the PRAGMA, then one statement per run").hasSize(5);
        assertThat(Db.dump(db, "lines")).hasSize(5);
        assertThat(Db.dump(db, "kinds")).hasSize(5)
                .contains(List.of(Value.of(11), Value.of(99), Value.of(9.0), Value.of("again"), Value.of((Object) null)));
    }

    /**
     * Rows of tables in a foreign key keep the origin's order among them: grouped by row alone, the second child would
     * be written before its parent is deleted and written again, and the delete would cascade to it.
     */
    @Test
    void changesOfTablesInAForeignKeyKeepTheirOrder() throws SQLException {
        Db.exec(db, "CREATE TABLE owner (id INTEGER PRIMARY KEY)",
                "CREATE TABLE pet (id INTEGER PRIMARY KEY, owner INTEGER REFERENCES owner (id) ON DELETE CASCADE)",
                "INSERT INTO owner VALUES (1)");
        List<RowChange> changes = List.of(
                upsert("pet", List.of("id", "owner"), List.of("id"), 1, 1),
                delete("owner", List.of("id"), 1),
                upsert("owner", List.of("id"), List.of("id"), 1),
                upsert("pet", List.of("id", "owner"), List.of("id"), 2, 1));
        assertThat(UpdateApplier.groupedRuns(changes, UpdateApplier::rowsOf)).as("grouped by row alone").hasSize(3);
        apply(changes);
        assertThat(Db.dump(db, "pet")).containsExactly(List.of(Value.of(2), Value.of(1)));
    }

    /**
     * Where the database refuses the grouped order all the same (here a trigger ties two plain tables together), the
     * changes run in the origin's order, from a savepoint, and the result is the origin's.
     */
    @Test
    void aGroupedOrderTheDatabaseRefusesFallsBackToTheOriginsOrder() throws SQLException {
        Db.exec(db, "CREATE TABLE a (id INTEGER PRIMARY KEY)", "CREATE TABLE b (id INTEGER PRIMARY KEY)",
                "INSERT INTO a VALUES (0)",
                "CREATE TRIGGER b_needs_a BEFORE INSERT ON b WHEN NOT EXISTS (SELECT 1 FROM a WHERE id = NEW.id)"
                        + " BEGIN SELECT RAISE(ABORT, 'no a for this b'); END");
        List<RowChange> changes = List.of(
                upsert("b", List.of("id"), List.of("id"), 0),
                upsert("a", List.of("id"), List.of("id"), 2),
                upsert("b", List.of("id"), List.of("id"), 2)); // grouped, it would run before a's row 2
        assertThat(UpdateApplier.groupedRuns(changes, UpdateApplier::rowsOf)).hasSize(2);
        apply(changes);
        assertThat(Db.count(db, "a")).isEqualTo(2);
        assertThat(Db.count(db, "b")).isEqualTo(2);
    }

    /** {@code c}, telling {@code statements} each statement it makes. */
    private static java.sql.Connection counting(java.sql.Connection c, List<String> statements) {
        return (java.sql.Connection) java.lang.reflect.Proxy.newProxyInstance(UpdateApplierTest.class.getClassLoader(),
                new Class<?>[] {java.sql.Connection.class}, (proxy, m, args) -> {
                    if (m.getName().equals("prepareStatement") || m.getName().equals("createStatement"))
                        statements.add(m.getName() + (args == null ? "" : " " + args[0]));
                    try {
                        return m.invoke(c, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
