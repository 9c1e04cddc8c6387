package dev.gyro.cli;

/** {@link ReplicaKillTest} with every replica's database on a PostgreSQL server. */
@org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "gyro.test.serverKills", matches = "true",
        disabledReason = "on request: -Dgyro.test.serverKills=true (docs/testing.md): the suite's time bound")
class ReplicaKillOnPostgresTest extends ReplicaKillTest {

    ReplicaKillOnPostgresTest() {
        super("postgres");
    }
}
