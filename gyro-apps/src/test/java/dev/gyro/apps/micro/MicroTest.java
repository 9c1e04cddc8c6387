package dev.gyro.apps.micro;

import dev.gyro.app.Kind;
import dev.gyro.app.Outcome;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.Databases;
import dev.gyro.apps.Driver;
import dev.gyro.protocol.PartitionMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MicroTest {

    static final Micro MICRO = new Micro();

    @Test
    void classificationHasALocalAndAGlobalOperationPerMode() {
        MICRO.classification().validateAgainst(new TransactionCatalog(MICRO.transactions()));
        assertThat(MICRO.classification().rule("localOp").kind()).isEqualTo(Kind.LOCAL);
        assertThat(MICRO.classification().rule("globalOp").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(MICRO.classification().rule("voidGlobal").kind()).isEqualTo(Kind.GLOBAL);
    }

    @Test
    void theLocalShareIsAParameterAndTheSessionsAreSeeded(@TempDir Path dir) throws Exception {
        try (Connection c = Databases.sqlite(dir.resolve("m.db"))) {
            Driver.load(MICRO, c, 1, 1);
            for (int local : new int[] {0, 30, 100}) {
                Driver.Counts n = Driver.drive(MICRO, c, 1, WorkloadOptions.of(Map.of("local", "" + local, "service-ms", "0")),
                        4, 2000, 3);
                long locals = n.byTransaction().getOrDefault("localOp", new long[3])[0];
                assertThat(n.failures()).isEmpty();
                assertThat(locals / 2000.0).as("local share %d%%", local).isCloseTo(local / 100.0,
                        org.assertj.core.data.Offset.offset(0.04));
            }
            Driver.Counts v = Driver.drive(MICRO, c, 1, WorkloadOptions.parse(List.of("void", "service-ms=0")), 2, 100, 3);
            assertThat(v.byTransaction()).containsOnlyKeys("voidLocal", "voidGlobal");
            assertThat(v.total(Outcome.Status.OK)).isEqualTo(100);
            assertThat(MICRO.audit(1, 1).check(List.of(c), PartitionMap.uniform(1))).isEmpty();
        }
        assertThatThrownBy(() -> MICRO.workload(1, WorkloadOptions.parse(List.of("locale=3"))))
                .hasMessageContaining("unknown workload option(s) [locale]");
        assertThatThrownBy(() -> MICRO.workload(1, WorkloadOptions.parse(List.of("local=101"))))
                .hasMessageContaining("outside [0.0, 100.0]");
    }

    @Test
    void theServiceTimeIsSpentInEveryOperation(@TempDir Path dir) throws Exception {
        try (Connection c = Databases.sqlite(dir.resolve("m.db"))) {
            Driver.load(MICRO, c, 1, 1);
            long t0 = System.nanoTime();
            Driver.drive(MICRO, c, 1, WorkloadOptions.parse(List.of("void", "service-ms=5")), 1, 40, 3);
            assertThat((System.nanoTime() - t0) / 1e6).isGreaterThanOrEqualTo(40 * 5);
        }
    }

    @Test
    void theAuditNamesACorruptedCounter(@TempDir Path dir) throws Exception {
        try (Connection c = Databases.sqlite(dir.resolve("m.db"))) {
            Driver.load(MICRO, c, 1, 1);
            Driver.drive(MICRO, c, 1, WorkloadOptions.of(Map.of("local", "50", "service-ms", "0")), 3, 500, 3);
            assertThat(MICRO.audit(1, 1).check(List.of(c), PartitionMap.uniform(1))).isEmpty();
            long partition;
            try (Statement s = c.createStatement(); var rs = s.executeQuery("SELECT MIN(MP_PARTITION) FROM MICRO_PARTITION")) {
                rs.next();
                partition = rs.getLong(1);
            }
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE MICRO_SHARED SET MS_VALUE = MS_VALUE + 1 WHERE MS_KEY = 3");
                s.executeUpdate("UPDATE MICRO_PARTITION SET MP_OPS = MP_OPS + 1 WHERE MP_PARTITION = " + partition);
            }
            c.commit();
            List<String> v = MICRO.audit(1, 1).check(List.of(c), PartitionMap.uniform(1));
            assertThat(v).anySatisfy(s -> assertThat(s).contains("MICRO_SHARED row 0"));
            assertThat(v).anySatisfy(s -> assertThat(s).contains("partition " + partition));
        }
    }
}
