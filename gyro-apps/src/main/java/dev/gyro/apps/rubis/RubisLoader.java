package dev.gyro.apps.rubis;

import dev.gyro.app.LoadProgress;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Loads a RUBiS population, identically on every instance: 20 categories, 62 regions, users, closed auctions
 * (OLD_ITEMS) and open ones (ITEMS), 0-10 bids per item with the item's bid count and highest bid matching them, a
 * few buy-now purchases, one comment per closed auction (to its seller, whose rating is the sum of the comments'
 * ratings), and the id counters. Each table has its own seeded stream; no clock.
 */
final class RubisLoader {

    static final String INSERT_CATEGORY = "INSERT INTO CATEGORIES (CA_ID, CA_NAME) VALUES (?, ?)";
    static final String INSERT_REGION = "INSERT INTO REGIONS (R_ID, R_NAME) VALUES (?, ?)";
    static final String INSERT_USER = "INSERT INTO USERS (U_ID, U_FIRSTNAME, U_LASTNAME, U_NICKNAME, U_PASSWORD, U_EMAIL, "
            + "U_RATING, U_BALANCE, U_CREATION_DATE, U_REGION) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)";
    static final String INSERT_ITEM = "INSERT INTO ITEMS (I_ID, I_NAME, I_DESCRIPTION, I_INITIAL_PRICE, I_QUANTITY, "
            + "I_RESERVE_PRICE, I_BUY_NOW, I_NB_OF_BIDS, I_MAX_BID, I_START_DATE, I_END_DATE, I_SELLER, I_CATEGORY) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    static final String INSERT_OLD_ITEM = INSERT_ITEM.replace("INTO ITEMS", "INTO OLD_ITEMS");
    static final String INSERT_BID = "INSERT INTO BIDS (B_ITEM_ID, B_SEQ, B_USER_ID, B_QTY, B_BID, B_MAX_BID, B_DATE) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?)";
    static final String INSERT_BUY_NOW = "INSERT INTO BUY_NOW (BN_ITEM_ID, BN_SEQ, BN_BUYER_ID, BN_QTY, BN_DATE) VALUES (?, ?, ?, ?, ?)";
    static final String INSERT_COMMENT = "INSERT INTO COMMENTS (CM_TO_USER_ID, CM_SEQ, CM_FROM_USER_ID, CM_ITEM_ID, "
            + "CM_RATING, CM_DATE, CM_COMMENT) VALUES (?, ?, ?, ?, ?, ?, ?)";
    static final String INSERT_ID = "INSERT INTO IDS (ID_NAME, ID_NEXT) VALUES (?, ?)";
    static final String ADD_RATING = "UPDATE USERS SET U_RATING = U_RATING + ? WHERE U_ID = ?";

    static final long LOAD_EPOCH = 1_577_836_800_000L; // 2020-01-01T00:00Z
    static final long DAY = 86_400_000L;

    static final List<String> CATEGORIES = List.of("Antiques", "Art", "Books", "Business", "Cameras", "Clothing",
            "Coins", "Collectibles", "Computers", "Crafts", "Dolls", "Electronics", "Garden", "Jewelry", "Movies",
            "Music", "Pottery", "Sports", "Stamps", "Toys");
    static final int REGIONS = 62;

    private RubisLoader() {}

    static void load(Connection c, Rubis.Size size, long seed, LoadProgress progress) throws SQLException {
        int users = size.users(), old = size.oldItems(), open = size.items();
        try (PreparedStatement ps = c.prepareStatement(INSERT_CATEGORY)) {
            for (int i = 0; i < CATEGORIES.size(); i++) {
                ps.setInt(1, i + 1);
                ps.setString(2, CATEGORIES.get(i));
                ps.addBatch();
            }
            ps.executeBatch();
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_REGION)) {
            for (int i = 1; i <= REGIONS; i++) {
                ps.setInt(1, i);
                ps.setString(2, "Region " + i);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        SplittableRandom r = new SplittableRandom(seed ^ 0x7101);
        try (PreparedStatement ps = c.prepareStatement(INSERT_USER)) {
            for (int u = 1; u <= users; u++) {
                ps.setLong(1, u);
                ps.setString(2, Rubis.letters(r, 4, 20));
                ps.setString(3, Rubis.letters(r, 4, 20));
                ps.setString(4, Rubis.nickname(u));
                ps.setString(5, Rubis.password(u));
                ps.setString(6, Rubis.nickname(u) + "@example.com");
                ps.setInt(7, 0);
                ps.setLong(8, LOAD_EPOCH - (1 + r.nextInt(1000)) * DAY);
                ps.setInt(9, 1 + r.nextInt(REGIONS));
                ps.addBatch();
                if (u % 1000 == 0) ps.executeBatch();
            }
            ps.executeBatch();
        }
        progress.update(0.3, "USERS " + users);
        try (PreparedStatement oldItem = c.prepareStatement(INSERT_OLD_ITEM);
             PreparedStatement item = c.prepareStatement(INSERT_ITEM);
             PreparedStatement bid = c.prepareStatement(INSERT_BID);
             PreparedStatement buy = c.prepareStatement(INSERT_BUY_NOW);
             PreparedStatement comment = c.prepareStatement(INSERT_COMMENT);
             PreparedStatement rating = c.prepareStatement(ADD_RATING)) {
            r = new SplittableRandom(seed ^ 0x7202);
            java.util.Map<Long, Integer> comments = new java.util.HashMap<>();
            for (long id = 1; id <= old + open; id++) {
                boolean closed = id <= old;
                PreparedStatement ps = closed ? oldItem : item;
                long seller = 1 + r.nextInt(users);
                long initial = 100 + r.nextInt(100_000);
                int quantity = r.nextInt(10) == 0 ? 1 + r.nextInt(10) : 1;
                int bids = r.nextInt(11);
                long start = LOAD_EPOCH - (closed ? 30 + r.nextInt(300) : r.nextInt(7)) * DAY;
                long max = 0;
                for (int b = 1; b <= bids; b++) {
                    long amount = initial + b * (1 + r.nextInt(1000));
                    max = Math.max(max, amount);
                    bid.setLong(1, id);
                    bid.setInt(2, b);
                    bid.setLong(3, 1 + r.nextInt(users));
                    bid.setInt(4, 1);
                    bid.setLong(5, amount);
                    bid.setLong(6, amount + r.nextInt(1000));
                    bid.setLong(7, start + b * 3_600_000L);
                    bid.addBatch();
                }
                int sold = 0;
                if (quantity > 1 && r.nextInt(2) == 0) {
                    sold = 1 + r.nextInt(quantity - 1);
                    buy.setLong(1, id);
                    buy.setInt(2, 1);
                    buy.setLong(3, 1 + r.nextInt(users));
                    buy.setInt(4, sold);
                    buy.setLong(5, start + DAY);
                    buy.addBatch();
                }
                ps.setLong(1, id);
                ps.setString(2, Rubis.itemName(r));
                ps.setString(3, Rubis.letters(r, 20, 200));
                ps.setLong(4, initial);
                ps.setInt(5, quantity - sold);
                ps.setLong(6, r.nextInt(2) == 0 ? 0 : initial + r.nextInt(10_000));
                ps.setLong(7, r.nextInt(3) == 0 ? initial * 3 : 0);
                ps.setInt(8, bids);
                ps.setLong(9, max);
                ps.setLong(10, start);
                ps.setLong(11, start + (1 + r.nextInt(7)) * DAY);
                ps.setLong(12, seller);
                ps.setInt(13, 1 + r.nextInt(CATEGORIES.size()));
                ps.addBatch();
                if (closed) {
                    int seq = comments.merge(seller, 1, Integer::sum);
                    int stars = r.nextInt(11) - 5;
                    comment.setLong(1, seller);
                    comment.setInt(2, seq);
                    comment.setLong(3, 1 + r.nextInt(users));
                    comment.setLong(4, id);
                    comment.setInt(5, stars);
                    comment.setLong(6, start + 8 * DAY);
                    comment.setString(7, Rubis.letters(r, 20, 200));
                    comment.addBatch();
                    rating.setInt(1, stars);
                    rating.setLong(2, seller);
                    rating.addBatch();
                }
                if (id % 1000 == 0) {
                    for (PreparedStatement p : List.of(oldItem, item, bid, buy, comment, rating)) p.executeBatch();
                    progress.update(0.3 + 0.7 * id / (old + open), "ITEMS " + id + "/" + (old + open));
                }
            }
            for (PreparedStatement p : List.of(oldItem, item, bid, buy, comment, rating)) p.executeBatch();
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_ID)) {
            ps.setString(1, "USERS");
            ps.setLong(2, users + 1);
            ps.addBatch();
            ps.setString(1, "ITEMS");
            ps.setLong(2, old + open + 1);
            ps.addBatch();
            ps.executeBatch();
        }
        progress.update(1, "ITEMS " + (old + open));
    }
}
