package dev.gyro.bench.sharded;

import dev.gyro.app.Application;
import dev.gyro.apps.micro.Micro;
import dev.gyro.apps.rubis.Rubis;
import dev.gyro.apps.tpcc.Tpcc;
import dev.gyro.apps.tpcw.Tpcw;
import dev.gyro.bench.SystemUnderTest;
import dev.gyro.cluster.Backend;
import dev.gyro.emulation.Capacity;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

@Tag("slow")
class ShardedDatabasesTest {

    @TempDir
    Path dir;

    private ShardedDatabases create(Application app, String name) throws Exception {
        return ShardedDatabases.create(new SystemUnderTest.Setup(app, dir.resolve(name), 3, 1, 7, Capacity.PLAIN,
                Backend.SQLITE), n -> {});
    }

    @Test
    void everyApplicationShardsIntoValidDisjointPieces() throws Exception {
        for (Application app : List.of(new Micro(), new Tpcw(), new Rubis(), new Tpcc())) {
            try (ShardedDatabases s = create(app, app.name())) {
                assertThat(s.check()).as(app.name()).isEmpty();
                for (var e : s.sharding().shardedBy().entrySet()) {
                    long total = 0, distinctShards = 0;
                    for (int i = 0; i < s.size(); i++) {
                        long rows = count(s, i, e.getKey());
                        total += rows;
                        if (rows > 0) distinctShards++;
                    }
                    // Pruning kept rows, and spread them (TPC-C at scale 1 has one warehouse: one shard holds all).
                    if (total > 10 && !(app instanceof Tpcc)) assertThat(distinctShards).as(app.name() + " " + e.getKey()).isGreaterThan(1);
                }
            }
        }
    }

    @Test
    void aRowOnTheWrongShardOrADivergedReplicaIsNamed() throws Exception {
        try (ShardedDatabases s = create(new Micro(), "micro")) {
            int wrong = (s.shardOf(5L) + 1) % s.size();
            try (Connection c = s.connect(wrong); Statement st = c.createStatement()) {
                st.executeUpdate("INSERT INTO MICRO_PARTITION (MP_PARTITION, MP_OPS) VALUES (5, 0)");
                st.executeUpdate("UPDATE MICRO_SHARED SET MS_VALUE = MS_VALUE + 1 WHERE MS_KEY = 1");
            }
            assertThat(s.check())
                    .anySatisfy(p -> assertThat(p).contains("MICRO_PARTITION").contains("MP_PARTITION = 5")
                            .contains("belong on " + s.shardOf(5L)))
                    .anySatisfy(p -> assertThat(p).contains("replicated table MICRO_SHARED differs"));
        }
    }

    private static long count(ShardedDatabases s, int i, String table) throws Exception {
        try (Connection c = s.connect(i); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
