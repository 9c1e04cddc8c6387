package dev.gyro.cli;

/** {@link ElasticProcessesTest} on databases of a throwaway PostgreSQL server. */
@org.junit.jupiter.api.Tag("servers")
class ElasticProcessesOnPostgresTest extends ElasticProcessesTest {
    ElasticProcessesOnPostgresTest() {
        super("postgres");
    }
}
