package dev.gyro.apps.tpcc;

import dev.gyro.app.Call;
import dev.gyro.app.ClientSession;
import dev.gyro.app.Homing;
import dev.gyro.app.Workload;
import dev.gyro.app.WorkloadOptions;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * TPC-C's terminals: session i is a terminal of warehouse {@code 1 + i % warehouses}, and draws each transaction
 * from the standard mix (clause 5.2.3: 45% New-Order, 43% Payment, 4% each Order-Status, Delivery, Stock-Level)
 * with the specification's inputs: NURand customers and items, 5-15 lines, 1% of New-Orders with an unused item on
 * the last line (rolled back), 1% of lines supplied by another warehouse, 15% of payments by a customer of another
 * warehouse, 60% of customers chosen by last name.
 *
 * <p>Homed ({@link Homing}), a terminal is bound to a home warehouse: its own ({@code 1 + i % warehouses}) when that
 * one is home, else one of the home warehouses drawn from its random source (or its own when none is home: more
 * instances than warehouses). A terminal only ever sends requests of its warehouse, so that is all homing chooses;
 * remote order lines and payments still go to another warehouse drawn uniformly, as the specification asks.
 *
 * <p>Options: {@code remote-lines} and {@code remote-payments} (percent; defaults 1 and 15), {@code think-ms} (mean
 * of a negative-exponential think time; default 0).
 */
final class TpccWorkload implements Workload {

    private final Tpcc.Size size;
    private final int warehouses;
    private final double remoteLines, remotePayments;
    private final long thinkMillis;

    private TpccWorkload(Tpcc.Size size, int warehouses, double remoteLines, double remotePayments, long thinkMillis) {
        this.size = size;
        this.warehouses = warehouses;
        this.remoteLines = remoteLines;
        this.remotePayments = remotePayments;
        this.thinkMillis = thinkMillis;
    }

    static TpccWorkload of(Tpcc.Size size, int warehouses, WorkloadOptions options) {
        options.requireOnly(Tpcc.NAME, Set.of("remote-lines", "remote-payments", "think-ms"));
        return new TpccWorkload(size, warehouses, options.doubleValue("remote-lines", 1, 0, 100) / 100,
                options.doubleValue("remote-payments", 15, 0, 100) / 100, options.longValue("think-ms", 0, 0, 600_000));
    }

    @Override
    public String describe() {
        return String.format("standard mix over %d warehouses, %.0f%% remote order lines, %.0f%% remote payments, think %d ms",
                warehouses, remoteLines * 100, remotePayments * 100, thinkMillis);
    }

    @Override
    public ClientSession newSession(int index, SplittableRandom r) {
        return newSession(index, r, Homing.ANYWHERE);
    }

    @Override
    public ClientSession newSession(int index, SplittableRandom r, Homing homing) {
        int home = homeWarehouse(index, r, homing);
        return previous -> {
            int x = r.nextInt(100);
            Call call;
            if (x < 45) call = newOrder(r, home);
            else if (x < 88) call = payment(r, home);
            else if (x < 92) {
                int district = district(r);
                int[] who = customer(r);
                call = Call.of("orderStatus", home, district, who[0], lastName(who));
            } else if (x < 96) call = Call.of("delivery", home, 1 + r.nextInt(10));
            else call = Call.of("stockLevel", home, district(r), 10 + r.nextInt(11));
            return thinkMillis == 0 ? call
                    : call.afterThinking(Math.min(10 * thinkMillis, (long) (-thinkMillis * Math.log(1 - r.nextDouble()))));
        };
    }

    /** The terminal's warehouse; draws from {@code r} only when its own warehouse is not home. */
    private int homeWarehouse(int index, SplittableRandom r, Homing homing) {
        int own = 1 + index % warehouses;
        if (homing.owns(own)) return own;
        List<Integer> home = new ArrayList<>();
        for (int w = 1; w <= warehouses; w++) if (homing.owns(w)) home.add(w);
        return home.isEmpty() ? own : home.get(r.nextInt(home.size()));
    }

    private Call newOrder(SplittableRandom r, int home) {
        int lines = 5 + r.nextInt(11);
        boolean rollback = r.nextInt(100) == 0;
        int remote = home;
        StringBuilder b = new StringBuilder();
        for (int n = 1; n <= lines; n++) {
            int item = rollback && n == lines ? size.items() + 1
                    : TpccRandom.nuRand(r, 8191, Tpcc.C_ITEM, 1, size.items());
            int supply = home;
            if (warehouses > 1 && r.nextDouble() < remoteLines) {
                if (remote == home) remote = otherWarehouse(r, home);
                supply = remote;
            }
            if (n > 1) b.append(';');
            b.append(item).append(':').append(supply).append(':').append(1 + r.nextInt(10));
        }
        return Call.of("newOrder", home, district(r), TpccRandom.nuRand(r, 1023, Tpcc.C_ID, 1, size.customersPerDistrict()),
                remote, b.toString()).during(remote == home ? "new-order" : "new-order (remote)");
    }

    private Call payment(SplittableRandom r, int home) {
        int district = district(r);
        int customerWarehouse = home, customerDistrict = district;
        if (warehouses > 1 && r.nextDouble() < remotePayments) {
            customerWarehouse = otherWarehouse(r, home);
            customerDistrict = district(r);
        }
        int[] who = customer(r);
        return Call.of("payment", home, district, customerWarehouse, customerDistrict, who[0], lastName(who),
                100L + r.nextInt(499_901)).during(customerWarehouse == home ? "payment" : "payment (remote)");
    }

    /** 60% by last name ({0, name number}), 40% by number ({id, -1}). */
    private int[] customer(SplittableRandom r) {
        int cpd = size.customersPerDistrict();
        if (r.nextInt(100) < 60) return new int[] {0, TpccRandom.nuRand(r, 255, Tpcc.C_LAST_RUN, 0, Math.min(999, cpd - 1))};
        return new int[] {TpccRandom.nuRand(r, 1023, Tpcc.C_ID, 1, cpd), -1};
    }

    private static String lastName(int[] who) {
        return who[0] == 0 ? TpccRandom.lastName(who[1]) : "";
    }

    private int otherWarehouse(SplittableRandom r, int home) {
        int w = 1 + r.nextInt(warehouses - 1);
        return w >= home ? w + 1 : w;
    }

    private static int district(SplittableRandom r) {
        return 1 + r.nextInt(10);
    }
}
