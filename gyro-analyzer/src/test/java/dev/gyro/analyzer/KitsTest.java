package dev.gyro.analyzer;

import dev.gyro.analyzer.java.ReplacedSql;
import dev.gyro.app.Kind;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static dev.gyro.analyzer.Fixtures.classification;
import static dev.gyro.analyzer.Fixtures.transaction;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * SQL through the statement objects and helpers of benchmark kits and DAO layers (gyro-analyzer/README.md, "SQL
 * carried by objects"): a statement class whose constructor takes the text plus varargs and hands it to a setter, a
 * helper that prepares in branches and returns {@code (ps)} for the caller to bind and run, constants imported
 * statically, public non-final fields nothing assigns, texts a setter may replace at run time
 * (docs/decisions/33-declared-sql-texts.md), and an application method named like JDBC's {@code execute}.
 */
class KitsTest {

    @Test
    void theClassificationFileNamesEachProceduresMethodForGyroToAttachTo() {
        // docs/decisions/34-attaching.md: the binary name of the class, the method, its parameters' types resolved
        // from the imports (java.sql.Connection), java.lang (String) and primitives
        dev.gyro.app.Classification file = Fixtures.analyze(Fixtures.fixture("kits/procedures")).classificationFile();
        dev.gyro.app.Classification.Rule peek = file.rule("PeekPoints.run");
        assertThat(peek.method()).isEqualTo(new dev.gyro.app.Classification.Method("kit.procs.PeekPoints", "run",
                java.util.List.of(new dev.gyro.app.Classification.Parameter("conn", "java.sql.Connection"),
                        new dev.gyro.app.Classification.Parameter("memberId", "long"),
                        new dev.gyro.app.Classification.Parameter("name", "java.lang.String"))));
        assertThat(file.rule("AwardPoints.run").method().toString())
                .isEqualTo("kit.procs.AwardPoints.run(java.sql.Connection conn, long memberId, int seq, int points)");
        // types from on-demand imports (java.sql.*, java.util.*), type arguments erased
        dev.gyro.app.Classification more = Fixtures.analyze(Fixtures.fixture("kits/procedures"),
                Fixtures.fixture("kits/procedures-ondemand")).classificationFile();
        assertThat(more.rule("Redeem.run").method().toString()).isEqualTo("kit.more.Redeem.run(java.sql.Connection conn,"
                + " long memberId, java.util.List notes, java.util.Random gen)");
        // a DAO's methods too, in another package
        dev.gyro.app.Classification dao = Fixtures.analyze(Fixtures.fixture("kits/dao")).classificationFile();
        assertThat(dao.rules()).allSatisfy(r -> assertThat(r.method()).isNotNull());
        assertThat(dao.rules()).anySatisfy(r -> assertThat(r.method().toString())
                .isEqualTo("shop.dao.OrderDao.ship(java.sql.Connection con, long orderId)"));
        // Gyro's own transaction classes are their class, not a method to attach to
        assertThat(Fixtures.analyze(Fixtures.fixture("store")).classificationFile().rules())
                .allSatisfy(r -> assertThat(r.method()).isNull());
    }

    /**
     * A whole program given to the analyzer, its {@code main} creating and loading the schema and then calling the
     * DAO: {@code main} is the program, not a request (were it one, the whole run would be one global request and every
     * DAO method part of it); the DAO's methods are the transactions, local by their keys, and the report says why
     * {@code main} is left out.
     */
    @Test
    void aProgramsMainIsNotATransaction() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("kits/program"));
        assertThat(r.classifications()).extracting(dev.gyro.analyzer.partition.Classification::name).containsExactlyInAnyOrder("reserve",
                "total");
        assertThat(classification(r, "reserve").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "reserve").partitionBy()).containsExactly("r.warehouse");
        assertThat(r.diagnostics()).anySatisfy(d -> assertThat(d.message()).isEqualTo("Main.main is the"
                + " program's entry point, not a transaction: what it runs before the first call goes to every"
                + " instance, and a write of its own while Gyro serves is refused"));
        assertThat(r.diagnostics()).noneMatch(d -> d.message().contains("unclassified SQL"));
    }

    @Test
    void proceduresStatementsMadeWithVarargsAndPreparedThroughTwoHelpers() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("kits/procedures"));
        // prepared with no parameters, bound by the caller, run with executeQuery: a read of one member
        assertThat(transaction(r, "MemberPoints.run").readSet()).extracting(Object::toString)
                .containsExactly("<MEMBERS.{(EXISTENCE),ID,POINTS}, ID = memberId> (MemberPoints.java:18)");
        assertThat(transaction(r, "MemberPoints.run").writeSet()).isEmpty();
        // bound by the helper's loop over its varargs
        assertThat(Fixtures.entries(transaction(r, "AwardPoints.run").writeSet(), "MEMBERS"))
                .containsExactly("MEMBERS.POINTS | ID = memberId");
        assertThat(Fixtures.entries(transaction(r, "AwardPoints.run").writeSet(), "AWARDS"))
                .containsExactly("AWARDS.* | MEMBER_ID = memberId AND SEQ = seq AND POINTS = points");
        // a statement prepared and bound but never run reads and writes nothing: PeekPoints is read-only, and its
        // update of members by name does not make AwardPoints global
        assertThat(transaction(r, "PeekPoints.run").writeSet()).isEmpty();
        assertThat(transaction(r, "PeekPoints.run").notes()).anyMatch(n -> n.contains("statement ready prepared at")
                && n.contains("is never executed"));
        assertThat(classification(r, "AwardPoints.run").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "AwardPoints.run").partitionBy()).containsExactly("memberId");
        assertThat(r.diagnostics()).noneMatch(d -> d.message().contains("is computed at run time"));
        // the dialect loader replaces texts of statements picked by name at run time: named, once
        assertThat(r.diagnostics()).filteredOn(d -> d.message().contains("Stmt.setText here may replace"))
                .singleElement().satisfies(d -> assertThat(d.where().toString()).endsWith("Proc.java:23"));
    }

    @Test
    void proceduresReplacedTextsTakenAsComputedOnRequest() {
        AnalysisResult r = new Analyzer().replacedSql(ReplacedSql.COMPUTED).analyze(List.of(Fixtures.fixture("kits/procedures")));
        assertThat(transaction(r, "AwardPoints.run").writeSet()).anySatisfy(e -> assertThat(e.table()).isEqualTo("*"));
        assertThat(classification(r, "AwardPoints.run").kind()).isEqualTo(Kind.GLOBAL);
        // run only through executeQuery: its rows widen, its kind does not
        assertThat(transaction(r, "MemberPoints.run").writeSet()).isEmpty();
        assertThat(classification(r, "MemberPoints.run").kind()).isEqualTo(Kind.LOCAL);
    }

    @Test
    void proceduresATextReplacedOnAStatementTheCodeNamesIsComputed() {
        // ResetPoints replaces its own statement's text (every other member): keeping the declared text would call it
        // local by memberId; since any Stmt may be that one, every Stmt text is computed
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("kits/procedures"), Fixtures.fixture("kits/procedures-replaced"));
        assertThat(transaction(r, "ResetPoints.run").writeSet()).anySatisfy(e -> assertThat(e.table()).isEqualTo("*"));
        assertThat(classification(r, "ResetPoints.run").kind()).isEqualTo(Kind.GLOBAL);
        assertThat(classification(r, "AwardPoints.run").kind()).isEqualTo(Kind.GLOBAL);
    }

    @Test
    void proceduresAnExpansionLoopThatRunsReplacesTheListByAnUnknownPiece() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("kits/procedures"), Fixtures.fixture("kits/procedures-expanded"));
        // new Stmt("... IN (??)", 3): the constructor's loop runs once, replacing ?? by what it builds; the list is any
        // rows of AWARDS (a rule ignoring the loop would read "IN (??)" as declared)
        assertThat(Fixtures.entries(transaction(r, "TopAwards.run").readSet(), "AWARDS"))
                .containsExactly("AWARDS.{(EXISTENCE),MEMBER_ID,POINTS} | any row");
        assertThat(transaction(r, "TopAwards.run").writeSet()).isEmpty();
        assertThat(classification(r, "TopAwards.run").kind()).isEqualTo(Kind.LOCAL);
        // it may read any award, so AwardPoints' writes are read from other partitions
        assertThat(classification(r, "AwardPoints.run").kind()).isEqualTo(Kind.GLOBAL);
        // a placeholder after the expanded list: its number is unknown, so the text is computed
        assertThat(transaction(r, "ClearAwards.run").writeSet()).anySatisfy(e -> assertThat(e.table()).isEqualTo("*"));
    }

    @Test
    void proceduresAPublicFieldSomeoneAssignsIsNotItsInitializer() {
        // Rebind gives MemberPoints' public statement a query by NAME: with the initializer (by ID), AwardPoints would
        // be local by memberId while MemberPoints reads its rows from another partition
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("kits/procedures"), Fixtures.fixture("kits/procedures-assigned"));
        assertThat(transaction(r, "MemberPoints.run").readSet()).anySatisfy(e -> assertThat(e.table()).isEqualTo("*"));
        assertThat(classification(r, "AwardPoints.run").kind()).isEqualTo(Kind.GLOBAL);
    }

    @Test
    void daoQueriesPreparedByAConditionalHelperAndRunByAHelperNamedExecute() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("kits/dao"));
        assertThat(transaction(r, "status").readSet()).extracting(Object::toString)
                .containsExactly("<ORDERS.{(EXISTENCE),ID,STATUS,TOTAL}, ID = orderId> (OrderDao.java:21)");
        assertThat(transaction(r, "lines").writeSet()).isEmpty();
        // Db.execute(con, ps) is the application's, not Statement.execute(String): con is no SQL text
        assertThat(transaction(r, "ship").writeSet()).extracting(Object::toString)
                .containsExactly("<ORDERS.STATUS, ID = orderId> (OrderDao.java:41)");
        assertThat(classification(r, "ship").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "ship").partitionBy()).containsExactly("orderId");
        assertThat(r.diagnostics()).noneMatch(d -> d.message().contains("is computed at run time"));
        assertThat(r.diagnostics()).filteredOn(d -> d.message().contains("Query.setSql here may replace"))
                .singleElement().satisfies(d -> assertThat(d.where().toString()).endsWith("Vendors.java:15"));
    }

    @Test
    void daoAnApplicationHelperNamedExecuteThatRunsItsTextIsFollowed() {
        // Sql.execute(con, text) runs the text: taking every source method named execute for no SQL would lose it
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("kits/dao"), Fixtures.fixture("kits/dao-sql-helper"));
        assertThat(Fixtures.entries(transaction(r, "cancelled").writeSet(), "ORDERS"))
                .containsExactly("ORDERS.* | STATUS = 'cancelled'");
        assertThat(classification(r, "ship").kind()).isEqualTo(Kind.GLOBAL);
    }

    @Test
    void aTextAConstructorMayReplaceInABranchIsNotTheDeclaredOne(@org.junit.jupiter.api.io.TempDir Path dir) {
        // the constructor's own setter call in a branch, or an assignment in a branch of the method it calls: the text
        // given first is not certain (a careless reading of the top-level statements would keep it)
        Fixtures.write(dir, "Q.java", """
                package app;
                public final class Q {
                    private String sql;
                    public Q(String sql, boolean archive) {
                        this.sql = sql;
                        if (archive) {
                            setSql("DELETE FROM ORDERS");
                        }
                    }
                    public void setSql(String sql) { this.sql = sql; }
                    public String sql() { return sql; }
                }
                """);
        Fixtures.write(dir, "R.java", """
                package app;
                public final class R {
                    private String sql;
                    public R(String sql, boolean archive) {
                        this.sql = sql;
                        init(archive);
                    }
                    private void init(boolean archive) {
                        if (archive) {
                            this.sql = "DELETE FROM ORDERS";
                        }
                    }
                    public String sql() { return sql; }
                }
                """);
        Fixtures.write(dir, "Orders.java", """
                package app;
                import java.sql.*;
                public class Orders {
                    public void viaSetter(Connection con, long id, boolean archive) throws SQLException {
                        PreparedStatement ps = con.prepareStatement(new Q("UPDATE ORDERS SET SEEN = 1 WHERE ID = ?", archive).sql());
                        ps.setLong(1, id);
                        ps.executeUpdate();
                    }
                    public void viaInit(Connection con, long id, boolean archive) throws SQLException {
                        PreparedStatement ps = con.prepareStatement(new R("UPDATE ORDERS SET SEEN = 1 WHERE ID = ?", archive).sql());
                        ps.setLong(1, id);
                        ps.executeUpdate();
                    }
                }
                """);
        AnalysisResult r = Fixtures.analyze(dir);
        assertThat(transaction(r, "viaSetter").writeSet()).anySatisfy(e -> assertThat(e.table()).isEqualTo("*"));
        assertThat(transaction(r, "viaInit").writeSet()).anySatisfy(e -> assertThat(e.table()).isEqualTo("*"));
    }

    @Test
    void aTextTheSourcesGiveAStatementPickedByNameIsNotTheDeclaredOne(@org.junit.jupiter.api.io.TempDir Path dir) {
        // the statement is picked from a registry, but the new text is written in the sources: a careless rule taking
        // every registry replacement for a dialect file would keep "WHERE ID = ?" where every other row is updated
        Fixtures.write(dir, "Q.java", """
                package app;
                public final class Q {
                    private String sql;
                    public Q(String sql) { this.sql = sql; }
                    public void setSql(String sql) { this.sql = sql; }
                    public String sql() { return sql; }
                }
                """);
        Fixtures.write(dir, "Orders.java", """
                package app;
                import java.sql.*;
                import java.util.HashMap;
                import java.util.Map;
                public class Orders {
                    static final Q SEEN = new Q("UPDATE ORDERS SET SEEN = 1 WHERE ID = ?");
                    static final Map<String, Q> BY_NAME = new HashMap<>(Map.of("seen", SEEN));
                    public void seen(Connection con, long id) throws SQLException {
                        PreparedStatement ps = con.prepareStatement(SEEN.sql());
                        ps.setLong(1, id);
                        ps.executeUpdate();
                    }
                    static void everyOther() {
                        Q q = BY_NAME.get("seen");
                        q.setSql("UPDATE ORDERS SET SEEN = 1 WHERE ID <> ?");
                    }
                }
                """);
        AnalysisResult r = Fixtures.analyze(dir);
        assertThat(transaction(r, "seen").writeSet()).anySatisfy(e -> assertThat(e.table()).isEqualTo("*"));
        assertThat(r.diagnostics()).noneMatch(d -> d.message().contains("may replace"));
    }

    @Test
    void aStatementExecuteOnAReceiverOfUnknownTypeStaysJdbc(@org.junit.jupiter.api.io.TempDir Path dir) {
        // a class of the sources has an execute(String) that runs nothing; a Statement's execute(text) is still JDBC's
        Fixtures.write(dir, "Log.java", """
                package app;
                public class Log {
                    public void execute(String line) { System.out.println(line); }
                }
                """);
        Fixtures.write(dir, "Tasks.java", """
                package app;
                import java.sql.*;
                public class Tasks {
                    public void clear(Connection con) throws SQLException {
                        Statement st = con.createStatement();
                        st.execute("DELETE FROM TASKS");
                    }
                }
                """);
        AnalysisResult r = Fixtures.analyze(dir);
        assertThat(Fixtures.entries(transaction(r, "clear").writeSet(), "TASKS")).containsExactly("TASKS.* | any row");
    }

    /**
     * A worker method that another one calls inside its own transaction stays a transaction of its own when the kit's
     * dispatcher also runs it directly (BenchBase's Wikipedia: getPageAnonymous, and updatePage calling it); one only
     * ever called inside another is a helper.
     */
    @Test
    void aWorkerMethodTheDispatcherAlsoRunsOnItsOwnIsATransactionToo() {
        AnalysisResult r = Fixtures.analyze(Fixtures.fixture("kits/worker"));
        assertThat(r.transactions()).extracting(t -> t.name())
                .containsExactlyInAnyOrder("readMember", "awardAfterReading");
        assertThat(Fixtures.entries(transaction(r, "awardAfterReading").writeSet(), "AWARDS")).isNotEmpty();
        assertThat(classification(r, "readMember").kind()).isEqualTo(Kind.LOCAL);
    }
}
