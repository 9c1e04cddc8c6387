package dev.gyro.analyzer;

import dev.gyro.app.Kind;

import dev.gyro.analyzer.model.Condition;
import dev.gyro.analyzer.model.Entry;
import dev.gyro.analyzer.model.Equality;
import dev.gyro.analyzer.model.SourceRef;
import dev.gyro.analyzer.model.Value;
import dev.gyro.analyzer.partition.Clause;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static dev.gyro.analyzer.Fixtures.classification;
import static org.assertj.core.api.Assertions.assertThat;

/** Conflict conditions (Algorithm 2, lines 1-10), decided exactly for conjunctions of equalities. */
class ConflictTest {
    private static final SourceRef AT = new SourceRef(Path.of("X.java"), 1);

    private static Entry entry(Equality... equalities) {
        return new Entry("T", Set.of("A"), new Condition(List.of(equalities), List.of()), AT, "sql");
    }

    private static Equality eq(String column, Value v) {
        return new Equality(column, v);
    }

    @Test
    void twoDifferentConstantsForOneColumnCannotBothHold() {
        assertThat(Clause.of(entry(eq("K", Value.Constant.string("user"))), entry(eq("K", Value.Constant.string("site"))))
                .satisfiable()).isFalse();
        assertThat(Clause.of(entry(eq("K", Value.Constant.number("1"))), entry(eq("K", Value.Constant.number("2"))))
                .satisfiable()).isFalse();
    }

    @Test
    void equalConstantsParametersAndFreeValuesMayHold() {
        assertThat(Clause.of(entry(eq("K", Value.Constant.number("1"))), entry(eq("K", Value.Constant.number("1.0"))))
                .satisfiable()).isTrue();
        assertThat(Clause.of(entry(eq("K", Value.Constant.string("Abc"))), entry(eq("K", Value.Constant.string("abc "))))
                .satisfiable()).as("MySQL's default collation ignores case and trailing blanks").isTrue();
        assertThat(Clause.of(entry(eq("K", Value.Constant.number("1"))), entry(eq("K", Value.Constant.string("1"))))
                .satisfiable()).as("a number and a string may be coerced to each other").isTrue();
        assertThat(Clause.of(entry(eq("K", new Value.Param("k"))), entry(eq("K", Value.Constant.number("3"))))
                .satisfiable()).isTrue();
        assertThat(Clause.of(entry(eq("K", new Value.Free("read"))), entry(eq("K", Value.Constant.number("3"))))
                .satisfiable()).isTrue();
    }

    @Test
    void aClauseImpliesEqualParametersWhenBothBindTheSameColumn() {
        Clause c = Clause.of(entry(eq("CART_ID", new Value.Param("cartId")), eq("ITEM_ID", new Value.Param("itemId"))),
                entry(eq("CART_ID", new Value.Param("cart"))));
        assertThat(c.implies("cartId", "cart")).isTrue();
        assertThat(c.implies("itemId", "cart")).isFalse();
        Clause free = Clause.of(entry(eq("CART_ID", new Value.Free("x"))), entry(eq("CART_ID", new Value.Param("cart"))));
        assertThat(free.implies("cartId", "cart")).isFalse();
    }

    @Test
    void aFreeValueOfOneRequestIsNotTheSameUnknownAsInAnother() {
        Value.Free shared = new Value.Free("read from the database");
        Clause self = Clause.of(entry(eq("K", shared), eq("K", new Value.Param("a"))), entry(eq("K", shared)));
        assertThat(self.satisfiable()).isTrue();
        assertThat(self.implies("a", "a")).isFalse();
    }

    @Test
    void rowsSelectedByDifferentConstantsDoNotConflict(@TempDir Path dir) {
        Fixtures.write(dir, "app/Bump.java", Fixtures.oneStatement("Bump", "long userId",
                "UPDATE STATS SET N = N + 1 WHERE KIND = 'user' AND ID = ?", "userId"));
        Fixtures.write(dir, "app/UserStats.java", Fixtures.oneStatement("UserStats", "long userId",
                "SELECT N FROM STATS WHERE KIND = 'user' AND ID = ?", "userId"));
        Fixtures.write(dir, "app/SiteTotal.java", Fixtures.oneStatement("SiteTotal", "",
                "SELECT SUM(N) FROM STATS WHERE KIND = 'site'"));
        AnalysisResult r = Fixtures.analyze(dir);
        assertThat(r.conflicts()).noneMatch(c -> c.other().name().equals("siteTotal"));
        assertThat(classification(r, "bump").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "bump").partitionBy()).containsExactly("userId");
    }

    @Test
    void rowsSelectedByTheSameConstantDoConflict(@TempDir Path dir) {
        Fixtures.write(dir, "app/Bump.java", Fixtures.oneStatement("Bump", "long userId",
                "UPDATE STATS SET N = N + 1 WHERE KIND = 'user' AND ID = ?", "userId"));
        Fixtures.write(dir, "app/AllUsers.java", Fixtures.oneStatement("AllUsers", "",
                "SELECT SUM(N) FROM STATS WHERE KIND = 'user'"));
        AnalysisResult r = Fixtures.analyze(dir);
        assertThat(classification(r, "bump").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "bump").reason()).contains("allUsers (no partitioning parameter)");
    }

    @Test
    void aTransactionConflictsWithItselfAcrossPartitions(@TempDir Path dir) {
        // Algorithm 2 considers t = t': two requests of Transfer with different ids may hit the same row
        Fixtures.write(dir, "app/Transfer.java", Fixtures.gyroTransaction("Transfer", "long from, long to", """
                try (PreparedStatement ps = c.prepareStatement("UPDATE ACCOUNTS SET BALANCE = BALANCE - 1 WHERE ID = ?")) {
                    ps.setLong(1, from);
                    ps.executeUpdate();
                }
                try (PreparedStatement ps = c.prepareStatement("UPDATE ACCOUNTS SET BALANCE = BALANCE + 1 WHERE ID = ?")) {
                    ps.setLong(1, to);
                    ps.executeUpdate();
                }
                """));
        AnalysisResult r = Fixtures.analyze(dir);
        assertThat(classification(r, "transfer").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "transfer").reason()).contains("transfer' (another request of it");
    }
}
