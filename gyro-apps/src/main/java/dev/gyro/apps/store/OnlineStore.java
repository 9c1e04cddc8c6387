package dev.gyro.apps.store;

import dev.gyro.app.Application;
import dev.gyro.app.Classification;
import dev.gyro.app.Sharding;
import dev.gyro.app.Transaction;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The online store of the paper's Section IV: carts (SHOPPING_CARTS, partitioned by cart id, so they live only on
 * the instance that owns the cart) and a catalogue with stock (ITEMS, replicated: written by global order
 * requests). ORDERS and ORDER_LINES record what was ordered, so that stock can be audited.
 */
public final class OnlineStore implements Application {

    public static final String NAME = "store";

    static final String[] SCHEMA = {
        "CREATE TABLE IF NOT EXISTS ITEMS (I_ID INTEGER PRIMARY KEY, NAME TEXT NOT NULL, PRICE REAL NOT NULL, "
                + "STOCK INTEGER NOT NULL)",
        "CREATE TABLE IF NOT EXISTS SHOPPING_CARTS (CART_ID INTEGER NOT NULL, ITEM_ID INTEGER NOT NULL, "
                + "QTY INTEGER NOT NULL, PRIMARY KEY (CART_ID, ITEM_ID))",
        "CREATE TABLE IF NOT EXISTS ORDERS (O_ID INTEGER PRIMARY KEY AUTOINCREMENT, CART_ID INTEGER NOT NULL UNIQUE, "
                + "TOTAL REAL NOT NULL, CREATED_AT INTEGER NOT NULL)",
        "CREATE TABLE IF NOT EXISTS ORDER_LINES (O_ID INTEGER NOT NULL, ITEM_ID INTEGER NOT NULL, QTY INTEGER NOT NULL, "
                + "PRIMARY KEY (O_ID, ITEM_ID))",
    };

    /** {@link #SCHEMA} for PostgreSQL: its own generated key (BIGSERIAL) and floating-point type. */
    static final String[] SCHEMA_POSTGRES = {
        "CREATE TABLE IF NOT EXISTS ITEMS (I_ID BIGINT PRIMARY KEY, NAME TEXT NOT NULL, PRICE DOUBLE PRECISION NOT NULL, "
                + "STOCK BIGINT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS SHOPPING_CARTS (CART_ID BIGINT NOT NULL, ITEM_ID BIGINT NOT NULL, "
                + "QTY BIGINT NOT NULL, PRIMARY KEY (CART_ID, ITEM_ID))",
        "CREATE TABLE IF NOT EXISTS ORDERS (O_ID BIGSERIAL PRIMARY KEY, CART_ID BIGINT NOT NULL UNIQUE, "
                + "TOTAL DOUBLE PRECISION NOT NULL, CREATED_AT BIGINT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS ORDER_LINES (O_ID BIGINT NOT NULL, ITEM_ID BIGINT NOT NULL, QTY BIGINT NOT NULL, "
                + "PRIMARY KEY (O_ID, ITEM_ID))",
    };

    /** {@link #SCHEMA} for MariaDB/MySQL: AUTO_INCREMENT, and a length for the text column. */
    static final String[] SCHEMA_MARIADB = {
        "CREATE TABLE IF NOT EXISTS ITEMS (I_ID BIGINT PRIMARY KEY, NAME VARCHAR(100) NOT NULL, PRICE DOUBLE NOT NULL, "
                + "STOCK BIGINT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS SHOPPING_CARTS (CART_ID BIGINT NOT NULL, ITEM_ID BIGINT NOT NULL, "
                + "QTY BIGINT NOT NULL, PRIMARY KEY (CART_ID, ITEM_ID))",
        "CREATE TABLE IF NOT EXISTS ORDERS (O_ID BIGINT AUTO_INCREMENT PRIMARY KEY, CART_ID BIGINT NOT NULL UNIQUE, "
                + "TOTAL DOUBLE NOT NULL, CREATED_AT BIGINT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS ORDER_LINES (O_ID BIGINT NOT NULL, ITEM_ID BIGINT NOT NULL, QTY BIGINT NOT NULL, "
                + "PRIMARY KEY (O_ID, ITEM_ID))",
    };

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<Transaction> transactions() {
        return List.of(new CreateCart(), new AddItem(), new GetCart(), new Order());
    }

    @Override
    public void createSchema(Connection c) throws SQLException {
        String product = c.getMetaData().getDatabaseProductName().toLowerCase(java.util.Locale.ROOT);
        String[] schema = product.contains("postgres") ? SCHEMA_POSTGRES
                : product.contains("mariadb") || product.contains("mysql") ? SCHEMA_MARIADB : SCHEMA;
        try (Statement s = c.createStatement()) {
            for (String ddl : schema) s.executeUpdate(ddl);
        }
    }

    @Override
    public Classification classification() {
        return Classification.resource(OnlineStore.class);
    }

    @Override
    public List<String> replicatedTables() {
        return List.of("ITEMS", "ORDERS", "ORDER_LINES");
    }

    /** Sharded deployments (the 2pc and ShardingSphere baselines): carts by cart id; items and orders everywhere. ORDERS takes its key from the database's auto-increment, which replicas written under 2PC may assign in different orders: the store is not a benchmark application. */
    @Override
    public Sharding sharding() {
        return new Sharding(Map.of("SHOPPING_CARTS", "CART_ID"),
                replicatedTables());
    }

    /** Items per unit of scale. */
    public static final int ITEMS_PER_SCALE = 1000;
    /** Stock of each item is between this and twice this. */
    public static final int MIN_STOCK = 50;

    @Override
    public void load(Connection c, int scale, long seed, dev.gyro.app.LoadProgress progress) throws SQLException {
        loadItems(c, scale * ITEMS_PER_SCALE, MIN_STOCK, seed);
        progress.update(1, "loaded");
    }

    @Override
    public boolean isLoaded(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM ITEMS")) {
            return rs.next() && rs.getLong(1) > 0;
        }
    }

    /**
     * Loads the catalogue, identically on every instance (a seeded generator, no clock): items 1..{@code items},
     * each with a stock between {@code minStock} and {@code 2 * minStock}.
     */
    public static void loadItems(Connection c, int items, int minStock, long seed) throws SQLException {
        SplittableRandom random = new SplittableRandom(seed);
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO ITEMS (I_ID, NAME, PRICE, STOCK) VALUES (?, ?, ?, ?)")) {
            for (int i = 1; i <= items; i++) {
                ps.setLong(1, i);
                ps.setString(2, "item-" + i);
                ps.setDouble(3, 1 + random.nextInt(9999) / 100.0);
                ps.setLong(4, minStock + random.nextInt(minStock + 1));
                ps.addBatch();
                if (i % 500 == 0) ps.executeBatch();
            }
            ps.executeBatch();
        }
    }

    /** The stock every item had after {@link #loadItems}: used to audit that no unit was lost or made up. */
    public static long[] initialStock(int items, int minStock, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] stock = new long[items + 1];
        for (int i = 1; i <= items; i++) {
            random.nextInt(9999);
            stock[i] = minStock + random.nextInt(minStock + 1);
        }
        return stock;
    }
}
