package dev.gyro.apps.tpcc;

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
 * TPC-C (the workload of the MoSQL and ROCOCO papers), written from the public specification: the nine tables, the
 * standard loader with warehouses as the scale, New-Order, Payment, Order-Status, Delivery and Stock-Level, the
 * standard mix with its remote rates (1% of New-Order lines, 15% of Payments), and consistency conditions 1-4.
 *
 * <h2>Partitioned by warehouse, and what that takes with row images</h2>
 * Every row of a warehouse's data is read and written at the instance that owns the warehouse. A request that
 * touches two warehouses is local-or-global on the two (local when both live on one instance); when global it runs
 * at the first one's instance, where the data it read-modify-writes is current. The other warehouse's part must then
 * not depend on that warehouse's current values: Gyro ships what a global request wrote as row images, so a
 * read-modify-write of a row that another instance keeps current would overwrite that instance's newer value. So:
 * <ul>
 *   <li>New-Order runs at its home warehouse. A line supplied by another warehouse does not update that warehouse's
 *       STOCK row (it reads only the row's never-changing S_DIST_xx and S_DATA): it records the quantity in
 *       STOCK_PENDING, and the supplying warehouse applies pending quantities, in key order and with the
 *       specification's restocking rule, before it next uses the STOCK row (its own New-Order lines, Stock-Level).
 *       The only visible difference: the order's reply does not report S_QUANTITY for remote lines.</li>
 *   <li>Payment runs at the customer's warehouse. When the home warehouse is another one, W_YTD and D_YTD are not
 *       updated in place: the amount is recorded in YTD_PENDING and the home warehouse folds it into both totals at
 *       its next own Payment. W_YTD = sum(D_YTD) (condition 1) holds throughout.</li>
 * </ul>
 * To keep New-Order to two warehouses, all remote lines of one order share one supplying warehouse (an order has a
 * remote line 1% of the time per line; two different remote warehouses in one order would be rarer still).
 */
public final class Tpcc implements Application {

    public static final String NAME = "tpcc";

    /** NURand's run-time constants (clause 2.1.6) and the one the loader used for last names (clause 4.3.3.1). */
    static final int C_LAST_LOAD = 157, C_LAST_RUN = 223, C_ID = 259, C_ITEM = 7911;

    /**
     * Per-warehouse sizes.
     *
     * @param items                the catalogue (the specification: 100,000); every warehouse stocks every item
     * @param customersPerDistrict customers, and initial orders, per district (the specification: 3000)
     */
    public record Size(int items, int customersPerDistrict) {
        public Size {
            if (items < 100 || customersPerDistrict < 10)
                throw new IllegalArgumentException("TPC-C needs at least 100 items and 10 customers per district");
        }
    }

    public static final Size STANDARD = new Size(100_000, 3000);

    private final Size size;

    public Tpcc() {
        this(STANDARD);
    }

    public Tpcc(Size size) {
        this.size = size;
    }

    public Size size() {
        return size;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<Transaction> transactions() {
        return List.of(new NewOrder(), new Payment(), new OrderStatus(), new Delivery(), new StockLevel());
    }

    @Override
    public void createSchema(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String ddl : TpccSchema.TABLES) s.executeUpdate(ddl);
            for (String ddl : TpccSchema.INDEXES) s.executeUpdate(ddl);
        }
    }

    @Override
    public Classification classification() {
        return Classification.resource(Tpcc.class);
    }

    @Override
    public List<String> replicatedTables() {
        return TpccSchema.REPLICATED;
    }

    /** Sharded deployments (the 2pc and ShardingSphere baselines): every table by warehouse (TPC-C's natural sharding); pending stock and year-to-date rows on the warehouse that applies them, so a remote order line or payment is a two-shard transaction; ITEM everywhere. */
    @Override
    public Sharding sharding() {
        return new Sharding(Map.ofEntries(Map.entry("WAREHOUSE", "W_ID"), Map.entry("DISTRICT", "D_W_ID"),
                Map.entry("CUSTOMER", "C_W_ID"), Map.entry("HISTORY", "H_C_W_ID"), Map.entry("NEW_ORDER", "NO_W_ID"),
                Map.entry("ORDERS", "O_W_ID"), Map.entry("ORDER_LINE", "OL_W_ID"), Map.entry("STOCK", "S_W_ID"),
                Map.entry("STOCK_PENDING", "SP_W_ID"), Map.entry("YTD_PENDING", "YP_W_ID")),
                TpccSchema.REPLICATED);
    }

    /** Scale = warehouses. */
    @Override
    public String describeScale(int scale) {
        return scale + " warehouses, " + size.items() + " items, " + size.customersPerDistrict() + " customers per district";
    }

    @Override
    public void load(Connection c, int scale, long seed, LoadProgress progress) throws SQLException {
        TpccLoader.load(c, size, scale, seed, progress);
    }

    @Override
    public boolean isLoaded(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM WAREHOUSE")) {
            return rs.next() && rs.getLong(1) > 0;
        }
    }

    @Override
    public Workload workload(int scale, WorkloadOptions options) {
        return TpccWorkload.of(size, scale, options);
    }

    @Override
    public Audit audit(int scale, long seed) {
        return new TpccAudit(scale);
    }
}
