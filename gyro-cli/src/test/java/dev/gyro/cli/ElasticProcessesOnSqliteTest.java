package dev.gyro.cli;

/** {@link ElasticProcessesTest} on SQLite files. */
class ElasticProcessesOnSqliteTest extends ElasticProcessesTest {
    ElasticProcessesOnSqliteTest() {
        super("sqlite");
    }
}
