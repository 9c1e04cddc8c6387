package dev.gyro.check;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link ReplicaCheck#compareReplicas} on three SQLite files: a group's replicas compared table by table. */
class ReplicaCheckTest {

    @TempDir
    Path dir;

    @Test
    void aRowThatDiffersOnOneReplicaIsNamedAndEachReplicasOwnStampIsNot() throws Exception {
        List<Connection> replicas = new ArrayList<>();
        try {
            for (int r = 0; r < 3; r++) {
                Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("replica-" + r + ".db"));
                replicas.add(c);
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE ITEMS (ID INTEGER PRIMARY KEY, STOCK INTEGER)");
                    s.execute("INSERT INTO ITEMS VALUES (1, 10), (2, 20)");
                    s.execute("CREATE TABLE " + ReplicaCheck.REPLICA_STAMP + " (replica INTEGER)");
                    s.execute("INSERT INTO " + ReplicaCheck.REPLICA_STAMP + " VALUES (" + r + ")");
                }
            }
            ReplicaCheck.ReplicaComparison same = ReplicaCheck.compareReplicas(replicas);
            assertThat(same.equal()).as(same.differences().toString()).isTrue();
            assertThat(same.tables()).isEqualTo(1);

            try (Statement s = replicas.get(2).createStatement()) {
                s.execute("UPDATE ITEMS SET STOCK = 19 WHERE ID = 2");
            }
            ReplicaCheck.ReplicaComparison differ = ReplicaCheck.compareReplicas(replicas);
            assertThat(differ.equal()).isFalse();
            assertThat(differ.differences()).singleElement().asString()
                    .startsWith("table ITEMS differs between replica 0 (2 rows, ").contains("and replica 2 (2 rows, ");
        } finally {
            for (Connection c : replicas) c.close();
        }
    }
}
