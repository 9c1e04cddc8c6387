package dev.gyro.apps.tpcw;

import dev.gyro.app.LoadProgress;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.SplittableRandom;

/**
 * Loads the TPC-W population, identically on every instance: one seeded random stream per table, no clock (dates
 * count back from {@link TpcwData#LOAD_EPOCH}). Sizes follow the specification's ratios: a quarter as many authors
 * as items, two addresses per customer, 0.9 orders per customer with 1-5 lines each and one card transaction.
 */
final class TpcwLoader {

    static final String INSERT_COUNTRY = "INSERT INTO COUNTRY (CO_ID, CO_NAME, CO_EXCHANGE_PPM, CO_CURRENCY) VALUES (?, ?, ?, ?)";
    static final String INSERT_AUTHOR = "INSERT INTO AUTHOR (A_ID, A_FNAME, A_LNAME, A_MNAME, A_DOB, A_BIO) VALUES (?, ?, ?, ?, ?, ?)";
    static final String INSERT_ITEM = "INSERT INTO ITEM (I_ID, I_TITLE, I_A_ID, I_PUB_DATE, I_PUBLISHER, I_SUBJECT, "
            + "I_DESC, I_RELATED1, I_RELATED2, I_RELATED3, I_RELATED4, I_RELATED5, I_THUMBNAIL, I_IMAGE, I_SRP, I_COST, "
            + "I_AVAIL, I_STOCK, I_ISBN, I_PAGE, I_BACKING, I_DIMENSIONS) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    static final String INSERT_CUSTOMER = "INSERT INTO CUSTOMER (C_ID, C_UNAME, C_PASSWD, C_FNAME, C_LNAME, C_ADDR_ID, "
            + "C_PHONE, C_EMAIL, C_SINCE, C_LAST_LOGIN, C_LOGIN, C_EXPIRATION, C_DISCOUNT_BP, C_BALANCE, C_YTD_PMT, "
            + "C_BIRTHDATE, C_DATA) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    static final String INSERT_ADDRESS = "INSERT INTO ADDRESS (ADDR_ID, ADDR_STREET1, ADDR_STREET2, ADDR_CITY, "
            + "ADDR_STATE, ADDR_ZIP, ADDR_CO_ID) VALUES (?, ?, ?, ?, ?, ?, ?)";
    static final String INSERT_ORDER = "INSERT INTO ORDERS (O_ID, O_C_ID, O_DATE, O_SUB_TOTAL, O_TAX, O_TOTAL, "
            + "O_SHIP_TYPE, O_SHIP_DATE, O_BILL_ADDR_ID, O_SHIP_ADDR_ID, O_STATUS) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    static final String INSERT_LINE = "INSERT INTO ORDER_LINE (OL_O_ID, OL_ID, OL_I_ID, OL_QTY, OL_DISCOUNT_BP, "
            + "OL_COMMENTS) VALUES (?, ?, ?, ?, ?, ?)";
    static final String INSERT_XACT = "INSERT INTO CC_XACTS (CX_O_ID, CX_TYPE, CX_NUM, CX_NAME, CX_EXPIRE, CX_AUTH_ID, "
            + "CX_XACT_AMT, CX_XACT_DATE, CX_CO_ID) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";

    private static final int BATCH = 1000;

    private TpcwLoader() {}

    static void load(Connection c, Tpcw.Size size, long seed, LoadProgress progress) throws SQLException {
        int items = size.items(), customers = size.customers();
        int authors = Math.max(1, items / 4), addresses = 2 * customers, orders = customers * 9 / 10;
        double total = TpcwData.COUNTRIES + authors + items + customers + addresses + orders;
        double[] done = {0};

        SplittableRandom r = new SplittableRandom(seed ^ 0x1001);
        try (PreparedStatement ps = c.prepareStatement(INSERT_COUNTRY)) {
            for (int i = 1; i <= TpcwData.COUNTRIES; i++) {
                ps.setInt(1, i);
                ps.setString(2, "COUNTRY-" + i);
                ps.setLong(3, 10_000 + r.nextInt(10_000_000));
                ps.setString(4, "CURRENCY-" + i);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        progress.update((done[0] += TpcwData.COUNTRIES) / total, "COUNTRY " + TpcwData.COUNTRIES);

        r = new SplittableRandom(seed ^ 0x2002);
        try (PreparedStatement ps = c.prepareStatement(INSERT_AUTHOR)) {
            for (int i = 1; i <= authors; i++) {
                ps.setLong(1, i);
                ps.setString(2, TpcwData.letters(r, 3, 20));
                ps.setString(3, authorName(r));
                ps.setString(4, TpcwData.letters(r, 1, 20));
                ps.setLong(5, TpcwData.LOAD_EPOCH - (20 * 365L + r.nextInt(60 * 365)) * TpcwData.DAY);
                ps.setString(6, TpcwData.letters(r, 20, 60));
                batch(ps, i);
            }
            ps.executeBatch();
        }
        progress.update((done[0] += authors) / total, "AUTHOR " + authors);

        r = new SplittableRandom(seed ^ 0x3003);
        try (PreparedStatement ps = c.prepareStatement(INSERT_ITEM)) {
            for (int i = 1; i <= items; i++) {
                long pub = TpcwData.LOAD_EPOCH - r.nextInt(5 * 365) * TpcwData.DAY;
                long srp = 100 + r.nextInt(99_900);
                ps.setLong(1, i);
                ps.setString(2, TpcwData.title(r));
                ps.setLong(3, 1 + r.nextInt(authors));
                ps.setLong(4, pub);
                ps.setString(5, TpcwData.letters(r, 14, 60));
                ps.setString(6, TpcwData.SUBJECTS.get(r.nextInt(TpcwData.SUBJECTS.size())));
                ps.setString(7, TpcwData.letters(r, 20, 100));
                for (int k = 0; k < 5; k++) ps.setLong(8 + k, 1 + r.nextInt(items));
                ps.setString(13, "img/thumb_" + i + ".gif");
                ps.setString(14, "img/image_" + i + ".gif");
                ps.setLong(15, srp);
                ps.setLong(16, srp / 2 + r.nextLong(srp / 2 + 1));
                ps.setLong(17, pub + (1 + r.nextInt(30)) * TpcwData.DAY);
                ps.setInt(18, 10 + r.nextInt(21));
                ps.setString(19, TpcwData.digits(r, 13));
                ps.setInt(20, 20 + r.nextInt(9980));
                ps.setString(21, TpcwData.BACKINGS.get(r.nextInt(TpcwData.BACKINGS.size())));
                ps.setString(22, (1 + r.nextInt(99)) + ".00 x " + (1 + r.nextInt(99)) + ".00 x " + (1 + r.nextInt(99)) + ".00");
                batch(ps, i);
                if (i % 10_000 == 0) progress.update((done[0] + i) / total, "ITEM " + i + "/" + items);
            }
            ps.executeBatch();
        }
        progress.update((done[0] += items) / total, "ITEM " + items);

        r = new SplittableRandom(seed ^ 0x4004);
        try (PreparedStatement ps = c.prepareStatement(INSERT_CUSTOMER)) {
            for (int i = 1; i <= customers; i++) {
                long since = TpcwData.LOAD_EPOCH - (1 + r.nextInt(730)) * TpcwData.DAY;
                long login = since + r.nextInt(60) * TpcwData.DAY;
                ps.setLong(1, i);
                ps.setString(2, TpcwData.userName(i));
                ps.setString(3, TpcwData.userName(i).toLowerCase());
                ps.setString(4, TpcwData.letters(r, 8, 15));
                ps.setString(5, TpcwData.letters(r, 8, 15));
                ps.setLong(6, 1 + r.nextInt(addresses));
                ps.setString(7, TpcwData.digits(r, 12));
                ps.setString(8, TpcwData.userName(i).toLowerCase() + "@example.com");
                ps.setLong(9, since);
                ps.setLong(10, login);
                ps.setLong(11, login);
                ps.setLong(12, login + 2 * 3_600_000L);
                ps.setInt(13, r.nextInt(51) * 100);
                ps.setLong(14, 0);
                ps.setLong(15, r.nextInt(100_000));
                ps.setLong(16, TpcwData.LOAD_EPOCH - (18 * 365L + r.nextInt(60 * 365)) * TpcwData.DAY);
                ps.setString(17, TpcwData.letters(r, 20, 100));
                batch(ps, i);
                if (i % 10_000 == 0) progress.update((done[0] + i) / total, "CUSTOMER " + i + "/" + customers);
            }
            ps.executeBatch();
        }
        progress.update((done[0] += customers) / total, "CUSTOMER " + customers);

        r = new SplittableRandom(seed ^ 0x5005);
        try (PreparedStatement ps = c.prepareStatement(INSERT_ADDRESS)) {
            for (int i = 1; i <= addresses; i++) {
                ps.setLong(1, i);
                ps.setString(2, TpcwData.letters(r, 15, 40));
                ps.setString(3, TpcwData.letters(r, 15, 40));
                ps.setString(4, TpcwData.letters(r, 4, 30));
                ps.setString(5, TpcwData.letters(r, 2, 20));
                ps.setString(6, TpcwData.digits(r, 5));
                ps.setInt(7, 1 + r.nextInt(TpcwData.COUNTRIES));
                batch(ps, i);
            }
            ps.executeBatch();
        }
        progress.update((done[0] += addresses) / total, "ADDRESS " + addresses);

        r = new SplittableRandom(seed ^ 0x6006);
        try (PreparedStatement order = c.prepareStatement(INSERT_ORDER);
             PreparedStatement line = c.prepareStatement(INSERT_LINE);
             PreparedStatement xact = c.prepareStatement(INSERT_XACT)) {
            for (int o = 1; o <= orders; o++) {
                long date = TpcwData.LOAD_EPOCH - (1 + r.nextInt(60)) * TpcwData.DAY;
                int lines = 1 + r.nextInt(5);
                long subTotal = 0;
                int units = 0;
                for (int l = 1; l <= lines; l++) {
                    int qty = 1 + r.nextInt(300);
                    int discount = r.nextInt(4) * 100;
                    long cost = 100 + r.nextInt(9_900);
                    subTotal += cost * qty * (10_000 - discount) / 10_000;
                    units += qty;
                    line.setLong(1, o);
                    line.setInt(2, l);
                    line.setLong(3, 1 + r.nextInt(items));
                    line.setInt(4, qty);
                    line.setInt(5, discount);
                    line.setString(6, TpcwData.letters(r, 20, 100));
                    line.addBatch();
                }
                long tax = Tpcw.tax(subTotal);
                long amount = subTotal + tax + Tpcw.shipping(units);
                int country = 1 + r.nextInt(TpcwData.COUNTRIES);
                order.setLong(1, o);
                order.setLong(2, 1 + r.nextInt(customers));
                order.setLong(3, date);
                order.setLong(4, subTotal);
                order.setLong(5, tax);
                order.setLong(6, amount);
                order.setString(7, TpcwData.SHIP_TYPES.get(r.nextInt(TpcwData.SHIP_TYPES.size())));
                order.setLong(8, date + r.nextInt(8) * TpcwData.DAY);
                order.setLong(9, 1 + r.nextInt(addresses));
                order.setLong(10, 1 + r.nextInt(addresses));
                order.setString(11, TpcwData.STATUSES.get(r.nextInt(TpcwData.STATUSES.size())));
                order.addBatch();
                xact.setLong(1, o);
                xact.setString(2, TpcwData.CARD_TYPES.get(r.nextInt(TpcwData.CARD_TYPES.size())));
                xact.setString(3, TpcwData.digits(r, 16));
                xact.setString(4, TpcwData.letters(r, 14, 30));
                xact.setLong(5, date + (10 + r.nextInt(720)) * TpcwData.DAY);
                xact.setString(6, TpcwData.letters(r, 15, 15));
                xact.setLong(7, amount);
                xact.setLong(8, date);
                xact.setInt(9, country);
                xact.addBatch();
                if (o % BATCH == 0) {
                    order.executeBatch();
                    line.executeBatch();
                    xact.executeBatch();
                    progress.update((done[0] + o) / total, "ORDERS " + o + "/" + orders);
                }
            }
            order.executeBatch();
            line.executeBatch();
            xact.executeBatch();
        }
        progress.update(1, "ORDERS " + orders);
    }

    /** Author last names come from the same syllables as user names, so an author search by prefix finds some. */
    static String authorName(SplittableRandom r) {
        return TpcwData.digSyl(10 + r.nextInt(90)) + TpcwData.letters(r, 0, 6).toUpperCase();
    }

    private static void batch(PreparedStatement ps, int i) throws SQLException {
        ps.addBatch();
        if (i % BATCH == 0) ps.executeBatch();
    }
}
