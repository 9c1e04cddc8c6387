package dev.gyro.cli;

/** {@link ReplicaKillTest} with every replica's database a SQLite file. */
class ReplicaKillOnSqliteTest extends ReplicaKillTest {

    ReplicaKillOnSqliteTest() {
        super("sqlite");
    }
}
