package dev.gyro.cli;

/** {@link ReplicaKillTest} with every replica's database on a PostgreSQL server. */
class ReplicaKillOnPostgresTest extends ReplicaKillTest {

    ReplicaKillOnPostgresTest() {
        super("postgres");
    }
}
