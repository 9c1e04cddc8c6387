package dev.gyro.analyzer;

import dev.gyro.app.Kind;

import dev.gyro.analyzer.model.AnalyzedTransaction;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static dev.gyro.analyzer.Fixtures.classification;
import static dev.gyro.analyzer.Fixtures.entries;
import static dev.gyro.analyzer.Fixtures.transaction;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The front-end for unmodified legacy JDBC code, on servlet-era fixtures: a class of
 * static methods (TPC-W style) and servlets (RUBiS style).
 */
class LegacyFrontEndTest {
    private static AnalysisResult legacy;

    @BeforeAll
    static void analyzeFixtures() {
        legacy = Fixtures.analyze(Fixtures.fixture("legacy"));
    }

    @Test
    void findsOneTransactionPerPublicMethodOrServletAndNoHelper() {
        assertThat(legacy.classifications()).extracting(c -> c.name()).containsExactlyInAnyOrder(
                "getBook", "getCustomerId", "getCustomerName", "doCart", "updateCustomer", "buyConfirm",
                "putBidServlet", "viewItemServlet");
        // Bids.store is public and receives a Connection, but PutBidServlet calls it: a helper.
        assertThat(legacy.transactions()).noneMatch(t -> t.name().equals("store"));
        assertThat(legacy.diagnostics()).isEmpty();
    }

    @Test
    void servletInputsAreTheRequestParametersItReads() {
        AnalyzedTransaction view = transaction(legacy, "viewItemServlet");
        assertThat(view.origin()).contains("servlet").contains("doGet");
        assertThat(view.parameters()).containsExactly("itemId");
        // getParameter -> Integer.valueOf -> intValue() -> setInt
        assertThat(entries(view.readSet(), "ITEMS")).containsExactly("ITEMS.{(EXISTENCE),ID,MAX_BID,NAME} | ID = itemId");
        assertThat(view.readOnly()).isTrue();
    }

    @Test
    void helperOfAnotherClassReceivingTheConnectionCountsForTheCaller() {
        AnalyzedTransaction bid = transaction(legacy, "putBidServlet");
        assertThat(bid.parameters()).containsExactly("userId", "itemId", "bid");
        assertThat(entries(bid.writeSet(), "BIDS"))
                .containsExactly("BIDS.* | USER_ID = userId AND ITEM_ID = itemId AND BID = bid");
        assertThat(entries(bid.writeSet(), "ITEMS")).containsExactly("ITEMS.* | ID = itemId");
        assertThat(classification(legacy, "putBidServlet").partitionBy()).containsExactly("itemId");

        AnalyzedTransaction cart = transaction(legacy, "doCart");
        assertThat(entries(cart.writeSet(), "SHOPPING_CART_LINE")).containsExactly(
                "SHOPPING_CART_LINE.* | SCL_SC_ID = shoppingId AND SCL_I_ID = itemIdText AND SCL_QTY = qty");
        assertThat(entries(cart.writeSet(), "SHOPPING_CART")).containsExactly("SHOPPING_CART.* | SC_ID = shoppingId");
        assertThat(cart.writeSet()).anyMatch(e -> e.source().toString().startsWith("CartHelpers.java:"));
    }

    @Test
    void valuesConcatenatedIntoSqlAreBoundLikePlaceholders() {
        AnalyzedTransaction t = transaction(legacy, "getCustomerName");
        // "... C_UNAME = '" + uname + "'" and "... C_ID = " + minId
        assertThat(entries(t.readSet(), "CUSTOMER"))
                .containsExactly("CUSTOMER.{(EXISTENCE),C_FNAME,C_ID,C_UNAME} | C_UNAME = uname AND C_ID = minId");
    }

    @Test
    void textBlocksAndStaticFinalConstantsAreRead() {
        assertThat(entries(transaction(legacy, "getCustomerId").readSet(), "CUSTOMER"))
                .containsExactly("CUSTOMER.{(EXISTENCE),C_FNAME,C_ID,C_LNAME,C_UNAME} | C_UNAME = uname");
        // a constant built with + of two literals
        assertThat(entries(transaction(legacy, "updateCustomer").writeSet(), "CUSTOMER"))
                .containsExactly("CUSTOMER.* | C_ID = update.customerId");
    }

    @Test
    void bindingsAreTracedThroughLocalsCastsParsingAndParameterObjects() {
        // long id = (long) i_id; ps.setLong(1, id)
        assertThat(entries(transaction(legacy, "getBook").readSet(), "ITEM"))
                .containsExactly("ITEM.{(EXISTENCE),I_COST,I_ID,I_TITLE} | I_ID = i_id");
        // int itemId = Integer.parseInt(itemIdText)
        assertThat(entries(transaction(legacy, "doCart").writeSet(), "SHOPPING_CART_LINE").get(0))
                .contains("SCL_I_ID = itemIdText");
        // update.firstName (a public field) and update.getCustomerId() (a getter returning the field)
        AnalyzedTransaction update = transaction(legacy, "updateCustomer");
        assertThat(update.parameters()).containsExactly("update.firstName", "update.customerId");
        assertThat(classification(legacy, "updateCustomer").partitionBy()).containsExactly("update.customerId");
    }

    @Test
    void valuesFromResultSetsRandomnessAndLoopsAreFree() {
        AnalyzedTransaction t = transaction(legacy, "buyConfirm");
        assertThat(entries(t.writeSet(), "ITEM")).singleElement().asString()
                .isEqualTo("ITEM.* | I_ID = <free: value read from the database: rs.getInt(1)>");
        assertThat(entries(t.writeSet(), "ORDERS")).singleElement().asString()
                .startsWith("ORDERS.* | O_ID = <free: random value").endsWith("O_SC_ID = shoppingId");
        assertThat(entries(t.writeSet(), "CC_XACTS")).singleElement().asString()
                .contains("CX_NUM = <free: variable i changes in a loop");
        assertThat(classification(legacy, "buyConfirm").kind()).isEqualTo(Kind.GLOBAL);
    }

    @Test
    void aValueWithSeveralDefinitionsIsFreeAndAnUnboundPlaceholderToo(@TempDir Path dir) {
        Fixtures.write(dir, "Dao.java", """
                import java.sql.*;
                public class Dao {
                    public static void touch(Connection con, long a, long b, boolean first) throws SQLException {
                        long key = a;
                        if (!first) {
                            key = b;
                        }
                        PreparedStatement ps = con.prepareStatement("UPDATE T SET V = 1 WHERE K = ? AND J = ? AND L = ?");
                        ps.setLong(1, key);
                        ps.setLong(2, a);
                        ps.executeUpdate();
                    }
                }
                """);
        AnalyzedTransaction t = transaction(Fixtures.analyze(dir), "touch");
        assertThat(t.parameters()).containsExactly("a", "b", "first");
        assertThat(entries(t.writeSet(), "T")).singleElement().asString()
                .contains("K = <free: variable key has several values>").contains("J = a")
                .contains("L = <free: placeholder ?3 not bound");
    }

    @Test
    void helperCallsAreFollowedWithTheirArgumentsAndRecursionIsSummarized(@TempDir Path dir) {
        Fixtures.write(dir, "Shop.java", """
                import java.sql.*;
                public class Shop {
                    private final Connection con;
                    Shop(Connection con) { this.con = con; }

                    public static void checkout(Connection con, long cartId) throws SQLException {
                        new Shop(con).close(cartId, 3);
                        run(con, "DELETE FROM CART WHERE ID = ?", cartId);
                    }

                    void close(long id, int depth) throws SQLException {
                        exec(con, "UPDATE CART SET CLOSED = 1 WHERE ID = " + id);
                        if (depth > 0) {
                            close(id + 1, depth - 1);
                        }
                    }

                    static void exec(Connection c, String sql) throws SQLException {
                        c.createStatement().executeUpdate(sql);
                    }

                    static void run(Connection c, String sql, long v) throws SQLException {
                        try (PreparedStatement ps = c.prepareStatement(sql)) {
                            ps.setLong(1, v);
                            ps.executeUpdate();
                        }
                    }
                }
                """);
        AnalysisResult r = Fixtures.analyze(dir);
        assertThat(r.classifications()).extracting(c -> c.name()).containsExactly("checkout");
        AnalyzedTransaction t = transaction(r, "checkout");
        assertThat(entries(t.writeSet(), "CART")).contains("CART.* | ID = cartId")
                .anyMatch(e -> e.startsWith("CART.* | ID = <free: parameter id of close"));
        assertThat(t.notes()).anyMatch(n -> n.contains("is recursive"));
    }

    @Test
    void statementsPreparedElsewhereAreFoundOrTakenAsUnknown(@TempDir Path dir) {
        Fixtures.write(dir, "AccountDao.java", """
                import java.sql.*;
                import java.util.Map;
                public class AccountDao {
                    private static final String DEBIT = "UPDATE ACCOUNTS SET BALANCE = BALANCE - ? WHERE ID = ?";
                    private final PreparedStatement debit;
                    private final Map<String, PreparedStatement> cache;

                    public AccountDao(Connection con, Map<String, PreparedStatement> cache) throws SQLException {
                        this.debit = con.prepareStatement(DEBIT);
                        this.cache = cache;
                    }

                    public static void debit(Connection con, long accountId, long amount) throws SQLException {
                        AccountDao dao = new AccountDao(con, Map.of());
                        dao.debit.setLong(1, amount);
                        dao.run(accountId, amount);
                    }

                    void run(long accountId, long amount) throws SQLException {
                        debit.setLong(1, amount);
                        debit.setLong(2, accountId);
                        debit.executeUpdate();
                    }

                    public static void audit(Connection con, long accountId) throws SQLException {
                        PreparedStatement ps = con.prepareStatement("INSERT INTO AUDIT (ACCOUNT_ID, AT) VALUES (?, ?)");
                        bindAudit(ps, accountId);
                        ps.executeUpdate();
                    }

                    static void bindAudit(PreparedStatement ps, long id) throws SQLException {
                        ps.setLong(1, id);
                        ps.setLong(2, System.currentTimeMillis());
                    }

                    private PreparedStatement credit;

                    public static void credit(Connection con, long accountId) throws SQLException {
                        AccountDao dao = new AccountDao(con, Map.of());
                        dao.credit = con.prepareStatement("UPDATE ACCOUNTS SET BALANCE = BALANCE + 1 WHERE ID = ?");
                        dao.credit.setLong(1, accountId);
                        dao.credit.executeUpdate();
                    }

                    public static void debitOther(Connection con, long amount) throws SQLException {
                        AccountDao dao = new AccountDao(con, Map.of());
                        dao.debit.setLong(1, amount);
                        dao.debit.executeUpdate();
                    }

                    public void creditThis(Connection con, long accountId) throws SQLException {
                        credit = con.prepareStatement("UPDATE ACCOUNTS SET BALANCE = BALANCE + 2 WHERE ID = ?");
                        credit.setLong(1, accountId);
                        credit.executeUpdate();
                    }

                    public static void fromCache(Connection con, Map<String, PreparedStatement> cache, long id) throws SQLException {
                        PreparedStatement ps = cache.get("touch");
                        ps.setLong(1, id);
                        ps.executeUpdate();
                    }
                }
                """);
        AnalysisResult r = Fixtures.analyze(dir);
        // a field prepared in the constructor: its SQL, with this method's bindings
        assertThat(entries(transaction(r, "debit").writeSet(), "ACCOUNTS")).containsExactly("ACCOUNTS.* | ID = accountId");
        assertThat(entries(transaction(r, "creditThis").writeSet(), "ACCOUNTS")).containsExactly("ACCOUNTS.* | ID = accountId");
        // dao.credit: a field of another object, prepared and bound here
        assertThat(entries(transaction(r, "credit").writeSet(), "ACCOUNTS")).containsExactly("ACCOUNTS.* | ID = accountId");
        // dao.debit: prepared in AccountDao's constructor, bound (partly) here
        assertThat(entries(transaction(r, "debitOther").writeSet(), "ACCOUNTS")).singleElement().asString()
                .startsWith("ACCOUNTS.* | ID = <free: placeholder ?2 not bound");
        // bound by a helper receiving the statement: its setters count, with the call's arguments
        assertThat(entries(transaction(r, "audit").writeSet(), "AUDIT")).singleElement().asString()
                .startsWith("AUDIT.* | ACCOUNT_ID = accountId AND AT = <free: clock value");
        // a statement from a cache: SQL the analysis cannot see
        assertThat(entries(transaction(r, "fromCache").writeSet(), "*")).singleElement().asString()
                .isEqualTo("any table.* | any row");
        assertThat(r.diagnostics()).anyMatch(d -> d.message().contains("statement ps comes from where the analysis cannot see"));
    }

    @Test
    void aVariableHoldingOneOfSeveralSqlTextsRunsEachOfThem(@TempDir Path dir) {
        Fixtures.write(dir, "Search.java", """
                import java.sql.*;
                public class Search {
                    static final String BY_ID = "SELECT NAME FROM ITEMS WHERE I_ID = ?";
                    public static void find(Connection con, long key, boolean byAuthor) throws SQLException {
                        String sql;
                        if (byAuthor) {
                            sql = "SELECT NAME FROM ITEMS WHERE AUTHOR_ID = ?";
                        } else {
                            sql = BY_ID;
                        }
                        PreparedStatement ps = con.prepareStatement(sql + (byAuthor ? " ORDER BY NAME" : ""));
                        ps.setLong(1, key);
                        ps.executeQuery();
                    }
                }
                """);
        AnalyzedTransaction t = transaction(Fixtures.analyze(dir), "find");
        assertThat(entries(t.readSet(), "ITEMS")).containsExactlyInAnyOrder(
                "ITEMS.{(EXISTENCE),AUTHOR_ID,NAME} | AUTHOR_ID = key", "ITEMS.{(EXISTENCE),I_ID,NAME} | I_ID = key",
                "ITEMS.{(EXISTENCE),AUTHOR_ID,NAME} | AUTHOR_ID = key", "ITEMS.{(EXISTENCE),I_ID,NAME} | I_ID = key");
    }

    @Test
    void recordComponentsAndConstantParameterNamesAreTraced(@TempDir Path dir) {
        Fixtures.write(dir, "Orders.java", """
                import java.sql.*;
                import javax.servlet.http.*;
                public class Orders {
                    record Line(long cartId, long itemId) { }
                    static final String CART = "cart";

                    public static void addLine(Connection con, Line line) throws SQLException {
                        PreparedStatement ps = con.prepareStatement("INSERT INTO LINES (CART_ID, ITEM_ID) VALUES (?, ?)");
                        ps.setLong(1, line.cartId());
                        ps.setLong(2, line.itemId());
                        ps.executeUpdate();
                    }
                }
                class ShowCart extends HttpServlet {
                    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws java.io.IOException {
                        try (Connection con = DriverManager.getConnection("jdbc:x")) {
                            PreparedStatement ps = con.prepareStatement("SELECT ITEM_ID FROM LINES WHERE CART_ID = ?");
                            ps.setString(1, req.getParameter(Orders.CART));
                            ps.executeQuery();
                        } catch (SQLException e) {
                            resp.sendError(500);
                        }
                    }
                }
                """);
        AnalysisResult r = Fixtures.analyze(dir);
        assertThat(entries(transaction(r, "addLine").writeSet(), "LINES"))
                .containsExactly("LINES.* | CART_ID = line.cartId AND ITEM_ID = line.itemId");
        assertThat(entries(transaction(r, "showCart").readSet(), "LINES")).containsExactly("LINES.{(EXISTENCE),CART_ID,ITEM_ID} | CART_ID = cart");
        assertThat(classification(r, "addLine").kind()).isEqualTo(Kind.LOCAL);
        assertThat(classification(r, "addLine").partitionBy()).containsExactly("line.cartId");
    }
}
