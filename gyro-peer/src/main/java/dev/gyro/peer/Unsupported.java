package dev.gyro.peer;

import dev.gyro.cluster.Backend;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The transactions the peer cannot run, per application: for each, the statement ShardingSphere-JDBC 5.3.2 cannot
 * execute correctly over the sharded databases, and why. The applications' SQL stays as it is; the peer fails these
 * calls at once with the reason instead of running them to a wrong result. gyro-peer/README.md has the same table.
 *
 * <p>Found by running every application's workload through the peer on PostgreSQL and MariaDB (PeerWorkloadsTest)
 * and reading each failure, abort and result back to the statement.
 */
final class Unsupported {

    /** Why a transaction cannot run on the peer. */
    record Reason(String statement, String why) {
        String describe(String transaction) {
            return "the peer (ShardingSphere-JDBC 5.3.2) cannot run " + transaction + ": " + why + " [" + statement + "]";
        }
    }

    private static final String EXPRESSION_OVER_AGGREGATE = "an aggregate inside an expression over a sharded table "
            + "is not merged across shards: every shard returns its own row and the transaction reads the first, not "
            + "the maximum over all shards, so the new id collides with an existing one";

    private static final String CROSS_SHARD_JOIN = "the join pairs rows of two sharded tables (or a sharded table "
            + "with itself) that may live on different shards; ShardingSphere executes a join on each data source "
            + "separately, so rows on different shards never meet and the query silently returns fewer rows (or "
            + "none, and the transaction aborts)";

    private Unsupported() {}

    /** Transaction name to reason, for {@code application} on {@code backend}; empty when everything runs. */
    static Map<String, Reason> of(String application, Backend backend) {
        Map<String, Reason> out = new LinkedHashMap<>();
        switch (application) {
            case "tpcw" -> {
                out.put("createEmptyCart", new Reason("SELECT COALESCE(MAX(SC_ID), 0) + 1 FROM SHOPPING_CART",
                        EXPRESSION_OVER_AGGREGATE));
                out.put("createNewCustomer", new Reason("SELECT COALESCE(MAX(C_ID), 0) + 1 FROM CUSTOMER",
                        EXPRESSION_OVER_AGGREGATE));
                if (backend == Backend.POSTGRES)
                    out.put("getMostRecentOrder", new Reason("SELECT O.O_ID, O.O_DATE, O.O_TOTAL, O.O_STATUS, "
                            + "X.CX_TYPE, A.ADDR_CITY FROM CUSTOMER C, ORDERS O, CC_XACTS X, ADDRESS A WHERE "
                            + "C.C_UNAME = ? AND O.O_C_ID = C.C_ID AND X.CX_O_ID = O.O_ID AND A.ADDR_ID = "
                            + "O.O_SHIP_ADDR_ID ORDER BY O.O_DATE DESC, O.O_ID DESC LIMIT 1",
                            "on PostgreSQL, merging the shards' results by an ORDER BY column of a broadcast table "
                                    + "joined to a sharded one fails inside ShardingSphere (NullPointerException "
                                    + "in OrderByValue.getOrderValuesCaseSensitiveFromTables: it finds no metadata "
                                    + "for the ORDER BY column's table)"));
            }
            case "rubis" -> {
                out.put("buyNow", new Reason("SELECT I.I_NAME, I.I_BUY_NOW, I.I_QUANTITY, U.U_NICKNAME FROM ITEMS I, "
                        + "USERS U WHERE I.I_ID = ? AND U.U_ID = ?", CROSS_SHARD_JOIN));
                out.put("putBid", new Reason("SELECT I.I_NAME, I.I_INITIAL_PRICE, I.I_MAX_BID, I.I_NB_OF_BIDS, "
                        + "I.I_QUANTITY, I.I_END_DATE, U.U_NICKNAME FROM ITEMS I, USERS U WHERE I.I_ID = ? AND "
                        + "U.U_ID = ?", CROSS_SHARD_JOIN));
                out.put("putComment", new Reason("SELECT T.U_NICKNAME, F.U_NICKNAME FROM USERS T, USERS F WHERE "
                        + "T.U_ID = ? AND F.U_ID = ?", CROSS_SHARD_JOIN));
                out.put("searchItemsByRegion", new Reason("SELECT I.I_ID, I.I_NAME, I.I_INITIAL_PRICE, I.I_END_DATE "
                        + "FROM ITEMS I, USERS U WHERE I.I_CATEGORY = ? AND U.U_ID = I.I_SELLER AND U.U_REGION = ? "
                        + "ORDER BY I.I_END_DATE, I.I_ID LIMIT ? OFFSET ?", CROSS_SHARD_JOIN));
                out.put("viewBidHistory", new Reason("SELECT B.B_SEQ, U.U_NICKNAME, B.B_BID, B.B_DATE FROM BIDS B, "
                        + "USERS U WHERE B.B_ITEM_ID = ? AND U.U_ID = B.B_USER_ID ORDER BY B.B_SEQ DESC",
                        CROSS_SHARD_JOIN));
                out.put("viewItem", new Reason("SELECT I.I_ID, ..., I.I_SELLER, U.U_NICKNAME FROM ITEMS I, USERS U "
                        + "WHERE I.I_ID = ? AND U.U_ID = I.I_SELLER", CROSS_SHARD_JOIN));
                out.put("viewUserInfo", new Reason("SELECT CM.CM_RATING, CM.CM_DATE, CM.CM_COMMENT, U.U_NICKNAME "
                        + "FROM COMMENTS CM, USERS U WHERE CM.CM_TO_USER_ID = ? AND U.U_ID = CM.CM_FROM_USER_ID "
                        + "ORDER BY CM.CM_SEQ DESC LIMIT 20", CROSS_SHARD_JOIN));
            }
            default -> {
                // micro and tpcc: every statement routed to the shards holding its rows and merged right; the store
                // has not been run through the peer
            }
        }
        return out;
    }
}
