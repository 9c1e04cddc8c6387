package dev.gyro.analyzer.sql;

import dev.gyro.analyzer.model.Entry;
import dev.gyro.analyzer.model.SourceRef;
import dev.gyro.analyzer.model.Value;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.create.table.CreateTable;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Read and write set entries of each SQL construct (paper, Section VI; docs/decisions/08-conservative-analyzer.md). */
class SqlAccessExtractorTest {
    private static final SourceRef AT = new SourceRef(Path.of("T.java"), 7);
    private final Schema schema = new Schema();

    /** Extracts with ?1.. bound to the parameters p1, p2, ... */
    private SqlAccessExtractor.Result extract(String sql) {
        return extract(sql, SqlAccessExtractor.WriteGranularity.ROW);
    }

    private SqlAccessExtractor.Result extract(String sql, SqlAccessExtractor.WriteGranularity granularity) {
        Map<Integer, Value> positional = new HashMap<>();
        for (int i = 1; i <= 9; i++) {
            positional.put(i, new Value.Param("p" + i));
        }
        SqlSite site = new SqlSite(sql, null, positional, Map.of(), SqlSite.ExecutionHint.UNKNOWN, AT);
        SqlAccessExtractor.Parsed parsed = SqlAccessExtractor.parse(site);
        parsed.statements().forEach(s -> SqlAccessExtractor.learnSchema(s, schema));
        return new SqlAccessExtractor(schema, granularity).extract(parsed);
    }

    /** Entries as text; every query reads its rows' existence, which is left out here (see existenceReads). */
    private static List<String> render(List<Entry> entries) {
        return entries.stream().map(e -> withoutExistence(e).describeAttributes() + " | " + e.condition()).toList();
    }

    private static Entry withoutExistence(Entry e) {
        java.util.Set<String> attributes = new java.util.TreeSet<>(e.attributes());
        if (attributes.size() > 1) {
            attributes.remove(Entry.EXISTENCE);
        }
        return new Entry(e.table(), attributes, e.condition(), e.source(), e.sql(), e.effect());
    }

    private static List<String> renderExactly(List<Entry> entries) {
        return entries.stream().map(e -> e.describeAttributes() + " | " + e.condition() + " | " + e.effect()).toList();
    }

    private void declare(String ddl) throws Exception {
        schema.learn((CreateTable) CCJSqlParserUtil.parse(ddl));
    }

    @Test
    void selectBindsColumnsToParametersAndConstants() {
        SqlAccessExtractor.Result r = extract("SELECT NAME, PRICE FROM ITEMS WHERE I_ID = ? AND KIND = 'book' AND 1 = 1");
        assertThat(render(r.reads())).containsExactly("ITEMS.{I_ID,KIND,NAME,PRICE} | I_ID = p1 AND KIND = 'book'");
        assertThat(r.writes()).isEmpty();
    }

    @Test
    void joinPropagatesEqualitiesAcrossTablesAndResolvesAliases() {
        SqlAccessExtractor.Result r = extract("SELECT i.NAME, l.QTY FROM ORDER_LINES l JOIN ITEMS i ON i.I_ID = l.ITEM_ID "
                + "WHERE l.O_ID = ? AND l.ITEM_ID = ?");
        assertThat(render(r.reads())).containsExactly(
                "ORDER_LINES.{ITEM_ID,O_ID,QTY} | O_ID = p1 AND ITEM_ID = p2",
                "ITEMS.{I_ID,NAME} | I_ID = p2");
    }

    @Test
    void joinWithoutAValueGivesASharedUnknown() {
        SqlAccessExtractor.Result r = extract("SELECT i.NAME FROM SHOPPING_CARTS s, ITEMS i WHERE i.I_ID = s.ITEM_ID AND s.CART_ID = ?");
        assertThat(render(r.reads())).containsExactly(
                "SHOPPING_CARTS.{CART_ID,ITEM_ID} | ITEM_ID = <free: equal to ITEMS.I_ID> AND CART_ID = p1",
                "ITEMS.{I_ID,NAME} | I_ID = <free: equal to SHOPPING_CARTS.ITEM_ID>");
    }

    @Test
    void leftJoinConditionDoesNotRestrictThePreservedSide() {
        SqlAccessExtractor.Result r = extract("SELECT a.X, b.Y FROM A a LEFT JOIN B b ON b.K = a.K AND b.T = 5 AND a.T = 6");
        assertThat(render(r.reads())).containsExactly("A.{K,T,X} | any row", "B.{K,T,Y} | T = 5");
    }

    @Test
    void subSelectsAreReadEntriesOfTheirOwn() {
        SqlAccessExtractor.Result r = extract("SELECT NAME FROM ITEMS WHERE I_ID IN "
                + "(SELECT s.ITEM_ID FROM SHOPPING_CARTS s WHERE s.CART_ID = ?) AND EXISTS (SELECT 1 FROM STOCK k WHERE k.I = ITEMS.I_ID)");
        assertThat(render(r.reads())).containsExactlyInAnyOrder(
                "SHOPPING_CARTS.{CART_ID,ITEM_ID} | CART_ID = p1",
                "STOCK.I | I = <free: equal to ITEMS.I_ID>",
                "ITEMS.{I_ID,NAME} | any row");
        assertThat(r.reads()).filteredOn(e -> e.table().equals("ITEMS")).singleElement()
                .satisfies(e -> assertThat(e.condition().widenings()).singleElement().asString().startsWith("IN"));
    }

    @Test
    void unionAndCommonTableExpressionsReadTheirBaseTables() {
        SqlAccessExtractor.Result r = extract("WITH c AS (SELECT ITEM_ID FROM SHOPPING_CARTS WHERE CART_ID = ?) "
                + "SELECT ITEM_ID FROM c UNION SELECT I_ID FROM ITEMS WHERE I_ID = ?");
        assertThat(render(r.reads())).containsExactlyInAnyOrder(
                "SHOPPING_CARTS.{CART_ID,ITEM_ID} | CART_ID = p1", "ITEMS.I_ID | I_ID = p2");
    }

    @Test
    void countStarReadsExistenceAndTheWhereColumnsNotWholeRows() {
        assertThat(renderExactly(extract("SELECT COUNT(*) FROM BIDS WHERE ITEM_ID = ?").reads()))
                .containsExactly("BIDS.{(EXISTENCE),ITEM_ID} | ITEM_ID = p1 | ANY");
        assertThat(renderExactly(extract("SELECT MAX(SEQ) FROM BIDS WHERE ITEM_ID = ?").reads()))
                .containsExactly("BIDS.{(EXISTENCE),ITEM_ID,SEQ} | ITEM_ID = p1 | ANY");
        // COUNT of a column reads that column (its NULLs are not counted); COUNT(DISTINCT x) too
        assertThat(renderExactly(extract("SELECT COUNT(BID) FROM BIDS WHERE ITEM_ID = ?").reads()))
                .containsExactly("BIDS.{(EXISTENCE),BID,ITEM_ID} | ITEM_ID = p1 | ANY");
        assertThat(renderExactly(extract("SELECT * FROM BIDS WHERE ITEM_ID = ?").reads()))
                .containsExactly("BIDS.* | ITEM_ID = p1 | ANY");
    }

    @Test
    void existsReadsTheSubSelectsWhereColumnsAndExistenceNotItsSelectList() {
        assertThat(renderExactly(extract("SELECT NAME FROM USERS u WHERE u.ID = ? AND EXISTS (SELECT * FROM BIDS b "
                + "WHERE b.USER_ID = u.ID)").reads())).containsExactlyInAnyOrder(
                "USERS.{(EXISTENCE),ID,NAME} | ID = p1 | ANY",
                "BIDS.{(EXISTENCE),USER_ID} | USER_ID = <free: equal to USERS.ID> | ANY");
    }

    @Test
    void insertBindsEachColumnToItsValue() {
        SqlAccessExtractor.Result r = extract("INSERT INTO ORDER_LINES (O_ID, ITEM_ID, QTY) VALUES (?, ?, 3)");
        assertThat(render(r.writes())).containsExactly("ORDER_LINES.* | O_ID = p1 AND ITEM_ID = p2 AND QTY = 3");
    }

    @Test
    void multiRowInsertWritesOneEntryPerRow() {
        SqlAccessExtractor.Result r = extract("INSERT INTO T (A, B) VALUES (?, 1), (?, 2)");
        assertThat(render(r.writes())).containsExactly("T.* | A = p1 AND B = 1", "T.* | A = p2 AND B = 2");
    }

    @Test
    void insertSelectWritesAnyRowAndReadsTheSelect() {
        SqlAccessExtractor.Result r = extract("INSERT INTO ARCHIVE (ID, V) SELECT ID, V FROM LIVE WHERE OWNER = ?");
        assertThat(render(r.writes())).containsExactly("ARCHIVE.* | any row");
        assertThat(render(r.reads())).contains("LIVE.{ID,OWNER,V} | OWNER = p1");
    }

    @Test
    void insertWithKnownKeysReadsTheKeyForTheDuplicateCheck() throws Exception {
        declare("CREATE TABLE ORDERS (O_ID INTEGER PRIMARY KEY AUTOINCREMENT, CART_ID BIGINT UNIQUE, TOTAL DOUBLE)");
        SqlAccessExtractor.Result r = extract("INSERT INTO ORDERS (CART_ID, TOTAL) VALUES (?, ?)");
        assertThat(renderExactly(r.writes())).containsExactly("ORDERS.* | CART_ID = p1 AND TOTAL = p2 | CREATE");
        // O_ID is generated (not supplied), CART_ID is unique: the duplicate check reads whether a row exists
        // with this CART_ID, nothing else of it
        assertThat(renderExactly(r.reads())).containsExactly("ORDERS.{(EXISTENCE),CART_ID} | CART_ID = p1 | ANY");
    }

    @Test
    void insertWithoutColumnListUsesTheDeclaredColumns() throws Exception {
        declare("CREATE TABLE T (A INT, B INT, PRIMARY KEY (A))");
        assertThat(render(extract("INSERT INTO T VALUES (?, ?)").writes())).containsExactly("T.* | A = p1 AND B = p2");
        assertThat(render(extract("INSERT INTO U VALUES (?, ?)").writes())).containsExactly("U.* | any row");
    }

    @Test
    void upsertsWriteTheRowAgreeingOnTheKey() throws Exception {
        assertThat(render(extract("INSERT INTO SC (C, I, Q) VALUES (?, ?, ?) ON CONFLICT (C, I) DO UPDATE SET Q = SC.Q + excluded.Q").writes()))
                .containsExactly("SC.* | C = p1 AND I = p2");
        // unknown keys: the updated row agrees on the columns the update does not set
        assertThat(render(extract("INSERT INTO SC2 (C, I, Q) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE Q = Q + VALUES(Q)").writes()))
                .containsExactly("SC2.* | C = p1 AND I = p2 AND Q = p3", "SC2.* | C = p1 AND I = p2");
        declare("CREATE TABLE SC3 (C INT, I INT, Q INT, PRIMARY KEY (C, I))");
        assertThat(render(extract("REPLACE INTO SC3 (C, I, Q) VALUES (?, ?, ?)").writes()))
                .containsExactly("SC3.* | C = p1 AND I = p2 AND Q = p3", "SC3.* | C = p1 AND I = p2");
        // an upsert reads the row it may update (its values feed the update); an ignored duplicate only its existence
        assertThat(renderExactly(extract("REPLACE INTO SC3 (C, I, Q) VALUES (?, ?, ?)").reads()))
                .containsExactly("SC3.* | C = p1 AND I = p2 | ANY");
        assertThat(renderExactly(extract("INSERT OR IGNORE INTO SC3 (C, I, Q) VALUES (?, ?, ?)").reads()))
                .containsExactly("SC3.{(EXISTENCE),C,I} | C = p1 AND I = p2 | ANY");
    }

    @Test
    void updateWritesTheRowAndReadsItsWhereAndSetExpressions() {
        SqlAccessExtractor.Result r = extract("UPDATE ITEMS SET STOCK = STOCK - ? WHERE I_ID = ?");
        assertThat(render(r.writes())).containsExactly("ITEMS.* | I_ID = p2");
        assertThat(render(r.reads())).containsExactly("ITEMS.{I_ID,STOCK} | I_ID = p2");
        SqlAccessExtractor.Result attributes = extract("UPDATE ITEMS SET STOCK = STOCK - ? WHERE I_ID = ?",
                SqlAccessExtractor.WriteGranularity.ATTRIBUTE);
        assertThat(render(attributes.writes())).containsExactly("ITEMS.STOCK | I_ID = p2");
    }

    @Test
    void anUpdateOfNoKeyColumnChangesColumnsNotExistence() throws Exception {
        declare("CREATE TABLE CART (ID BIGINT PRIMARY KEY, TOUCHED BIGINT, NAME VARCHAR(20) UNIQUE)");
        // by rows: the SET columns plus what the row image carries, resolved once all statements are seen
        assertThat(renderExactly(extract("UPDATE CART SET TOUCHED = ? WHERE ID = ?").writes()))
                .containsExactly("CART.{(IMAGE),TOUCHED} | ID = p2 | CHANGE");
        assertThat(renderExactly(extract("UPDATE CART SET TOUCHED = ? WHERE ID = ?",
                SqlAccessExtractor.WriteGranularity.ATTRIBUTE).writes())).containsExactly("CART.TOUCHED | ID = p2 | CHANGE");
        // a unique column moves the row from one key to another: existence changes, the whole row is written
        assertThat(renderExactly(extract("UPDATE CART SET NAME = ? WHERE ID = ?").writes()))
                .containsExactly("CART.* | ID = p2 | ANY");
        // keys unknown (no CREATE TABLE): any column may be one
        assertThat(renderExactly(extract("UPDATE OTHER SET TOUCHED = ? WHERE ID = ?",
                SqlAccessExtractor.WriteGranularity.ATTRIBUTE).writes()))
                .containsExactly("OTHER.{(EXISTENCE),TOUCHED} | ID = p2 | ANY");
    }

    @Test
    void keysDeclaredApartFromCreateTableCount() throws Exception {
        schema.learn((net.sf.jsqlparser.statement.alter.Alter) CCJSqlParserUtil.parse(
                "ALTER TABLE ORDERS ADD CONSTRAINT PK_ORDERS PRIMARY KEY (W_ID, O_ID)"));
        declare("CREATE TABLE ORDERS (W_ID INT, O_ID INT, C_ID INT)");
        schema.learn((net.sf.jsqlparser.statement.create.index.CreateIndex) CCJSqlParserUtil.parse(
                "CREATE UNIQUE INDEX ORDERS_C ON ORDERS (C_ID)"));
        assertThat(schema.primaryKey("ORDERS")).containsExactly("W_ID", "O_ID");
        assertThat(renderExactly(extract("INSERT INTO ORDERS (W_ID, O_ID, C_ID) VALUES (?, ?, ?)").reads()))
                .containsExactly("ORDERS.{(EXISTENCE),O_ID,W_ID} | W_ID = p1 AND O_ID = p2 | ANY",
                        "ORDERS.{(EXISTENCE),C_ID} | C_ID = p3 | ANY");
        // setting a column of the ALTER-declared key moves the row
        assertThat(renderExactly(extract("UPDATE ORDERS SET O_ID = ? WHERE C_ID = ?",
                SqlAccessExtractor.WriteGranularity.ATTRIBUTE).writes()).get(0)).endsWith("| ANY");
    }

    @Test
    void updateOfAKeyColumnAlsoWritesTheRowWhereItMoves() {
        SqlAccessExtractor.Result r = extract("UPDATE T SET K = ? WHERE K = ? AND G = 1");
        assertThat(render(r.writes())).containsExactly("T.* | K = p2 AND G = 1", "T.* | G = 1 AND K = p1");
    }

    @Test
    void deleteWritesWholeRows() {
        SqlAccessExtractor.Result r = extract("DELETE FROM SHOPPING_CARTS WHERE CART_ID = ? AND ITEM_ID = ?");
        assertThat(renderExactly(r.writes())).containsExactly("SHOPPING_CARTS.* | CART_ID = p1 AND ITEM_ID = p2 | DELETE");
        assertThat(render(r.reads())).containsExactly("SHOPPING_CARTS.{CART_ID,ITEM_ID} | CART_ID = p1 AND ITEM_ID = p2");
    }

    @Test
    void whatIsNotAnEqualityWidensToAnyRow() {
        assertThat(render(extract("SELECT A FROM T WHERE B > ?").reads())).containsExactly("T.{A,B} | any row");
        assertThat(render(extract("SELECT A FROM T WHERE B LIKE ?").reads())).containsExactly("T.{A,B} | any row");
        assertThat(render(extract("SELECT A FROM T WHERE B = ? OR B = ?").reads())).containsExactly("T.{A,B} | any row");
        assertThat(render(extract("SELECT A FROM T WHERE LOWER(B) = ?").reads())).containsExactly("T.{A,B} | any row");
        assertThat(render(extract("SELECT A FROM T WHERE B IN (?, ?)").reads())).containsExactly("T.{A,B} | any row");
        assertThat(render(extract("SELECT A FROM T WHERE B BETWEEN ? AND ?").reads())).containsExactly("T.{A,B} | any row");
        assertThat(render(extract("SELECT A FROM T WHERE NOT B = ?").reads())).containsExactly("T.{A,B} | any row");
        assertThat(extract("SELECT A FROM T WHERE B LIKE ?").reads().get(0).condition().widenings())
                .singleElement().asString().startsWith("LIKE `B LIKE ?` not modeled: rows of T widened (T.java:7)");
    }

    @Test
    void anUnmodeledConjunctIsDroppedButTheOtherEqualitiesStay() {
        assertThat(render(extract("SELECT A FROM T WHERE K = ? AND B > 5 AND (C = 1 OR C = 2)").reads()))
                .containsExactly("T.{A,B,C,K} | K = p1");
        assertThat(render(extract("SELECT A FROM T WHERE K IN (?)").reads())).containsExactly("T.{A,K} | K = p1");
    }

    @Test
    void columnEqualToAComputedValueIsFree() {
        assertThat(render(extract("SELECT A FROM T WHERE K = ? + 1").reads()))
                .containsExactly("T.{A,K} | K = <free: computed ? + 1>");
    }

    @Test
    void unparsableSqlNamesTheSourceAndAccessesAnyRowOfAnyTable() {
        SqlAccessExtractor.Result r = extract("SELEC A FROM T");
        assertThat(r.diagnostics()).singleElement().asString()
                .startsWith("T.java:7: error: cannot parse SQL \"SELEC A FROM T\": unexpected")
                .contains("line 1, column");
        assertThat(render(r.reads())).containsExactly("any table.* | any row");
        assertThat(render(r.writes())).containsExactly("any table.* | any row");
    }

    @Test
    void computedSqlIsReadOnlyWhenOnlyQueried() {
        SqlSite site = new SqlSite(null, "built by String.format", Map.of(), Map.of(), SqlSite.ExecutionHint.QUERY, AT);
        SqlAccessExtractor.Result r = new SqlAccessExtractor(schema, SqlAccessExtractor.WriteGranularity.ROW)
                .extract(SqlAccessExtractor.parse(site));
        assertThat(render(r.reads())).containsExactly("any table.* | any row");
        assertThat(r.writes()).isEmpty();
    }

    @Test
    void transactionControlAccessesNothing() {
        SqlAccessExtractor.Result r = extract("COMMIT");
        assertThat(r.reads()).isEmpty();
        assertThat(r.writes()).isEmpty();
        assertThat(r.diagnostics()).isEmpty();
    }

    @Test
    void unqualifiedColumnsOfAJoinAreAttributedByTheKnownSchema() throws Exception {
        declare("CREATE TABLE ITEMS (I_ID INT, NAME VARCHAR(9))");
        declare("CREATE TABLE SHOPPING_CARTS (CART_ID INT, ITEM_ID INT, QTY INT)");
        SqlAccessExtractor.Result r = extract("SELECT NAME, QTY FROM ITEMS, SHOPPING_CARTS WHERE I_ID = ITEM_ID AND CART_ID = ?");
        assertThat(render(r.reads())).containsExactly(
                "ITEMS.{I_ID,NAME} | I_ID = <free: equal to SHOPPING_CARTS.ITEM_ID>",
                "SHOPPING_CARTS.{CART_ID,ITEM_ID,QTY} | ITEM_ID = <free: equal to ITEMS.I_ID> AND CART_ID = p1");
        // without the schema, the ambiguous names are attributed to both tables and their conditions dropped
        SqlAccessExtractor.Result unknown = extract("SELECT NAME2 FROM X, Y WHERE K2 = ?");
        assertThat(render(unknown.reads())).containsExactly("X.{K2,NAME2} | any row", "Y.{K2,NAME2} | any row");
    }

    @Test
    void valuesConcatenatedIntoAStringLiteralAreFree() {
        SqlSite site = new SqlSite("SELECT A FROM T WHERE B = 'x-gyroHole1' AND C = :gyroHole2", null, Map.of(),
                Map.of("gyroHole2", new Value.Param("c")), SqlSite.ExecutionHint.QUERY, AT);
        SqlAccessExtractor.Result r = new SqlAccessExtractor(schema, SqlAccessExtractor.WriteGranularity.ROW)
                .extract(SqlAccessExtractor.parse(site));
        assertThat(render(r.reads())).singleElement().asString()
                .startsWith("T.{A,B,C} | B = <free: value concatenated into a string literal").endsWith("C = c");
    }

    @Test
    void vendorDateArithmeticAndTuningClausesAreNormalizedBeforeParsing() {
        SqlAccessExtractor.Result r = extract("SELECT ID FROM SESSIONS WHERE USER_ID = ? AND EXPIRES > CURRENT TIMESTAMP "
                + "- 2 HOURS OPTIMIZE FOR 1 ROW WITH UR");
        assertThat(r.diagnostics()).isEmpty();
        assertThat(render(r.reads())).containsExactly("SESSIONS.{EXPIRES,ID,USER_ID} | USER_ID = p1");
        // a literal's text is never rewritten: '2 HOURS' stays a constant
        assertThat(render(extract("UPDATE T SET NOTE = '+ 2 HOURS' WHERE K = ?").reads()))
                .containsExactly("T.K | K = p1");
        assertThat(extract("SELECT A FROM T WHERE K = ? LOCK IN SHARE MODE").diagnostics()).isEmpty();
    }

    @Test
    void anUnparsableStatementIsReadTolerantlyKeepingItsTablesAndCertainEqualities() {
        SqlAccessExtractor.Result select = extract("SELECT A, B FROM T WHERE K = ? AND S = 3 AND R = ? ROWS 10");
        assertThat(select.diagnostics()).singleElement().asString().contains("read tolerantly as SELECT of T");
        // the last conjunct runs into the unreadable tail: dropped, so only the rows widen
        assertThat(renderExactly(select.reads())).containsExactly("T.* | K = p1 AND S = 3 | ANY");
        assertThat(select.writes()).isEmpty();
        // an OR, a second table or a self-join: the rows are any rows of the tables named
        assertThat(render(extract("SELECT A FROM T WHERE K = ? OR J = ? ROWS 10").reads())).containsExactly("T.* | any row");
        assertThat(render(extract("SELECT A FROM T a, T b WHERE a.K = ? ROWS 10").reads())).containsExactly("T.* | any row");
        assertThat(render(extract("SELECT A FROM T JOIN U ON T.X = U.X WHERE T.K = ? ROWS 10").reads()))
                .containsExactlyInAnyOrder("T.* | any row", "U.* | any row");
        // an UPDATE that sets a column of its WHERE writes any row of its table (the row moves)
        SqlAccessExtractor.Result update = extract("UPDATE T SET K = ? WHERE K = ? ROWS 10");
        assertThat(render(update.writes())).containsExactly("T.* | any row");
        assertThat(render(extract("UPDATE T SET V = ? WHERE K = ? AND Z > 0 ROWS 10").writes())).containsExactly("T.* | K = p2");
        // a DELETE whose target is not written DELETE FROM: nothing is certain
        assertThat(render(extract("DELETE T WHERE K IN (SELECT K FROM U) ROWS 10").writes())).containsExactly("any table.* | any row");
    }
}
