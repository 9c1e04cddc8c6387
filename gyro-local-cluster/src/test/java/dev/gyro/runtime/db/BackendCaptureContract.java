package dev.gyro.runtime.db;

import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.Value;
import dev.gyro.cluster.Backend;
import dev.gyro.cluster.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.gyro.protocol.RowChange.Kind.DELETE;
import static dev.gyro.protocol.RowChange.Kind.UPSERT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Row-image capture and application on a real database server (docs/decisions/04-row-images.md), the same contract for
 * every server backend: each subclass names its backend and its DDL. The origin and the replica are databases on
 * two different servers, as two Gyro instances' would be.
 */
abstract class BackendCaptureContract {

    abstract Backend backend();

    /** items (id generated, name, stock, price, photo), carts (cart_id, item_id, qty), users (email, name, login
     * UNIQUE), flags (id generated, on_ boolean, at timestamp), history (msg; no primary key). */
    abstract String[] schema();

    /** INSERT INTO items (id, name, stock) VALUES (?, ?, ?) that on a key conflict adds the stock. */
    abstract String addStockUpsert();

    /** INSERT INTO users (email, name, login) VALUES (?, ?, ?) that skips rows whose key exists. */
    abstract String insertIgnoringDuplicates();

    static final String[] DATA = {
        "INSERT INTO items (name, stock, price) VALUES ('pen', 10, 1.5), ('ink', 1, 4.0), ('pad', 0, 2.25)",
        "INSERT INTO users (email, name, login) VALUES ('a@x', 'Ann', 'ann'), ('b@x', 'Bob', 'bob')",
    };
    static final List<String> ITEM_COLUMNS = List.of("id", "name", "stock", "price", "photo");

    Database origin;
    Database replica;

    @BeforeEach
    void setUp() throws SQLException {
        TestServers.require(backend());
        origin = Database.open(backend().dialect(), TestServers.freshDatabase(backend(), 0));
        replica = Database.open(backend().dialect(), TestServers.freshDatabase(backend(), 1));
        for (Database db : List.of(origin, replica)) {
            Db.exec(db, schema());
            Db.exec(db, DATA);
        }
    }

    @AfterEach
    void tearDown() {
        if (origin != null) origin.close();
        if (replica != null) replica.close();
    }

    List<RowChange> capture(SqlWork<Void> work) throws SQLException {
        return CapturingConnectionTest.capture(origin, work);
    }

    /** The rows {@code statements} write on the origin, in one captured transaction. */
    List<RowChange> captureStatements(String... statements) throws SQLException {
        return capture(c -> {
            try (Statement st = c.createStatement()) {
                for (String sql : statements) st.executeUpdate(sql);
            }
            return null;
        });
    }

    static List<Value> vals(Object... os) {
        List<Value> out = new ArrayList<>();
        for (Object o : os) out.add(Value.of(o));
        return out;
    }

    @Test
    void insertCapturesTheWholeRowWithItsGeneratedKeyAndGeneratedKeysStillWork() throws SQLException {
        long[] key = new long[2];
        List<RowChange> changes = capture(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO items (name, price) VALUES (?, ?)",
                    Statement.RETURN_GENERATED_KEYS)) {
                for (int i = 0; i < 2; i++) {
                    ps.setString(1, i == 0 ? "lamp" : "desk");
                    ps.setDouble(2, 9.5 + i);
                    assertThat(ps.executeUpdate()).isEqualTo(1);
                    try (ResultSet keys = ps.getGeneratedKeys()) {
                        assertThat(keys.next()).isTrue();
                        key[i] = keys.getLong(1);
                        assertThat(keys.next()).isFalse();
                    }
                }
            }
            return null;
        });
        assertThat(key).containsExactly(4, 5);
        assertThat(changes).containsExactly(
                new RowChange("items", UPSERT, ITEM_COLUMNS, vals(4L, "lamp", 0L, 9.5, null), List.of("id")),
                new RowChange("items", UPSERT, ITEM_COLUMNS, vals(5L, "desk", 0L, 10.5, null), List.of("id")));
    }

    @Test
    void batchesMultiRowInsertsAndPlainStatementsCaptureEveryRow() throws SQLException {
        List<RowChange> changes = capture(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO carts (cart_id, item_id, qty) VALUES (?, ?, ?)")) {
                for (int i = 1; i <= 2; i++) {
                    ps.setLong(1, 7);
                    ps.setLong(2, i);
                    ps.setInt(3, i * 10);
                    ps.addBatch();
                }
                assertThat(ps.executeBatch()).containsExactly(1, 1);
            }
            try (Statement st = c.createStatement()) {
                assertThat(st.executeUpdate("INSERT INTO carts (cart_id, item_id, qty) VALUES (8, 1, 1), (8, 2, 2)"))
                        .isEqualTo(2);
                assertThat(st.executeUpdate("UPDATE items SET stock = 7 WHERE id = 3")).isEqualTo(1);
            }
            return null;
        });
        assertThat(changes).extracting(RowChange::values).containsExactly(vals(7L, 1L, 10L), vals(7L, 2L, 20L),
                vals(8L, 1L, 1L), vals(8L, 2L, 2L), vals(3L, "pad", 7L, 2.25, null));
        assertThat(changes.get(0).keyColumns()).containsExactly("cart_id", "item_id");
    }

    @Test
    void updateCapturesEachRowAfterTheWriteAndAnUpdateOfNothingCapturesNothing() throws SQLException {
        List<RowChange> changes = capture(c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE items SET stock = stock + ?, price = price * 2 WHERE price > ? AND stock < ?")) {
                ps.setInt(1, 5);
                ps.setDouble(2, 2.0);
                ps.setInt(3, 5);
                assertThat(ps.executeUpdate()).isEqualTo(2);
                ps.setInt(3, -1);
                assertThat(ps.executeUpdate()).isZero();
            }
            return null;
        });
        assertThat(changes).containsExactly(
                new RowChange("items", UPSERT, ITEM_COLUMNS, vals(2L, "ink", 6L, 8.0, null), List.of("id")),
                new RowChange("items", UPSERT, ITEM_COLUMNS, vals(3L, "pad", 5L, 4.5, null), List.of("id")));
    }

    @Test
    void deleteCapturesTheKeysOfTheRowsItRemoved() throws SQLException {
        List<RowChange> changes = capture(c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM users WHERE name = ?")) {
                ps.setString(1, "Bob");
                assertThat(ps.executeUpdate()).isEqualTo(1);
            }
            return null;
        });
        assertThat(changes).containsExactly(new RowChange("users", DELETE, List.of("email"), vals("b@x"), List.of("email")));
    }

    @Test
    void upsertsCaptureTheRowAsItEndsUp() throws SQLException {
        List<RowChange> changes = capture(c -> {
            try (PreparedStatement ps = c.prepareStatement(addStockUpsert())) {
                for (long id : new long[] {1, 9}) {
                    ps.setLong(1, id);
                    ps.setString(2, "new-" + id);
                    ps.setInt(3, 5);
                    ps.executeUpdate();
                }
            }
            try (PreparedStatement ps = c.prepareStatement(insertIgnoringDuplicates())) {
                for (String email : new String[] {"a@x", "c@x"}) {
                    ps.setString(1, email);
                    ps.setString(2, "Other");
                    ps.setString(3, email.substring(0, 1) + "2");
                    ps.executeUpdate();
                }
            }
            return null;
        });
        assertThat(changes).containsExactly(
                new RowChange("items", UPSERT, ITEM_COLUMNS, vals(1L, "pen", 15L, 1.5, null), List.of("id")),
                new RowChange("items", UPSERT, ITEM_COLUMNS, vals(9L, "new-9", 5L, null, null), List.of("id")),
                new RowChange("users", UPSERT, List.of("email", "name", "login"), vals("c@x", "Other", "c2"),
                        List.of("email")));
    }

    @Test
    void writesThatCannotBeCapturedAreRefusedAndRollBack() throws SQLException {
        assertThatThrownBy(() -> capture(c -> {
            try (Statement st = c.createStatement()) {
                st.executeUpdate("UPDATE items SET id = 99 WHERE id = 1");
            }
            return null;
        })).hasMessageContaining("primary-key column id");
        assertThat(Db.count(origin, "history")).isZero();
    }

    /**
     * A table without a key is a multiset: an UPDATE removes each row as it was and appends it as it became, a DELETE
     * removes each row; on the replica one equal row each, duplicates included, and a removal that finds no equal row
     * fails the apply. (MariaDB, without RETURNING for UPDATE, refuses the UPDATE.)
     */
    @Test
    void rowsOfATableWithoutAKeyAreUpdatedAndDeletedAsAMultiset() throws SQLException {
        for (Database db : List.of(origin, replica))
            Db.exec(db, "INSERT INTO history (msg) VALUES ('a'), ('a'), ('b'), (NULL)");
        boolean updates = !backend().dialect().name().equals("mariadb");
        List<RowChange> changes = updates
                ? captureStatements("UPDATE history SET msg = 'c' WHERE msg = 'a'", "DELETE FROM history WHERE msg IS NULL")
                : captureStatements("DELETE FROM history WHERE msg = 'a'", "DELETE FROM history WHERE msg IS NULL");
        assertThat(changes).filteredOn(c -> c.kind() == RowChange.Kind.REMOVE).hasSize(3);
        replica.inTransaction(false, c -> {
            UpdateApplier.apply(c, replica.dialect(), changes);
            return null;
        });
        assertThat(Db.dump(replica, "history")).containsExactlyInAnyOrderElementsOf(Db.dump(origin, "history"))
                .hasSize(updates ? 3 : 1);
        assertThatThrownBy(() -> replica.inTransaction(false, c -> {
            UpdateApplier.apply(c, replica.dialect(), changes);
            return null;
        })).hasMessageContaining("no row of table history equal to a row the origin removed");
        if (!updates)
            assertThatThrownBy(() -> captureStatements("UPDATE history SET msg = 'c'"))
                    .hasMessageContaining("has no primary key").hasMessageContaining("cannot return the rows an UPDATE");
    }

    /**
     * A table without a primary key takes inserts: each row travels whole (an APPEND, never folded with an equal row),
     * and is inserted once on the replica, beside the rows the replica had, whatever the batch grouping.
     */
    @Test
    void rowsInsertedIntoATableWithoutAKeyTravelWholeAndAreInsertedOnce() throws SQLException {
        Db.exec(replica, "INSERT INTO history (msg) VALUES ('only on the replica')");
        List<RowChange> changes = captureStatements("INSERT INTO history (msg) VALUES ('x'), ('y')",
                "UPDATE items SET stock = 5 WHERE id = 1", "INSERT INTO history (msg) VALUES ('x')");
        RowChange x = new RowChange("history", RowChange.Kind.APPEND, List.of("msg"), vals("x"), List.of());
        assertThat(changes).filteredOn(c -> c.table().equals("history")).containsExactly(x,
                new RowChange("history", RowChange.Kind.APPEND, List.of("msg"), vals("y"), List.of()), x);
        replica.inTransaction(false, c -> {
            UpdateApplier.apply(c, replica.dialect(), changes);
            return null;
        });
        Db.exec(origin, "INSERT INTO history (msg) VALUES ('only on the replica')");
        assertThat(Db.dump(replica, "history")).hasSize(4).containsExactlyInAnyOrderElementsOf(Db.dump(origin, "history"));
    }

    @Test
    void appliedElsewhereTheRowsAreTheSameAndApplyingTwiceChangesNothing() throws SQLException {
        List<RowChange> changes = captureStatements(
                "INSERT INTO items (name, stock, price) VALUES ('lamp', 3, 9.5)",
                "UPDATE items SET stock = stock - 1 WHERE id IN (1, 2)",
                "DELETE FROM items WHERE id = 3",
                "UPDATE users SET name = 'Anne' WHERE email = 'a@x'",
                "INSERT INTO carts (cart_id, item_id, qty) VALUES (1, 4, 2)",
                "INSERT INTO flags (on_, at) VALUES (TRUE, '2026-01-02 03:04:05.678')");
        for (int round = 0; round < 2; round++)
            replica.inTransaction(false, c -> {
                UpdateApplier.apply(c, replica.dialect(), changes);
                return null;
            });
        for (String table : List.of("items", "users", "carts", "flags"))
            assertThat(Db.dump(replica, table)).as(table).isEqualTo(Db.dump(origin, table));
        assertThat(Db.dump(replica, "items")).hasSize(3);
    }

    /**
     * Grouped by row alone, the new user would take login 'bob' before Bob's row is deleted: an error on one server,
     * a silent overwrite of Bob's row on another (MariaDB's upsert). A table with such an index keeps its order, and
     * the replica ends as the origin.
     */
    @Test
    void aTableWithAnotherUniqueIndexIsAppliedInTheOriginsOrder() throws SQLException {
        List<RowChange> changes = captureStatements("UPDATE users SET name = 'Anne' WHERE email = 'a@x'",
                "DELETE FROM users WHERE email = 'b@x'",
                "INSERT INTO users (email, name, login) VALUES ('d@x', 'Dan', 'bob')");
        assertThat(UpdateApplier.groupedRuns(changes, UpdateApplier::rowsOf)).as("grouped by row alone").hasSize(2);
        replica.inTransaction(false, c -> {
            UpdateApplier.apply(c, replica.dialect(), changes);
            return null;
        });
        assertThat(Db.dump(replica, "users")).isEqualTo(Db.dump(origin, "users"));
    }

    @Test
    void keysGeneratedOnTheReplicaFollowTheKeysItApplied() throws SQLException {
        List<RowChange> changes = capture(c -> {
            try (Statement st = c.createStatement()) {
                st.executeUpdate("INSERT INTO items (name) VALUES ('a'), ('b')");
            }
            return null;
        });
        assertThat(changes).extracting(ch -> ch.value("id")).containsExactly(new Value.Int(4), new Value.Int(5));
        replica.inTransaction(false, c -> {
            UpdateApplier.apply(c, replica.dialect(), changes);
            return null;
        });
        long next = replica.inTransaction(false, c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO items (name) VALUES ('c')",
                    Statement.RETURN_GENERATED_KEYS)) {
                ps.executeUpdate();
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    keys.next();
                    return keys.getLong(1);
                }
            }
        });
        assertThat(next).as("a key generated after applying ids 4 and 5").isEqualTo(6);
    }

    /**
     * Two transactions read the same two rows, then each writes one of them: under SERIALIZABLE one of them must
     * lose (PostgreSQL: a serialization failure; InnoDB: a deadlock). The loser is rolled back and run again by
     * {@link Database#inTransaction}, so both increments land.
     */
    @Test
    void serializationFailuresAndDeadlocksAreRetried() throws Exception {
        CyclicBarrier bothRead = new CyclicBarrier(2);
        AtomicInteger failures = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            long id = t + 1;
            AtomicInteger attempts = new AtomicInteger();
            Thread th = new Thread(() -> {
                try {
                    origin.inTransaction(false, c -> {
                        try (Statement st = c.createStatement();
                             ResultSet rs = st.executeQuery("SELECT SUM(stock) FROM items WHERE id IN (1, 2)")) {
                            rs.next();
                        }
                        if (attempts.incrementAndGet() == 1) bothRead.await(10, TimeUnit.SECONDS);
                        try (Statement st = c.createStatement()) {
                            st.executeUpdate("UPDATE items SET stock = stock + 100 WHERE id = " + id);
                        }
                        return null;
                    });
                } catch (Exception e) {
                    failures.incrementAndGet();
                    e.printStackTrace();
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) th.join(60_000);
        assertThat(failures.get()).isZero();
        assertThat(origin.retries()).as("the losing transaction was retried").isPositive();
        List<List<Value>> items = Db.dump(origin, "items");
        assertThat(items.get(0).get(2)).isEqualTo(new Value.Int(110));
        assertThat(items.get(1).get(2)).isEqualTo(new Value.Int(101));
    }

    @Test
    void metadataTablesWorkInThisDialect() throws SQLException {
        var state = origin.inTransaction(false, c -> {
            MetadataStore.createTables(c);
            return MetadataStore.load(c, 0);
        });
        assertThat(state.lastGsn()).isZero();
        var token = new dev.gyro.protocol.Token(1, List.of(new dev.gyro.protocol.StateUpdate(1, 1,
                List.of(new RowChange("users", DELETE, List.of("email"), vals("b@x"), List.of("email"))))));
        origin.inTransaction(false, c -> {
            UpdateApplier.applyAll(c, token.updates());
            MetadataStore.recordReceived(c, token, 1);
            return null;
        });
        var again = origin.inTransaction(false, c -> MetadataStore.load(c, 0));
        assertThat(again.lastGsn()).isEqualTo(1);
        assertThat(again.token()).isEqualTo(token);
        assertThat(Db.count(origin, "users")).isEqualTo(1);
    }
}
