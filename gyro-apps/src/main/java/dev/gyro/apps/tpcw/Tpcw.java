package dev.gyro.apps.tpcw;

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

/**
 * The TPC-W online bookstore (paper Section VII: "TPC-W, an on-line book store"), written from the public
 * specification: its ten tables, a scalable seeded population, the 20 database transactions behind its 14 web
 * interactions (13 read-only), its three mixes, and its invariants.
 *
 * <p>Partitioning (classification.json): customers' session data by customer id, shopping carts by cart id; what
 * every partition reads (the catalogue, orders, addresses) is written only by the 5 global transactions, so it is
 * the same on every instance.
 */
public final class Tpcw implements Application {

    public static final String NAME = "tpcw";

    /**
     * The population per unit of scale.
     *
     * @param items     books (the specification's NUM_ITEMS: 1k, 10k, 100k...)
     * @param customers customers (the specification: 2880 per emulated browser)
     */
    public record Size(int items, int customers) {
        public Size {
            if (items < 10 || customers < 10) throw new IllegalArgumentException("TPC-W needs at least 10 items and 10 customers");
        }

        public Size times(int scale) {
            return new Size(items * scale, customers * scale);
        }
    }

    /** One unit of scale: 1000 items and the customers of one emulated browser. */
    public static final Size DEFAULT_SIZE = new Size(1000, 2880);

    private final Size unit;

    public Tpcw() {
        this(DEFAULT_SIZE);
    }

    /** A bookstore whose scale unit is {@code unit} (tests use small ones). */
    public Tpcw(Size unit) {
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
        return List.of(new GetName(), new GetBook(), new GetCustomer(), new DoSubjectSearch(), new DoTitleSearch(),
                new DoAuthorSearch(), new GetNewProducts(), new GetBestSellers(), new GetRelated(), new AdminUpdate(),
                new GetUserName(), new GetPassword(), new GetMostRecentOrder(), new CreateEmptyCart(), new DoCart(),
                new GetCart(), new RefreshSession(), new CreateNewCustomer(), new DoBuyConfirm(),
                new DoBuyConfirmWithAddress());
    }

    @Override
    public void createSchema(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String ddl : TpcwSchema.TABLES) s.executeUpdate(ddl);
            for (String ddl : TpcwSchema.INDEXES) s.executeUpdate(ddl);
        }
    }

    @Override
    public Classification classification() {
        return Classification.resource(Tpcw.class);
    }

    @Override
    public List<String> replicatedTables() {
        return TpcwSchema.REPLICATED;
    }

    /** Sharded deployments (the 2pc and ShardingSphere baselines): customers by customer id and carts by cart id (what the local requests write); the catalogue, addresses and orders everywhere. */
    @Override
    public Sharding sharding() {
        return new Sharding(Map.of("CUSTOMER", "C_ID", "SHOPPING_CART", "SC_ID", "SHOPPING_CART_LINE", "SCL_SC_ID"),
                TpcwSchema.REPLICATED);
    }

    @Override
    public String describeScale(int scale) {
        Size s = size(scale);
        return s.items() + " items, " + s.customers() + " customers";
    }

    @Override
    public void load(Connection c, int scale, long seed, LoadProgress progress) throws SQLException {
        TpcwLoader.load(c, size(scale), seed, progress);
    }

    @Override
    public boolean isLoaded(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM ITEM")) {
            return rs.next() && rs.getLong(1) > 0;
        }
    }

    @Override
    public Workload workload(int scale, WorkloadOptions options) {
        return TpcwWorkload.of(size(scale), options);
    }

    @Override
    public Audit audit(int scale, long seed) {
        return new TpcwAudit();
    }

    /** Sales tax: 8.25% of the discounted subtotal (cents, rounded down). */
    static long tax(long subTotal) {
        return subTotal * 825 / 10_000;
    }

    /** Shipping: $3.00 plus $1.00 per unit. */
    static long shipping(int units) {
        return 300 + 100L * units;
    }
}
