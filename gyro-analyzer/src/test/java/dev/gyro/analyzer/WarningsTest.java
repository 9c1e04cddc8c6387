package dev.gyro.analyzer;

import dev.gyro.analyzer.model.Diagnostic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A problem is reported at the transaction it concerns, once, however many call paths reach it
 * (gyro-analyzer/README.md, "Diagnostics").
 */
class WarningsTest {

    static List<String> computedSqlWarnings(AnalysisResult r) {
        return r.diagnostics().stream().filter(d -> d.severity() == Diagnostic.Severity.WARNING
                && d.message().contains("computed at run time")).map(Diagnostic::toString).toList();
    }

    @Test
    void daoAHelperCalledTwiceByEachOfTwoTransactionsWarnsOncePerTransaction(@TempDir Path dir) {
        Fixtures.write(dir, "dao/ReportDao.java", """
                package dao;

                import java.sql.Connection;
                import java.sql.SQLException;

                public class ReportDao {
                    public void daily(Connection con) throws SQLException {
                        purge(con, "DAILY");
                        purge(con, "DAILY_TOTALS");
                    }

                    public void weekly(Connection con) throws SQLException {
                        purge(con, "WEEKLY");
                        purge(con, "WEEKLY_TOTALS");
                    }

                    private static void purge(Connection con, String table) throws SQLException {
                        con.createStatement().executeUpdate(System.getProperty("purge.sql") + table);
                    }
                }
                """);
        AnalysisResult r = Fixtures.analyze(dir);
        assertThat(computedSqlWarnings(r)).hasSize(2)
                .anySatisfy(w -> assertThat(w).contains("ReportDao.java:7:").contains("SQL text of daily at ReportDao.java:18"))
                .anySatisfy(w -> assertThat(w).contains("ReportDao.java:12:").contains("SQL text of weekly at ReportDao.java:18"));
    }

    @Test
    void servletsAHelperOfAnotherClassReachedTwiceWarnsOnceAtTheServlet(@TempDir Path dir) {
        Fixtures.write(dir, "web/Sql.java", """
                package web;

                import java.sql.Connection;
                import java.sql.SQLException;

                final class Sql {
                    static void run(Connection c, String where) throws SQLException {
                        c.createStatement().executeUpdate("DELETE FROM SESSIONS WHERE " + where);
                    }
                }
                """);
        Fixtures.write(dir, "web/LogoutServlet.java", """
                package web;

                import java.sql.Connection;
                import java.sql.SQLException;
                import javax.servlet.http.HttpServlet;
                import javax.servlet.http.HttpServletRequest;
                import javax.servlet.http.HttpServletResponse;
                import javax.sql.DataSource;

                public class LogoutServlet extends HttpServlet {
                    private DataSource ds;

                    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws java.io.IOException {
                        try (Connection c = ds.getConnection()) {
                            Sql.run(c, req.getParameter("filter"));
                            if (req.getParameter("all") != null) {
                                Sql.run(c, req.getParameter("filter"));
                            }
                        } catch (SQLException e) {
                            throw new java.io.IOException(e);
                        }
                    }
                }
                """);
        AnalysisResult r = Fixtures.analyze(dir);
        assertThat(computedSqlWarnings(r)).singleElement().asString()
                .contains("LogoutServlet.java:13:").contains("SQL text of logoutServlet at Sql.java:8");
    }
}
