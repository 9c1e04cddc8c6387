package dev.gyro.apps.tpcw;

import dev.gyro.app.Call;
import dev.gyro.app.ClientSession;
import dev.gyro.app.Homing;
import dev.gyro.app.Outcome;
import dev.gyro.app.Workload;
import dev.gyro.app.WorkloadOptions;
import dev.gyro.apps.WeightedMix;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * TPC-W's emulated browsers. Each session picks its next web interaction with the frequencies of the chosen mix
 * (the specification's browsing, shopping and ordering mixes; shopping by default), runs the database transactions
 * behind it, and keeps what a browser keeps: its customer (80% of sessions are returning customers; the others
 * register at their first Buy Request), its shopping cart, the books it last saw. An interaction whose page cannot
 * be reached yet is replaced by the one that leads to it (Buy Confirm without a Buy Request runs the Buy Request),
 * which keeps each session's sequence plausible at a small cost in exact frequencies.
 *
 * <p>Homed ({@link Homing}), a browser is a returning customer whose id and user name are both home, and picks home
 * books (a home one among those a page showed it when there is one). Its shopping cart's id and a new customer's id
 * are assigned by the database (the global createEmptyCart and createNewCustomer take the next MAX + 1), so requests
 * of its cart (doCart, getCart, doBuyConfirm) and of a customer it registered run wherever that id's partition is.
 *
 * <p>Options: {@code mix} (browsing, shopping, ordering), {@code think-ms} (mean of the negative-exponential think
 * time, capped at ten times the mean; default 0: closed loop at full speed).
 */
final class TpcwWorkload implements Workload {

    enum Interaction { HOME, NEW_PRODUCTS, BEST_SELLERS, PRODUCT_DETAIL, SEARCH_REQUEST, SEARCH_RESULTS, SHOPPING_CART,
        CUSTOMER_REGISTRATION, BUY_REQUEST, BUY_CONFIRM, ORDER_INQUIRY, ORDER_DISPLAY, ADMIN_REQUEST, ADMIN_CONFIRM }

    /** Percent of interactions per mix, in {@link Interaction} order (TPC-W specification, clause 5.2). */
    static final Map<String, double[]> MIXES = Map.of(
            "browsing", new double[] {29.00, 11.00, 11.00, 21.00, 12.00, 11.00, 2.00, 0.82, 0.75, 0.69, 0.30, 0.25, 0.10, 0.09},
            "shopping", new double[] {16.00, 5.00, 5.00, 17.00, 20.00, 17.00, 11.60, 3.00, 2.60, 1.20, 0.75, 0.66, 0.10, 0.09},
            "ordering", new double[] {9.12, 0.46, 0.46, 12.35, 14.53, 13.08, 13.53, 12.86, 12.73, 10.18, 0.25, 0.22, 0.12, 0.11});

    private final Tpcw.Size size;
    private final WeightedMix mix;

    private TpcwWorkload(Tpcw.Size size, String mix, long thinkMillis) {
        this.size = size;
        this.mix = new WeightedMix(mix, MIXES.get(mix), thinkMillis);
    }

    static TpcwWorkload of(Tpcw.Size size, WorkloadOptions options) {
        options.requireOnly(Tpcw.NAME, Set.of("mix", "think-ms"));
        return new TpcwWorkload(size, options.choice("mix", "shopping", MIXES.keySet()),
                options.longValue("think-ms", 0, 0, 600_000));
    }

    @Override
    public String describe() {
        return mix.describe();
    }

    @Override
    public ClientSession newSession(int index, SplittableRandom random) {
        return new Browser(random, Homing.ANYWHERE);
    }

    @Override
    public ClientSession newSession(int index, SplittableRandom random, Homing homing) {
        return new Browser(random, homing);
    }

    Interaction pick(SplittableRandom r) {
        return Interaction.values()[mix.pick(r, Interaction.HOME.ordinal())];
    }

    /** One emulated browser. */
    final class Browser implements ClientSession {
        private final SplittableRandom r;
        private final Homing homing;
        private final Deque<Supplier<Call>> steps = new ArrayDeque<>();
        private long customerId;      // 0 until known
        private String uname;
        private long shoppingId;      // 0 until the first Shopping Cart
        private boolean cartFilled;
        private boolean buyRequested;
        private boolean adminRequested;
        private final List<Long> seen = new ArrayList<>(); // books on the last page
        private Call inFlight;

        Browser(SplittableRandom r, Homing homing) {
            this.r = r;
            this.homing = homing;
            if (r.nextInt(100) < 80) {
                // A returning customer's requests are partitioned by its id (getName, refreshSession) or by its user
                // name (getCustomer, getPassword, getMostRecentOrder): both must be home.
                customerId = homing.drawWhere(() -> 1L + r.nextInt(size.customers()),
                        c -> homing.owns(c) && homing.owns(TpcwData.userName(c)));
                uname = TpcwData.userName(customerId);
            }
        }

        @Override
        public Call next(Outcome previous) {
            if (inFlight != null && previous != null) learn(inFlight, previous);
            Call call = null;
            while (call == null) {
                boolean fresh = steps.isEmpty();
                if (fresh) plan(pick(r));
                Supplier<Call> step = steps.poll();
                call = step == null ? null : step.get();
                if (call != null && fresh) call = call.afterThinking(think());
            }
            inFlight = call;
            return call;
        }

        private long think() {
            return mix.thinkTime(r);
        }

        /** What the browser remembers from a reply. */
        private void learn(Call call, Outcome o) {
            switch (call.transaction()) {
                case "createEmptyCart" -> {
                    if (o.ok()) shoppingId = o.longValue();
                    else steps.clear();
                }
                case "createNewCustomer" -> {
                    if (o.ok()) {
                        customerId = o.longAt(0);
                        uname = o.textAt(1);
                    } else steps.clear();
                }
                case "doCart" -> cartFilled = o.ok() && !o.values().isEmpty();
                case "getCart" -> {
                    cartFilled = o.ok() && !o.values().isEmpty();
                    buyRequested = cartFilled;
                }
                case "doBuyConfirm", "doBuyConfirmWithAddress" -> {
                    buyRequested = false;
                    if (o.ok()) cartFilled = false;
                }
                case "doSubjectSearch", "doTitleSearch", "doAuthorSearch", "getNewProducts", "getBestSellers" -> {
                    if (!o.ok()) return;
                    int width = call.transaction().equals("getBestSellers") ? 5 : 4;
                    seen.clear();
                    for (int i = 0; i < o.values().size(); i += width) seen.add(o.longAt(i));
                }
                default -> { }
            }
        }

        /** A book from the whole catalogue, home when {@code h} has a home. */
        private long anyBook(Homing h) {
            return h.draw(() -> 1 + r.nextInt(size.items()));
        }

        /**
         * A book the last page showed: a home one when the page had one, else one from the catalogue (as when no
         * page was seen yet). {@link Homing#ANYWHERE} for a book that partitions no request (a cart line).
         */
        private long aSeenBook(Homing h) {
            List<Long> home = h.homeOf(seen);
            return home.isEmpty() ? anyBook(h) : home.get(r.nextInt(home.size()));
        }

        private String aSubject() {
            return TpcwData.SUBJECTS.get(r.nextInt(TpcwData.SUBJECTS.size()));
        }

        private void step(Supplier<Call> s) {
            steps.add(s);
        }

        private void plan(Interaction in) {
            String page = in.name().toLowerCase().replace('_', ' ');
            switch (in) {
                case HOME -> {
                    if (customerId > 0) { long c = customerId; step(() -> Call.of("getName", c).during(page)); }
                    long book = anyBook(homing);
                    step(() -> Call.of("getRelated", book).during(page));
                }
                case NEW_PRODUCTS -> { String s = aSubject(); step(() -> Call.of("getNewProducts", s).during(page)); }
                case BEST_SELLERS -> { String s = aSubject(); step(() -> Call.of("getBestSellers", s).during(page)); }
                case PRODUCT_DETAIL -> { long b = aSeenBook(homing); step(() -> Call.of("getBook", b).during(page)); }
                case SEARCH_REQUEST -> { long b = anyBook(homing); step(() -> Call.of("getRelated", b).during(page)); }
                case SEARCH_RESULTS -> {
                    int kind = r.nextInt(3);
                    if (kind == 0) { String s = aSubject(); step(() -> Call.of("doSubjectSearch", s).during(page)); }
                    else if (kind == 1) { String w = TpcwData.word(r.nextInt(100)); step(() -> Call.of("doTitleSearch", w).during(page)); }
                    else { String a = TpcwData.digSyl(10 + r.nextInt(90)); step(() -> Call.of("doAuthorSearch", a).during(page)); }
                }
                case SHOPPING_CART -> planCart(page);
                case CUSTOMER_REGISTRATION -> {
                    if (customerId > 0) { String u = uname; step(() -> Call.of("getPassword", u).during(page)); }
                    else planRegistration(page);
                }
                case BUY_REQUEST -> planBuyRequest(page);
                case BUY_CONFIRM -> {
                    if (!buyRequested) { planBuyRequest("buy request"); return; }
                    String card = TpcwData.CARD_TYPES.get(r.nextInt(TpcwData.CARD_TYPES.size()));
                    String ship = TpcwData.SHIP_TYPES.get(r.nextInt(TpcwData.SHIP_TYPES.size()));
                    String number = TpcwData.digits(r, 16), name = TpcwData.letters(r, 14, 30);
                    long expiry = TpcwData.LOAD_EPOCH + (400 + r.nextInt(700)) * TpcwData.DAY;
                    if (r.nextInt(100) < 5) {
                        String street = TpcwData.letters(r, 15, 40), city = TpcwData.letters(r, 4, 30);
                        String zip = TpcwData.digits(r, 5);
                        int country = 1 + r.nextInt(TpcwData.COUNTRIES);
                        step(() -> Call.of("doBuyConfirmWithAddress", shoppingId, customerId, card, number, name, expiry,
                                ship, street, "", city, "STATE", zip, country).during(page));
                    } else {
                        step(() -> Call.of("doBuyConfirm", shoppingId, customerId, card, number, name, expiry, ship)
                                .during(page));
                    }
                }
                case ORDER_INQUIRY -> {
                    long c = customerId > 0 ? customerId : homing.draw(() -> 1 + r.nextInt(size.customers()));
                    step(() -> Call.of("getUserName", c).during(page));
                }
                case ORDER_DISPLAY -> {
                    String u = uname != null ? uname : TpcwData.userName(homing.drawWhere(
                            () -> 1L + r.nextInt(size.customers()), c -> homing.owns(TpcwData.userName(c))));
                    step(() -> Call.of("getPassword", u).during(page));
                    step(() -> Call.of("getMostRecentOrder", u).during(page));
                }
                case ADMIN_REQUEST -> {
                    long b = aSeenBook(homing);
                    adminRequested = true;
                    step(() -> Call.of("getBook", b).during(page));
                }
                case ADMIN_CONFIRM -> {
                    if (!adminRequested) { plan(Interaction.ADMIN_REQUEST); return; }
                    adminRequested = false;
                    long b = aSeenBook(homing), cost = 100 + r.nextInt(9_900); // global: queued at the instance owning b
                    step(() -> Call.of("adminUpdate", b, cost, "img/image_" + b + "_new.gif", "img/thumb_" + b + "_new.gif")
                            .during(page));
                }
            }
        }

        private void planCart(String page) {
            // The cart's id comes from the database (createEmptyCart); the book is no partitioning value of doCart.
            if (shoppingId == 0) step(() -> Call.of("createEmptyCart").during(page));
            long book = aSeenBook(Homing.ANYWHERE);
            int qty = 1 + r.nextInt(3);
            step(() -> shoppingId == 0 ? null : Call.of("doCart", shoppingId, book, qty).during(page));
        }

        private void planRegistration(String page) {
            String first = TpcwData.letters(r, 8, 15), last = TpcwData.letters(r, 8, 15);
            String street = TpcwData.letters(r, 15, 40), city = TpcwData.letters(r, 4, 30), zip = TpcwData.digits(r, 5);
            int country = 1 + r.nextInt(TpcwData.COUNTRIES);
            String phone = TpcwData.digits(r, 12);
            long birth = TpcwData.LOAD_EPOCH - (18 * 365L + r.nextInt(60 * 365)) * TpcwData.DAY;
            step(() -> Call.of("createNewCustomer", first, last, street, "", city, "STATE", zip, country, phone,
                    first + "@example.com", birth, TpcwData.letters(r, 20, 60)).during(page));
        }

        private void planBuyRequest(String page) {
            if (!cartFilled) { planCart("shopping cart"); return; }
            if (customerId == 0) planRegistration(page);
            else {
                String u = uname;
                long c = customerId;
                step(() -> Call.of("getCustomer", u).during(page));
                step(() -> Call.of("refreshSession", c).during(page));
            }
            step(() -> customerId == 0 ? null : Call.of("getCart", shoppingId).during(page));
        }
    }
}
