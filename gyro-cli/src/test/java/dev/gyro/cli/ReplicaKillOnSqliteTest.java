package dev.gyro.cli;

/**
 * {@link ReplicaKillTest} with every replica's database a SQLite file. On request ({@code -Dgyro.test.long=true}, or
 * {@code -Dgyro.test.kills=N}; docs/testing.md): the suite's time bound; in the suite, leaders are killed under load
 * in one JVM on real Ratis servers (ReplicatedRingTest, ReplicatedRingChangesTest) and in the chaos demo.
 */
@org.junit.jupiter.api.condition.EnabledIf(value = "dev.gyro.cli.ReplicaKillOnSqliteTest#asked",
        disabledReason = "on request: -Dgyro.test.long=true or -Dgyro.test.kills=N (docs/testing.md): the suite's time bound")
class ReplicaKillOnSqliteTest extends ReplicaKillTest {

    ReplicaKillOnSqliteTest() {
        super("sqlite");
    }

    static boolean asked() {
        return Boolean.getBoolean("gyro.test.long") || System.getProperty("gyro.test.kills") != null;
    }
}
