package dev.gyro.cli;

/** {@link NewMemberProcessTest} with every replica's database a SQLite file. */
class NewMemberProcessOnSqliteTest extends NewMemberProcessTest {

    NewMemberProcessOnSqliteTest() {
        super("sqlite");
    }
}
