package dev.gyro.cluster;

import dev.gyro.runtime.db.MariaDbDialect;
import dev.gyro.runtime.db.PostgresDialect;
import dev.gyro.servers.ServerKind;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A backend is chosen per cluster by name, or follows from an instance's JDBC URL. */
@Tag("servers")
class BackendTest {

    @Test
    void backendsAreChosenByNameOrByJdbcUrl() {
        assertThat(Backend.parse("PostgreSQL")).isEqualTo(Backend.POSTGRES);
        assertThat(Backend.parse("mysql")).isEqualTo(Backend.MARIADB);
        assertThat(Backend.parse("sqlite")).isEqualTo(Backend.SQLITE);
        assertThatThrownBy(() -> Backend.parse("oracle")).hasMessageContaining("sqlite, postgres, mariadb");
        assertThat(Backend.ofTarget("jdbc:postgresql://h/db")).isEqualTo(Backend.POSTGRES);
        assertThat(Backend.ofTarget("jdbc:mysql://h/db")).isEqualTo(Backend.MARIADB);
        assertThat(Backend.ofTarget("/data/gyro-0.db")).isEqualTo(Backend.SQLITE);
        assertThatThrownBy(() -> Backend.ofTarget("jdbc:h2:mem:x")).hasMessageContaining("jdbc:h2:mem:x");
    }

    @Test
    void eachBackendHasItsDialectAndServer() {
        assertThat(Backend.POSTGRES.dialect()).isSameAs(PostgresDialect.INSTANCE);
        assertThat(Backend.MARIADB.dialect()).isSameAs(MariaDbDialect.INSTANCE);
        assertThat(Backend.POSTGRES.serverKind()).isEqualTo(ServerKind.POSTGRES);
        assertThat(Backend.SQLITE.hasServer()).isFalse();
        assertThat(Backend.SQLITE.unavailableReason()).isNull();
        // commit ordering (docs/decisions/06-commit-ordering.md): only MariaDB runs globals in parallel
        assertThat(Backend.MARIADB.dialect().parallelGlobals()).isTrue();
        assertThat(Backend.POSTGRES.dialect().parallelGlobals()).isFalse();
        assertThat(Backend.SQLITE.dialect().parallelGlobals()).isFalse();
    }
}
