package dev.gyro.apps.rubis;

import dev.gyro.app.Audit;
import dev.gyro.apps.AuditQueries;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.Value;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * RUBiS's invariants. An item's auction state is checked at the instance that owns the item, a user's rating at the
 * instance that owns the user (where those are kept current); everything else on every instance.
 */
final class RubisAudit implements Audit {

    static final String ITEM_BIDS = "SELECT I.I_ID, I.I_NB_OF_BIDS, I.I_MAX_BID, "
            + "(SELECT COUNT(*) FROM BIDS B WHERE B.B_ITEM_ID = I.I_ID), "
            + "(SELECT COALESCE(MAX(B.B_BID), 0) FROM BIDS B WHERE B.B_ITEM_ID = I.I_ID) FROM %s I ORDER BY I.I_ID";
    static final String USER_RATINGS = "SELECT U.U_ID, U.U_RATING, "
            + "(SELECT COALESCE(SUM(C.CM_RATING), 0) FROM COMMENTS C WHERE C.CM_TO_USER_ID = U.U_ID) FROM USERS U ORDER BY U.U_ID";
    static final String NEGATIVE_QUANTITY = "SELECT I_ID, I_QUANTITY FROM ITEMS WHERE I_QUANTITY < 0 ORDER BY I_ID";
    static final String STRAY_BIDS = "SELECT B.B_ITEM_ID, B.B_SEQ FROM BIDS B WHERE NOT EXISTS (SELECT 1 FROM USERS U "
            + "WHERE U.U_ID = B.B_USER_ID) OR (NOT EXISTS (SELECT 1 FROM ITEMS I WHERE I.I_ID = B.B_ITEM_ID) "
            + "AND NOT EXISTS (SELECT 1 FROM OLD_ITEMS O WHERE O.I_ID = B.B_ITEM_ID)) ORDER BY 1, 2";
    static final String STRAY_PURCHASES = "SELECT P.BN_ITEM_ID, P.BN_SEQ FROM BUY_NOW P WHERE NOT EXISTS (SELECT 1 FROM USERS U "
            + "WHERE U.U_ID = P.BN_BUYER_ID) OR (NOT EXISTS (SELECT 1 FROM ITEMS I WHERE I.I_ID = P.BN_ITEM_ID) "
            + "AND NOT EXISTS (SELECT 1 FROM OLD_ITEMS O WHERE O.I_ID = P.BN_ITEM_ID)) ORDER BY 1, 2";
    static final String STRAY_COMMENTS = "SELECT C.CM_TO_USER_ID, C.CM_SEQ FROM COMMENTS C WHERE NOT EXISTS "
            + "(SELECT 1 FROM USERS U WHERE U.U_ID = C.CM_FROM_USER_ID) OR NOT EXISTS "
            + "(SELECT 1 FROM USERS T WHERE T.U_ID = C.CM_TO_USER_ID) ORDER BY 1, 2";
    static final String OPEN_AND_CLOSED = "SELECT I.I_ID FROM ITEMS I, OLD_ITEMS O WHERE O.I_ID = I.I_ID ORDER BY 1";
    static final String STALE_IDS = "SELECT ID_NAME, ID_NEXT FROM IDS WHERE (ID_NAME = 'USERS' AND ID_NEXT <= "
            + "(SELECT COALESCE(MAX(U_ID), 0) FROM USERS)) OR (ID_NAME = 'ITEMS' AND (ID_NEXT <= "
            + "(SELECT COALESCE(MAX(I_ID), 0) FROM ITEMS) OR ID_NEXT <= (SELECT COALESCE(MAX(I_ID), 0) FROM OLD_ITEMS)))";

    @Override
    public List<String> conditions() {
        return List.of("every auction's highest bid (I_MAX_BID) is the highest of its bids, and I_NB_OF_BIDS their number "
                        + "(at the item's instance; open and closed auctions)",
                "no open auction has a negative quantity",
                "every user's rating is the sum of the ratings in the comments about them (at the user's instance)",
                "every bid, purchase and comment names existing users and auctions",
                "no auction is both open and closed; the id counters are beyond every id in use");
    }

    @Override
    public List<String> check(List<Connection> instances, PartitionMap map) throws SQLException {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < instances.size(); i++) {
            Connection c = instances.get(i);
            for (String table : List.of("ITEMS", "OLD_ITEMS")) {
                int bad = 0;
                String first = null;
                try (PreparedStatement ps = c.prepareStatement(String.format(ITEM_BIDS, table)); ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        long item = rs.getLong(1);
                        if (map.instanceOf(new Value.Int(item)) != i) continue;
                        if (rs.getLong(2) == rs.getLong(4) && rs.getLong(3) == rs.getLong(5)) continue;
                        if (bad++ == 0) first = "(I_ID=" + item + ", I_NB_OF_BIDS=" + rs.getLong(2) + " but " + rs.getLong(4)
                                + " bids, I_MAX_BID=" + rs.getLong(3) + " but highest bid " + rs.getLong(5) + ")";
                    }
                }
                if (bad > 0) out.add("instance " + i + ": violated: the highest bid is the item's max bid (" + table
                        + "): " + bad + " row(s), e.g. " + first);
            }
            int bad = 0;
            String first = null;
            try (PreparedStatement ps = c.prepareStatement(USER_RATINGS); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long user = rs.getLong(1);
                    if (map.instanceOf(new Value.Int(user)) != i || rs.getLong(2) == rs.getLong(3)) continue;
                    if (bad++ == 0) first = "(U_ID=" + user + ", U_RATING=" + rs.getLong(2) + ", comments add up to "
                            + rs.getLong(3) + ")";
                }
            }
            if (bad > 0) out.add("instance " + i + ": violated: a user's rating is the sum of their comments: " + bad
                    + " row(s), e.g. " + first);
            out.addAll(AuditQueries.violations(c, i, "no negative quantity", NEGATIVE_QUANTITY, "I_ID", "I_QUANTITY"));
            out.addAll(AuditQueries.violations(c, i, "every bid names an existing user and auction", STRAY_BIDS,
                    "B_ITEM_ID", "B_SEQ"));
            out.addAll(AuditQueries.violations(c, i, "every purchase names an existing user and auction", STRAY_PURCHASES,
                    "BN_ITEM_ID", "BN_SEQ"));
            out.addAll(AuditQueries.violations(c, i, "every comment names existing users", STRAY_COMMENTS,
                    "CM_TO_USER_ID", "CM_SEQ"));
            out.addAll(AuditQueries.violations(c, i, "no auction is both open and closed", OPEN_AND_CLOSED, "I_ID"));
            out.addAll(AuditQueries.violations(c, i, "id counters are beyond every id in use", STALE_IDS, "ID_NAME", "ID_NEXT"));
        }
        return out;
    }
}
