package dev.gyro.agent;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What may run outside any call while Gyro serves: statements that cannot write rows. */
class VirtualStatementTest {

    @Test
    void queriesAndSessionSettingsCannotWrite() {
        for (String sql : new String[] {"SELECT 1", "  select * from t", "(SELECT a FROM t) UNION (SELECT b FROM u)",
                "-- the count\nSELECT COUNT(*) FROM t", "/* hint */ SELECT 1", "WITH x AS (SELECT 1) SELECT * FROM x",
                "SHOW TRANSACTION ISOLATION LEVEL", "EXPLAIN SELECT 1", "VALUES (1)", "SET search_path TO app",
                "PRAGMA table_info(t)"})
            assertThat(VirtualStatement.readOnly(sql)).as(sql).isTrue();
    }

    @Test
    void everythingElseMayWrite() {
        for (String sql : new String[] {"UPDATE t SET a = 1", "insert into t values (1)", "DELETE FROM t",
                "WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x", "EXPLAIN ANALYZE DELETE FROM t",
                "PRAGMA user_version = 3", "CREATE TABLE u (a INT)", "CALL refresh()", "MERGE INTO t USING u ON 1 = 1",
                "TRUNCATE t", ""})
            assertThat(VirtualStatement.readOnly(sql)).as(sql).isFalse();
    }
}
