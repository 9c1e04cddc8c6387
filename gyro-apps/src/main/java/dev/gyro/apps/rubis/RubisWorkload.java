package dev.gyro.apps.rubis;

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
 * RUBiS's emulated users. Each session is a user (a loaded one, chosen at random), picks its next interaction with
 * the frequencies of the chosen mix, and runs the transactions behind it: a login before bidding, buying, commenting
 * and its own page, the form before each store step (abandoned 30% of the time, as users do), the auction it last
 * saw in a search, the auctions it sells. The bidding mix (default) has about 15% of requests that write; the
 * browsing mix only reads.
 *
 * <p>Homed ({@link Homing}), a user is a home user, picks home auctions (a home one among those a search showed it
 * when there is one), views and rates home users, and browses a home region. Ids the database assigns stay where
 * their partition is: the auctions the user registered (the global registerItem allocates from IDS.ITEMS), and so
 * do the store steps on them. A user it registers (registerUser allocates from IDS.USERS) becomes the session's user
 * only when it is home (see {@code learn}).
 *
 * <p>Options: {@code mix} (bidding, browsing), {@code think-ms} (mean of the negative-exponential think time; 0).
 */
final class RubisWorkload implements Workload {

    enum Interaction { BROWSE_CATEGORIES, BROWSE_REGIONS, BROWSE_CATEGORIES_IN_REGION, SEARCH_BY_CATEGORY, SEARCH_BY_REGION,
        VIEW_ITEM, VIEW_OLD_ITEM, VIEW_BID_HISTORY, VIEW_USER_INFO, ABOUT_ME, BID, BUY_NOW, COMMENT, SELL, REGISTER,
        RETRACT, UPDATE_ITEM, UPDATE_USER, CLOSE_AUCTION }

    /** Percent of interactions, in {@link Interaction} order. */
    static final Map<String, double[]> MIXES = Map.of(
            "bidding", new double[] {6, 3, 3, 14, 7, 14, 2, 5, 5, 3, 10, 3, 3, 2.5, 1, 0.7, 0.5, 0.3, 0.5},
            "browsing", new double[] {10, 5, 5, 25, 12, 25, 3, 8, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});

    private final Rubis.Size size;
    private final WeightedMix mix;

    private RubisWorkload(Rubis.Size size, String mix, long thinkMillis) {
        this.size = size;
        this.mix = new WeightedMix(mix, MIXES.get(mix), thinkMillis);
    }

    static RubisWorkload of(Rubis.Size size, WorkloadOptions options) {
        options.requireOnly(Rubis.NAME, Set.of("mix", "think-ms"));
        return new RubisWorkload(size, options.choice("mix", "bidding", MIXES.keySet()),
                options.longValue("think-ms", 0, 0, 600_000));
    }

    @Override
    public String describe() {
        return mix.describe();
    }

    @Override
    public ClientSession newSession(int index, SplittableRandom random) {
        return new User(index, random, Homing.ANYWHERE);
    }

    @Override
    public ClientSession newSession(int index, SplittableRandom random, Homing homing) {
        return new User(index, random, homing);
    }

    final class User implements ClientSession {
        private final int index;
        private final SplittableRandom r;
        private final Homing homing;
        private final Deque<Supplier<Call>> steps = new ArrayDeque<>();
        private long userId;
        private String nickname, password;
        private final List<Long> seen = new ArrayList<>();     // auctions on the last search page
        private final List<Long> selling = new ArrayList<>();  // auctions this user registered
        private long lastBidItem;
        private long[] form = null;                             // initial price, highest bid of the last bid form
        private boolean hasBid;
        private Call inFlight;

        User(int index, SplittableRandom r, Homing homing) {
            this.index = index;
            this.r = r;
            this.homing = homing;
            userId = homing.draw(() -> 1 + r.nextInt(size.users()));
            nickname = Rubis.nickname(userId);
            password = Rubis.password(userId);
        }

        @Override
        public Call next(Outcome previous) {
            if (inFlight != null && previous != null) learn(inFlight, previous);
            Call call = null;
            while (call == null) {
                boolean fresh = steps.isEmpty();
                if (fresh) plan(pick());
                Supplier<Call> step = steps.poll();
                call = step == null ? null : step.get();
                if (call != null && fresh && mix.thinkMillis() > 0) call = call.afterThinking(mix.thinkTime(r));
            }
            inFlight = call;
            return call;
        }

        private Interaction pick() {
            return Interaction.values()[mix.pick(r, Interaction.VIEW_ITEM.ordinal())];
        }

        private void learn(Call call, Outcome o) {
            switch (call.transaction()) {
                case "searchItemsByCategory", "searchItemsByRegion" -> {
                    if (!o.ok() || o.values().isEmpty()) return;
                    seen.clear();
                    for (int i = 0; i < o.values().size(); i += 4) seen.add(o.longAt(i));
                }
                case "putBid" -> form = o.ok() ? new long[] {o.longAt(1), o.longAt(2)} : null;
                case "retractBidForm" -> hasBid = o.ok() && !o.values().isEmpty();
                case "registerItem" -> { if (o.ok()) selling.add(o.longValue()); }
                case "closeAuction" -> selling.remove(call.parameters().get(0));
                case "registerUser" -> {
                    // Homed, the session goes on as the new user only when that user is home. RUBiS's own client
                    // emulator picks the user of each interaction at random, not the one it registered; and a session
                    // that went on as a user of another instance would make every later bid, purchase and comment
                    // global (at 5 instances, 4 times in 5), which the paper's WAN clients, working on their nearest
                    // instance's data (Table III), do not do. Unhomed, every user is home: it always goes on as it.
                    if (o.ok() && homing.owns(o.longValue())) {
                        userId = o.longValue();
                        nickname = (String) call.parameters().get(2);
                        password = (String) call.parameters().get(3);
                        selling.clear(); // a new user: what the old one sold and bid on is not theirs
                        lastBidItem = 0;
                    }
                }
                case "authenticate" -> { if (!o.ok()) steps.clear(); }
                default -> { }
            }
        }

        /**
         * Three times in four an auction the last search showed (a home one, when it showed one), else one of the
         * loaded open auctions.
         */
        private long anOpenItem() {
            if (!seen.isEmpty() && r.nextInt(4) > 0) {
                List<Long> home = homing.homeOf(seen);
                if (!home.isEmpty()) return home.get(r.nextInt(home.size()));
            }
            return homing.draw(() -> size.oldItems() + 1 + r.nextInt(size.items()));
        }

        /** Another user to view or rate (viewUserInfo, storeComment are partitioned by that user). */
        private long aUser() {
            return homing.draw(() -> 1 + r.nextInt(size.users()));
        }

        private int aCategory() {
            return 1 + r.nextInt(RubisLoader.CATEGORIES.size());
        }

        /** A region; home for browseCategoriesInRegion, the one request partitioned by it. */
        private int aRegion(Homing h) {
            return (int) h.draw(() -> 1 + r.nextInt(RubisLoader.REGIONS));
        }

        private void step(Supplier<Call> s) {
            steps.add(s);
        }

        private void login(String page) {
            String n = nickname, p = password;
            step(() -> Call.of("authenticate", n, p).during(page));
        }

        private void plan(Interaction in) {
            String page = in.name().toLowerCase().replace('_', ' ');
            switch (in) {
                case BROWSE_CATEGORIES -> step(() -> Call.of("browseCategories").during(page));
                case BROWSE_REGIONS -> step(() -> Call.of("browseRegions").during(page));
                case BROWSE_CATEGORIES_IN_REGION -> { int g = aRegion(homing); step(() -> Call.of("browseCategoriesInRegion", g).during(page)); }
                case SEARCH_BY_CATEGORY -> {
                    int c = aCategory(), p = r.nextInt(3);
                    step(() -> Call.of("searchItemsByCategory", c, p, 20).during(page));
                }
                case SEARCH_BY_REGION -> {
                    int g = aRegion(Homing.ANYWHERE), c = aCategory();
                    step(() -> Call.of("searchItemsByRegion", g, c, 0, 20).during(page));
                }
                case VIEW_ITEM -> { long i = anOpenItem(); step(() -> Call.of("viewItem", i).during(page)); }
                case VIEW_OLD_ITEM -> {
                    long i = 1 + r.nextInt(Math.max(1, size.oldItems()));
                    step(() -> Call.of("viewOldItem", i).during(page));
                }
                case VIEW_BID_HISTORY -> { long i = anOpenItem(); step(() -> Call.of("viewBidHistory", i).during(page)); }
                case VIEW_USER_INFO -> { long u = aUser(); step(() -> Call.of("viewUserInfo", u).during(page)); }
                case ABOUT_ME -> {
                    login(page);
                    step(() -> Call.of("aboutMe", userId).during(page));
                }
                case BID -> {
                    long item = anOpenItem();
                    login(page);
                    step(() -> Call.of("putBid", item, userId).during(page));
                    if (r.nextInt(10) < 7) step(() -> {
                        if (form == null) return null;
                        long bid = Math.max(form[0], form[1] + 1) + r.nextInt(100);
                        lastBidItem = item;
                        return Call.of("storeBid", item, userId, bid, bid + r.nextInt(500), 1).during(page);
                    });
                }
                case BUY_NOW -> {
                    long item = anOpenItem();
                    login(page);
                    step(() -> Call.of("buyNow", item, userId).during(page));
                    if (r.nextInt(10) < 7) step(() -> Call.of("storeBuyNow", item, userId, 1).during(page));
                }
                case COMMENT -> {
                    long to = aUser(), item = anOpenItem();
                    if (to == userId) return;
                    int stars = r.nextInt(11) - 5;
                    String text = Rubis.letters(r, 20, 100);
                    login(page);
                    step(() -> Call.of("putComment", to, userId).during(page));
                    if (r.nextInt(10) < 7) step(() -> Call.of("storeComment", to, userId, item, stars, text).during(page));
                }
                case SELL -> {
                    int c = aCategory();
                    long initial = 100 + r.nextInt(10_000);
                    int days = 1 + r.nextInt(7);
                    String name = Rubis.itemName(r), description = Rubis.letters(r, 20, 200);
                    step(() -> Call.of("selectCategoryToSellItem", userId).during(page));
                    step(() -> Call.of("sellItemForm", c, userId).during(page));
                    step(() -> Call.of("registerItem", userId, c, name, description, initial, 0L,
                            r.nextInt(3) == 0 ? 3 * initial : 0L, 1 + r.nextInt(3), days).during(page));
                }
                case REGISTER -> {
                    String nick = "s" + index + "-" + r.nextLong(1_000_000_000_000L);
                    String first = Rubis.letters(r, 4, 20), last = Rubis.letters(r, 4, 20);
                    int g = aRegion(Homing.ANYWHERE);
                    step(() -> Call.of("registerUser", first, last, nick, "pw-" + nick, nick + "@example.com", g).during(page));
                }
                case RETRACT -> {
                    if (lastBidItem == 0) { plan(Interaction.BID); return; }
                    long item = lastBidItem;
                    step(() -> Call.of("retractBidForm", item, userId).during(page));
                    step(() -> hasBid ? Call.of("retractBid", item, userId).during(page) : null);
                }
                case UPDATE_ITEM -> {
                    if (selling.isEmpty()) { plan(Interaction.SELL); return; }
                    long item = selling.get(r.nextInt(selling.size()));
                    String description = Rubis.letters(r, 20, 200);
                    long buyNow = r.nextInt(2) == 0 ? 0 : 100 + r.nextInt(30_000);
                    step(() -> Call.of("updateItem", item, userId, description, buyNow).during(page));
                }
                case UPDATE_USER -> {
                    String mail = Rubis.letters(r, 5, 20) + "@example.org";
                    step(() -> Call.of("updateUserInfo", userId, mail, password).during(page));
                }
                case CLOSE_AUCTION -> {
                    if (selling.isEmpty()) { plan(Interaction.SELL); return; }
                    long item = selling.get(r.nextInt(selling.size()));
                    step(() -> Call.of("closeAuction", item, userId).during(page));
                }
            }
        }
    }
}
