package dev.gyro.apps.rubis;

import dev.gyro.app.Application;
import dev.gyro.app.Audit;
import dev.gyro.app.Classification;
import dev.gyro.app.LoadProgress;
import dev.gyro.app.Sharding;
import dev.gyro.app.Transaction;
import dev.gyro.app.Workload;
import dev.gyro.app.WorkloadOptions;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The RUBiS auction site (paper Section VII: "RUBiS, an auction website"), written from its public description:
 * users sell, browse, bid, buy now and rate each other. 26 database transactions, 17 of them read-only, and the
 * bidding mix (about 15% of requests write) by default.
 *
 * <h2>Partitioning: user and item, the paper's double key</h2>
 * An item's auction state (I_NB_OF_BIDS, I_MAX_BID, I_QUANTITY, and what its seller may edit) is kept current at the
 * instance that owns the item; a user's rating at the instance that owns the user. What everybody reads (users'
 * names, items' names and prices, closed auctions, the id counters) is written only by global requests. Bidding,
 * buying and commenting write both an item's (or the rated user's) state and rows the other party reads: they are
 * local when the item and the user live on one instance, global otherwise, and always run at the item's (or rated
 * user's) instance, where the state they read-modify-write is current. Bids, purchases and comments are keyed within
 * their item or user, so no id is ever allocated on two instances.
 */
public final class Rubis implements Application {

    public static final String NAME = "rubis";

    /**
     * The population per unit of scale.
     *
     * @param users    registered users
     * @param items    open auctions (ITEMS)
     * @param oldItems closed auctions (OLD_ITEMS)
     */
    public record Size(int users, int items, int oldItems) {
        public Size {
            if (users < 10 || items < 10 || oldItems < 0) throw new IllegalArgumentException("RUBiS needs at least 10 users and 10 items");
        }

        public Size times(int scale) {
            return new Size(users * scale, items * scale, oldItems * scale);
        }
    }

    public static final Size DEFAULT_SIZE = new Size(1000, 500, 500);

    private final Size unit;

    public Rubis() {
        this(DEFAULT_SIZE);
    }

    public Rubis(Size unit) {
        this.unit = unit;
    }

    public Size size(int scale) {
        return unit.times(scale);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<Transaction> transactions() {
        return List.of(new BrowseCategories(), new BrowseRegions(), new BrowseCategoriesInRegion(),
                new SearchItemsByCategory(), new SearchItemsByRegion(), new ViewItem(), new ViewOldItem(),
                new ViewBidHistory(), new ViewUserInfo(), new Authenticate(), new SelectCategoryToSellItem(),
                new SellItemForm(), new AboutMe(), new PutBid(), new BuyNow(), new PutComment(), new RetractBidForm(),
                new RegisterUser(), new UpdateUserInfo(), new RegisterItem(), new CloseAuction(), new UpdateItem(),
                new StoreBid(), new RetractBid(), new StoreBuyNow(), new StoreComment());
    }

    @Override
    public void createSchema(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String ddl : RubisSchema.TABLES) s.executeUpdate(ddl);
            for (String ddl : RubisSchema.INDEXES) s.executeUpdate(ddl);
        }
    }

    @Override
    public Classification classification() {
        return Classification.resource(Rubis.class);
    }

    @Override
    public List<String> replicatedTables() {
        return RubisSchema.REPLICATED;
    }

    /** Sharded deployments (the 2pc and ShardingSphere baselines): users and their comments by user, items with their bids and purchases by item (the partitioning parameters of the local requests that write them); categories, regions, old items and the id counters everywhere. */
    @Override
    public Sharding sharding() {
        return new Sharding(Map.of("USERS", "U_ID", "ITEMS", "I_ID", "BIDS", "B_ITEM_ID", "BUY_NOW", "BN_ITEM_ID",
                "COMMENTS", "CM_TO_USER_ID"),
                RubisSchema.REPLICATED);
    }

    @Override
    public String describeScale(int scale) {
        Size s = size(scale);
        return s.users() + " users, " + s.items() + " open and " + s.oldItems() + " closed auctions";
    }

    @Override
    public void load(Connection c, int scale, long seed, LoadProgress progress) throws SQLException {
        RubisLoader.load(c, size(scale), seed, progress);
    }

    @Override
    public boolean isLoaded(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM USERS")) {
            return rs.next() && rs.getLong(1) > 0;
        }
    }

    @Override
    public Workload workload(int scale, WorkloadOptions options) {
        return RubisWorkload.of(size(scale), options);
    }

    @Override
    public Audit audit(int scale, long seed) {
        return new RubisAudit();
    }

    /** The nickname and password of loaded user {@code id}. */
    public static String nickname(long id) {
        return "user" + id;
    }

    public static String password(long id) {
        return "password" + id;
    }

    static String letters(SplittableRandom r, int min, int max) {
        int n = min + r.nextInt(max - min + 1);
        char[] c = new char[n];
        for (int i = 0; i < n; i++) c[i] = (char) ('a' + r.nextInt(26));
        return new String(c);
    }

    static String itemName(SplittableRandom r) {
        return "RUBiS item " + letters(r, 5, 40);
    }
}
