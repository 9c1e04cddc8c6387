package dev.gyro.cluster;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link BackendClusterContract} on three PostgreSQL servers. */
class PostgresClusterTest extends BackendClusterContract {
    @Override
    Backend backend() {
        return Backend.POSTGRES;
    }

    /**
     * A freshly loaded database is vacuumed and analyzed before any request runs (Dialect.afterBulkLoad), so that
     * autovacuum does not do it later, beside the requests: every table of the application has planner statistics
     * (a table never analyzed has {@code reltuples} -1), and the loaded rows are in the visibility map.
     */
    @Test
    void freshlyLoadedDatabasesAreVacuumedAndAnalyzedBeforeRequestsRun() throws Exception {
        for (int i = 0; i < cluster.size(); i++) {
            try (Connection c = cluster.connect(i); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT c.relname, c.reltuples, c.relallvisible FROM pg_class c"
                         + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema()"
                         + " AND c.relkind = 'r' AND c.relname NOT LIKE 'gyro%'")) {
                int tables = 0, allVisible = 0;
                while (rs.next()) {
                    tables++;
                    assertThat(rs.getDouble(2)).as("instance " + i + ": " + rs.getString(1) + " analyzed")
                            .isGreaterThanOrEqualTo(0);
                    if (rs.getInt(3) > 0) allVisible++;
                }
                assertThat(tables).as("instance " + i + ": the application's tables").isPositive();
                assertThat(allVisible).as("instance " + i + ": tables whose loaded rows are all visible").isPositive();
            }
        }
    }
}
