package dev.gyro.apps.tpcw;

import java.util.List;
import java.util.SplittableRandom;

/**
 * Value generators of the TPC-W population, in our own code after the public specification's rules: user names
 * from digit syllables, the 24 subjects, titles and author names from a fixed vocabulary (so searches find
 * something), and the constants the transactions and the workload share.
 */
public final class TpcwData {

    private TpcwData() {}

    /** The instant the population is dated from (2020-01-01T00:00Z): the loader never reads a clock. */
    public static final long LOAD_EPOCH = 1_577_836_800_000L;
    static final long DAY = 86_400_000L;

    public static final List<String> SUBJECTS = List.of("ARTS", "BIOGRAPHIES", "BUSINESS", "CHILDREN", "COMPUTERS",
            "COOKING", "HEALTH", "HISTORY", "HOME", "HUMOR", "LITERATURE", "MYSTERY", "NON-FICTION", "PARENTING",
            "POLITICS", "REFERENCE", "RELIGION", "ROMANCE", "SELF-HELP", "SCIENCE-NATURE", "SCIENCE-FICTION",
            "SPORTS", "YOUTH", "TRAVEL");
    static final List<String> BACKINGS = List.of("HARDBACK", "PAPERBACK", "USED", "AUDIO", "LIMITED-EDITION");
    public static final List<String> CARD_TYPES = List.of("VISA", "MASTERCARD", "DISCOVER", "AMEX", "DINERS");
    public static final List<String> SHIP_TYPES = List.of("AIR", "UPS", "FEDEX", "SHIP", "COURIER", "MAIL");
    static final List<String> STATUSES = List.of("PROCESSING", "SHIPPED", "PENDING", "DENIED");
    public static final int COUNTRIES = 92;

    private static final String[] SYLLABLES = {"BA", "OG", "AL", "RI", "RE", "SE", "AT", "UL", "IN", "NG"};

    /** The specification's digit-syllable encoding: 1207 becomes "OGBAALAT". */
    public static String digSyl(long n) {
        String digits = Long.toString(n);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < digits.length(); i++) b.append(SYLLABLES[digits.charAt(i) - '0']);
        return b.toString();
    }

    /** The user name of customer {@code id}; the password is its lower case. */
    public static String userName(long id) {
        return digSyl(id);
    }

    /** Word {@code k} (0-99) of the title vocabulary. */
    public static String word(int k) {
        return SYLLABLES[k / 10] + SYLLABLES[k % 10] + "S";
    }

    static String title(SplittableRandom r) {
        int words = 2 + r.nextInt(3);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < words; i++) {
            if (i > 0) b.append(' ');
            b.append(word(r.nextInt(100)));
        }
        return b.toString();
    }

    /** Random letters, length in [min, max]. */
    static String letters(SplittableRandom r, int min, int max) {
        int n = min + r.nextInt(max - min + 1);
        char[] c = new char[n];
        for (int i = 0; i < n; i++) c[i] = (char) ('a' + r.nextInt(26));
        return new String(c);
    }

    static String digits(SplittableRandom r, int n) {
        char[] c = new char[n];
        for (int i = 0; i < n; i++) c[i] = (char) ('0' + r.nextInt(10));
        return new String(c);
    }
}
