package dev.gyro.cli;

/**
 * {@link NewMemberProcessTest} with every replica's database on a PostgreSQL server, the new member's copy read through
 * JDBC from a live replica's. On request ({@code -Dgyro.test.long=true}, docs/testing.md): the suite's time bound.
 */
@org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "gyro.test.long", matches = "true",
        disabledReason = "on request: -Dgyro.test.long=true (docs/testing.md): the suite's time bound")
class NewMemberProcessOnPostgresTest extends NewMemberProcessTest {

    NewMemberProcessOnPostgresTest() {
        super("postgres");
    }
}
