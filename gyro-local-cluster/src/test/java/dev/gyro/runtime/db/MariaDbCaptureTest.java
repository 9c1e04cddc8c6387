package dev.gyro.runtime.db;

import dev.gyro.protocol.RowChange;
import dev.gyro.cluster.Backend;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static dev.gyro.protocol.RowChange.Kind.UPSERT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link BackendCaptureContract} on real MariaDB servers, plus what only MariaDB has: UPDATE without RETURNING
 * (captured by a keyed re-read), UPDATE ... ORDER BY ... LIMIT, REPLACE.
 */
@Tag("servers")
class MariaDbCaptureTest extends BackendCaptureContract {

    @Override
    Backend backend() {
        return Backend.MARIADB;
    }

    @Override
    String[] schema() {
        return new String[] {
            "CREATE TABLE items (id BIGINT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(50) NOT NULL,"
                    + " stock INT NOT NULL DEFAULT 0, price DOUBLE, photo BLOB)",
            "CREATE TABLE carts (cart_id BIGINT NOT NULL, item_id BIGINT NOT NULL, qty INT NOT NULL,"
                    + " PRIMARY KEY (cart_id, item_id))",
            "CREATE TABLE users (email VARCHAR(50) PRIMARY KEY, name VARCHAR(50), login VARCHAR(50) UNIQUE)",
            "CREATE TABLE flags (id BIGINT AUTO_INCREMENT PRIMARY KEY, on_ BOOLEAN NOT NULL, at DATETIME(3))",
            "CREATE TABLE history (msg TEXT)",
        };
    }

    @Override
    String addStockUpsert() {
        return "INSERT INTO items (id, name, stock) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE stock = stock + VALUES(stock)";
    }

    @Override
    String insertIgnoringDuplicates() {
        return "INSERT IGNORE INTO users (email, name, login) VALUES (?, ?, ?)";
    }

    @Test
    void updateWithOrderByAndLimitCapturesExactlyTheRowsItWrote() throws SQLException {
        List<RowChange> changes = capture(c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE items i SET i.stock = i.stock + ? WHERE i.price < ? ORDER BY i.price DESC LIMIT 1")) {
                ps.setInt(1, 1);
                ps.setDouble(2, 3.0);
                assertThat(ps.executeUpdate()).isEqualTo(1);
            }
            return null;
        });
        assertThat(changes).containsExactly(
                new RowChange("items", UPSERT, ITEM_COLUMNS, vals(3L, "pad", 1L, 2.25, null), List.of("id")));
    }

    @Test
    void replaceCapturesTheRowItLeft() throws SQLException {
        List<RowChange> changes = capture(c -> {
            try (Statement st = c.createStatement()) {
                st.executeUpdate("INSERT INTO carts (cart_id, item_id, qty) VALUES (1, 1, 1)");
                st.executeUpdate("REPLACE INTO carts (cart_id, item_id, qty) VALUES (1, 1, 5)");
            }
            return null;
        });
        assertThat(changes).containsExactly(new RowChange("carts", UPSERT, List.of("cart_id", "item_id", "qty"),
                vals(1L, 1L, 5L), List.of("cart_id", "item_id")));
    }
}
