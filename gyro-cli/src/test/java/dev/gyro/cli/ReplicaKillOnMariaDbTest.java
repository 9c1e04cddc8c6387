package dev.gyro.cli;

/** {@link ReplicaKillTest} with every replica's database on a MariaDB server. */
class ReplicaKillOnMariaDbTest extends ReplicaKillTest {

    ReplicaKillOnMariaDbTest() {
        super("mariadb");
    }
}
