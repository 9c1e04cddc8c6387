package dev.gyro.apps.tpcc;

import dev.gyro.app.LoadProgress;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.SplittableRandom;

/**
 * The standard initial population (TPC-C clause 4.3.3), scaled: per warehouse, stock for every item, 10 districts,
 * {@code customersPerDistrict} customers with one history row each, as many orders (customers in a random
 * permutation), 5-15 lines per order, the last 30% of orders undelivered and listed in NEW_ORDER. Each warehouse has
 * its own seeded stream, so a database with warehouses 1..W is the same whatever else is loaded.
 */
final class TpccLoader {

    static final String INSERT_ITEM = "INSERT INTO ITEM (I_ID, I_IM_ID, I_NAME, I_PRICE, I_DATA) VALUES (?, ?, ?, ?, ?)";
    static final String INSERT_WAREHOUSE = "INSERT INTO WAREHOUSE (W_ID, W_NAME, W_STREET_1, W_STREET_2, W_CITY, "
            + "W_STATE, W_ZIP, W_TAX_BP, W_YTD) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
    static final String INSERT_STOCK = "INSERT INTO STOCK (S_W_ID, S_I_ID, S_QUANTITY, S_DIST_01, S_DIST_02, S_DIST_03, "
            + "S_DIST_04, S_DIST_05, S_DIST_06, S_DIST_07, S_DIST_08, S_DIST_09, S_DIST_10, S_YTD, S_ORDER_CNT, "
            + "S_REMOTE_CNT, S_DATA) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, ?)";
    static final String INSERT_DISTRICT = "INSERT INTO DISTRICT (D_W_ID, D_ID, D_NAME, D_STREET_1, D_STREET_2, D_CITY, "
            + "D_STATE, D_ZIP, D_TAX_BP, D_YTD, D_NEXT_O_ID) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    static final String INSERT_CUSTOMER = "INSERT INTO CUSTOMER (C_W_ID, C_D_ID, C_ID, C_FIRST, C_MIDDLE, C_LAST, "
            + "C_STREET_1, C_STREET_2, C_CITY, C_STATE, C_ZIP, C_PHONE, C_SINCE, C_CREDIT, C_CREDIT_LIM, C_DISCOUNT_BP, "
            + "C_BALANCE, C_YTD_PAYMENT, C_PAYMENT_CNT, C_DELIVERY_CNT, C_DATA) "
            + "VALUES (?, ?, ?, ?, 'OE', ?, ?, ?, ?, ?, ?, ?, ?, ?, 5000000, ?, -1000, 1000, 1, 0, ?)";
    static final String INSERT_HISTORY = "INSERT INTO HISTORY (H_C_W_ID, H_C_D_ID, H_C_ID, H_SEQ, H_D_ID, H_W_ID, "
            + "H_DATE, H_AMOUNT, H_DATA) VALUES (?, ?, ?, 1, ?, ?, ?, 1000, ?)";
    static final String INSERT_ORDER = "INSERT INTO ORDERS (O_W_ID, O_D_ID, O_ID, O_C_ID, O_ENTRY_D, O_CARRIER_ID, "
            + "O_OL_CNT, O_ALL_LOCAL) VALUES (?, ?, ?, ?, ?, ?, ?, 1)";
    static final String INSERT_LINE = "INSERT INTO ORDER_LINE (OL_W_ID, OL_D_ID, OL_O_ID, OL_NUMBER, OL_I_ID, "
            + "OL_SUPPLY_W_ID, OL_DELIVERY_D, OL_QUANTITY, OL_AMOUNT, OL_DIST_INFO) VALUES (?, ?, ?, ?, ?, ?, ?, 5, ?, ?)";
    static final String INSERT_NEW_ORDER = "INSERT INTO NEW_ORDER (NO_W_ID, NO_D_ID, NO_O_ID) VALUES (?, ?, ?)";

    /** The instant the population is dated (2020-01-01T00:00Z): the loader reads no clock. */
    static final long LOAD_EPOCH = 1_577_836_800_000L;
    private static final int BATCH = 1000;

    private TpccLoader() {}

    static void load(Connection c, Tpcc.Size size, int warehouses, long seed, LoadProgress progress) throws SQLException {
        double total = 1 + warehouses;
        SplittableRandom r = new SplittableRandom(seed);
        try (PreparedStatement ps = c.prepareStatement(INSERT_ITEM)) {
            for (int i = 1; i <= size.items(); i++) {
                ps.setInt(1, i);
                ps.setInt(2, 1 + r.nextInt(10_000));
                ps.setString(3, TpccRandom.alpha(r, 14, 24));
                ps.setLong(4, 100 + r.nextInt(9_901));
                ps.setString(5, TpccRandom.data(r));
                batch(ps, i);
            }
            ps.executeBatch();
        }
        progress.update(1 / total, "ITEM " + size.items());
        for (int w = 1; w <= warehouses; w++) {
            loadWarehouse(c, size, w, new SplittableRandom(seed * 1_000_003L + w));
            progress.update((1 + w) / total, "warehouse " + w + "/" + warehouses);
        }
    }

    private static void loadWarehouse(Connection c, Tpcc.Size size, int w, SplittableRandom r) throws SQLException {
        int cpd = size.customersPerDistrict();
        try (PreparedStatement ps = c.prepareStatement(INSERT_WAREHOUSE)) {
            ps.setInt(1, w);
            address(ps, 2, r);
            ps.setInt(8, r.nextInt(2001));
            ps.setLong(9, 30_000_000L);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_STOCK)) {
            for (int i = 1; i <= size.items(); i++) {
                ps.setInt(1, w);
                ps.setInt(2, i);
                ps.setInt(3, 10 + r.nextInt(91));
                for (int d = 0; d < 10; d++) ps.setString(4 + d, TpccRandom.alpha(r, 24, 24));
                ps.setString(14, TpccRandom.data(r));
                batch(ps, i);
            }
            ps.executeBatch();
        }
        try (PreparedStatement district = c.prepareStatement(INSERT_DISTRICT);
             PreparedStatement customer = c.prepareStatement(INSERT_CUSTOMER);
             PreparedStatement history = c.prepareStatement(INSERT_HISTORY);
             PreparedStatement order = c.prepareStatement(INSERT_ORDER);
             PreparedStatement line = c.prepareStatement(INSERT_LINE);
             PreparedStatement newOrder = c.prepareStatement(INSERT_NEW_ORDER)) {
            for (int d = 1; d <= 10; d++) {
                district.setInt(1, w);
                district.setInt(2, d);
                address(district, 3, r);
                district.setInt(9, r.nextInt(2001));
                district.setLong(10, 3_000_000L);
                district.setInt(11, cpd + 1);
                district.executeUpdate();
                for (int cid = 1; cid <= cpd; cid++) {
                    customer.setInt(1, w);
                    customer.setInt(2, d);
                    customer.setInt(3, cid);
                    customer.setString(4, TpccRandom.alpha(r, 8, 16));
                    customer.setString(5, TpccRandom.lastName(cid <= 1000 ? cid - 1
                            : TpccRandom.nuRand(r, 255, Tpcc.C_LAST_LOAD, 0, 999)));
                    customer.setString(6, TpccRandom.alpha(r, 10, 20));
                    customer.setString(7, TpccRandom.alpha(r, 10, 20));
                    customer.setString(8, TpccRandom.alpha(r, 10, 20));
                    customer.setString(9, TpccRandom.alpha(r, 2, 2).toUpperCase());
                    customer.setString(10, TpccRandom.zip(r));
                    customer.setString(11, TpccRandom.digits(r, 16));
                    customer.setLong(12, LOAD_EPOCH);
                    customer.setString(13, r.nextInt(10) == 0 ? "BC" : "GC");
                    customer.setInt(14, r.nextInt(5001));
                    customer.setString(15, TpccRandom.alpha(r, 300, 500));
                    customer.addBatch();
                    history.setInt(1, w);
                    history.setInt(2, d);
                    history.setInt(3, cid);
                    history.setInt(4, d);
                    history.setInt(5, w);
                    history.setLong(6, LOAD_EPOCH);
                    history.setString(7, TpccRandom.alpha(r, 12, 24));
                    history.addBatch();
                }
                customer.executeBatch();
                history.executeBatch();
                int[] permutation = new int[cpd];
                for (int i = 0; i < cpd; i++) permutation[i] = i + 1;
                for (int i = cpd - 1; i > 0; i--) {
                    int j = r.nextInt(i + 1), t = permutation[i];
                    permutation[i] = permutation[j];
                    permutation[j] = t;
                }
                int firstUndelivered = cpd - cpd * 3 / 10 + 1;
                for (int o = 1; o <= cpd; o++) {
                    boolean delivered = o < firstUndelivered;
                    int lines = 5 + r.nextInt(11);
                    order.setInt(1, w);
                    order.setInt(2, d);
                    order.setInt(3, o);
                    order.setInt(4, permutation[o - 1]);
                    order.setLong(5, LOAD_EPOCH);
                    if (delivered) order.setInt(6, 1 + r.nextInt(10));
                    else order.setNull(6, java.sql.Types.INTEGER);
                    order.setInt(7, lines);
                    order.addBatch();
                    for (int l = 1; l <= lines; l++) {
                        line.setInt(1, w);
                        line.setInt(2, d);
                        line.setInt(3, o);
                        line.setInt(4, l);
                        line.setInt(5, 1 + r.nextInt(size.items()));
                        line.setInt(6, w);
                        if (delivered) line.setLong(7, LOAD_EPOCH);
                        else line.setNull(7, java.sql.Types.BIGINT);
                        line.setLong(8, delivered ? 0 : 1 + r.nextInt(999_999));
                        line.setString(9, TpccRandom.alpha(r, 24, 24));
                        line.addBatch();
                    }
                    if (!delivered) {
                        newOrder.setInt(1, w);
                        newOrder.setInt(2, d);
                        newOrder.setInt(3, o);
                        newOrder.addBatch();
                    }
                }
                order.executeBatch();
                line.executeBatch();
                newOrder.executeBatch();
            }
        }
    }

    /** Name, two streets, city, state, zip at parameters {@code from}..{@code from + 5}. */
    private static void address(PreparedStatement ps, int from, SplittableRandom r) throws SQLException {
        ps.setString(from, TpccRandom.alpha(r, 6, 10));
        ps.setString(from + 1, TpccRandom.alpha(r, 10, 20));
        ps.setString(from + 2, TpccRandom.alpha(r, 10, 20));
        ps.setString(from + 3, TpccRandom.alpha(r, 10, 20));
        ps.setString(from + 4, TpccRandom.alpha(r, 2, 2).toUpperCase());
        ps.setString(from + 5, TpccRandom.zip(r));
    }

    private static void batch(PreparedStatement ps, int i) throws SQLException {
        ps.addBatch();
        if (i % BATCH == 0) ps.executeBatch();
    }
}
