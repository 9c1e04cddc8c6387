package dev.gyro.runtime.db;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an instance's status says about its database (DatabaseHealth): "ok" until a failure that says it cannot be
 * reached, then since when and why until a transaction commits; "retrying to ..." while a thread retries work on it,
 * until that thread is done. (A real PostgreSQL server stopped and started again: gyro-cli's DatabaseDownTest.)
 */
class DatabaseHealthTest {

    @TempDir
    Path dir;
    Database db;

    @AfterEach
    void close() {
        if (db != null) db.close();
    }

    @Test
    void anUnreachableDatabaseIsDownUntilATransactionCommits() throws Exception {
        db = Database.open(SqliteDialect.INSTANCE, dir.resolve("h.db").toString());
        DatabaseHealth health = db.failures().health();
        assertThat(health.status()).containsEntry("database", "ok").containsEntry("databaseDown", false);

        health.unreachable(new SQLTransientConnectionException("pool timed out",
                new SQLException("Connection to 127.0.0.1:5999 refused", "08001")));
        assertThat(health.down()).isTrue();
        assertThat(health.downGauge()).isOne();
        assertThat((String) health.status().get("database")).startsWith("unreachable since ")
                .endsWith(": Connection to 127.0.0.1:5999 refused");

        db.inTransaction(true, c -> null);
        assertThat(health.down()).isFalse();
        assertThat(health.status()).containsEntry("database", "ok");
    }

    @Test
    void workRetriedOnTheDatabaseIsDownUntilItsThreadIsDone() throws Exception {
        db = Database.open(SqliteDialect.INSTANCE, dir.resolve("h.db").toString());
        DatabaseHealth health = db.failures().health();
        SQLException refused = new SQLException("Connection refused", "08001");
        health.retrying("apply the updates of hop 7", 1, refused);
        health.retrying("apply the updates of hop 7", 2, refused);
        assertThat(health.status()).containsEntry("databaseDown", true);
        assertThat((String) health.status().get("database")).startsWith("retrying to apply the updates of hop 7 since ")
                .contains("attempt 2").endsWith(": Connection refused");

        db.inTransaction(true, c -> null); // the database answers, but the belt's work is not done yet
        assertThat(health.down()).isTrue();
        Thread other = new Thread(health::retried); // only the retrying thread ends its retries
        other.start();
        other.join();
        assertThat(health.down()).isTrue();
        health.retried();
        assertThat(health.status()).containsEntry("database", "ok").containsEntry("databaseDown", false);
    }

    @Test
    void aFailureOfTheTransactionsOwnSaysNothingAboutTheDatabase() throws Exception {
        db = Database.open(SqliteDialect.INSTANCE, dir.resolve("h.db").toString());
        try {
            db.inTransaction(false, c -> c.createStatement().execute("SELECT * FROM no_such_table"));
        } catch (SQLException expected) {
            // the transaction's own failure
        }
        assertThat(db.failures().health().down()).isFalse();
    }
}
