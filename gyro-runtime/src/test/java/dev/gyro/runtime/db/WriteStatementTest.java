package dev.gyro.runtime.db;

import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Statement recognition and the text edits behind capture. */
class WriteStatementTest {

    private static WriteStatement w(String sql) throws SQLException {
        return WriteStatement.classify(sql);
    }

    @Test
    void recognisesWritesTheirTableConflictModeAndSetColumns() throws SQLException {
        assertThat(w("INSERT INTO t (a) VALUES (?)")).extracting(WriteStatement::kind, WriteStatement::table,
                WriteStatement::conflict).containsExactly(WriteKind.INSERT, "t", null);
        assertThat(w("insert or ignore into \"My Table\" values (1)")).extracting(WriteStatement::table,
                WriteStatement::conflict).containsExactly("My Table", "IGNORE");
        assertThat(w("INSERT OR REPLACE INTO t VALUES (1)").replaces()).isTrue();
        assertThat(w("REPLACE INTO `t` VALUES (1)").replaces()).isTrue();
        assertThat(w("WITH x AS (SELECT 1 AS a) INSERT INTO t (a) SELECT a FROM x").kind()).isEqualTo(WriteKind.INSERT);
        assertThat(w("INSERT INTO t VALUES (1, 2) ON CONFLICT (a) DO UPDATE SET b = excluded.b").setColumns())
                .containsExactly("b");
        WriteStatement u = w("UPDATE OR ROLLBACK main.[t] SET \"b\" = 1, c = 2 WHERE a = ?");
        assertThat(u).extracting(WriteStatement::kind, WriteStatement::schema, WriteStatement::table,
                WriteStatement::conflict).containsExactly(WriteKind.UPDATE, "main", "t", "ROLLBACK");
        assertThat(u.setColumns()).containsExactly("b", "c");
        assertThat(w("UPDATE t SET (c, d) = (2, 3)").setColumns()).containsExactly("c", "d");
        assertThat(w("DELETE FROM t WHERE a IN (SELECT a FROM u)").kind()).isEqualTo(WriteKind.DELETE);
    }

    @Test
    void readsAreReads() throws SQLException {
        for (String sql : List.of("SELECT 1", "select * from t where a = ? -- c", "WITH x AS (SELECT 1) SELECT * FROM x",
                "VALUES (1)", "PRAGMA table_info(t)", "PRAGMA user_version", "PRAGMA main.index_list('t')", "SELECT json_extract(d, '$.a') ->> 'x' FROM t WINDOW w AS ()"))
            assertThat(w(sql).isWrite()).as(sql).isFalse();
    }

    @Test
    void refusesWhatItCannotCapture() {
        assertThatThrownBy(() -> w("DROP TABLE t")).hasMessageContaining("not allowed");
        assertThatThrownBy(() -> w("BEGIN")).isInstanceOf(SQLException.class);
        assertThatThrownBy(() -> w("INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)"))
                .hasMessageContaining("more than one");
        assertThatThrownBy(() -> w("  ;  ")).hasMessageContaining("empty");
        assertThatThrownBy(() -> w("PRAGMA user_version(7)")).isInstanceOf(SQLException.class);
        assertThatThrownBy(() -> w("PRAGMA main.user_version = 7")).isInstanceOf(SQLException.class);
        assertThatThrownBy(() -> w("UPDATE t SET a = 1 RETURNING a + 1")).hasMessageContaining("RETURNING clause computes");
        assertThatThrownBy(() -> w("UPDATE t SET a = 1 RETURNING a AS b")).hasMessageContaining("an alias");
    }

    @Test
    void theTailIsCutBeforeTrailingCommentsAndSemicolonsButNotInsideLiterals() {
        assertThat(SqlText.withoutTail("DELETE FROM t WHERE a = ';' ; -- done\n ;")).isEqualTo("DELETE FROM t WHERE a = ';'");
        assertThat(SqlText.withoutTail("UPDATE t SET a = '--x' /* c */")).isEqualTo("UPDATE t SET a = '--x'");
        assertThat(SqlText.withoutTail("INSERT INTO t VALUES ('it''s') -- trailing")).isEqualTo("INSERT INTO t VALUES ('it''s')");
        assertThat(SqlText.withoutTail("INSERT INTO \"a;b\" VALUES (?)")).isEqualTo("INSERT INTO \"a;b\" VALUES (?)");
        assertThat(SqliteDialect.INSTANCE.returningAll("DELETE FROM t -- x", WriteKind.DELETE))
                .isEqualTo("DELETE FROM t\nRETURNING *");
    }

    @Test
    void unquotesEveryIdentifierStyle() {
        assertThat(SqlText.unquote("\"a\"\"b\"")).isEqualTo("a\"b");
        assertThat(SqlText.unquote("`a``b`")).isEqualTo("a`b");
        assertThat(SqlText.unquote("[a b]")).isEqualTo("a b");
        assertThat(SqlText.unquote("plain")).isEqualTo("plain");
    }
}
