package dev.gyro.cli;

/**
 * {@link ElasticProcessesTest} on databases of a throwaway PostgreSQL server. On request, with the other kill tests on
 * servers: the suite's time bound (docs/testing.md); in the suite, bucket moves and a join on PostgreSQL and MariaDB run
 * in one JVM (BackendClusterContract).
 */
@org.junit.jupiter.api.Tag("servers")
@org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "gyro.test.serverKills", matches = "true",
        disabledReason = "on request: -Dgyro.test.serverKills=true (docs/testing.md): the suite's time bound")
class ElasticProcessesOnPostgresTest extends ElasticProcessesTest {
    ElasticProcessesOnPostgresTest() {
        super("postgres");
    }
}
