package dev.gyro.apps.tpcc;

import java.util.SplittableRandom;

/** The specification's random functions: NURand, last names from syllables, random strings. */
public final class TpccRandom {

    private TpccRandom() {}

    private static final String[] SYLLABLES = {"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"};

    /** The last name of number {@code n} (0-999): its three digits' syllables. */
    public static String lastName(int n) {
        return SYLLABLES[n / 100] + SYLLABLES[(n / 10) % 10] + SYLLABLES[n % 10];
    }

    /**
     * Non-uniform random number in [x, y]: {@code (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x}. A is the
     * largest of the specification's constants (255, 1023, 8191) that is not beyond the range, so scaled-down
     * databases keep the skew.
     */
    public static int nuRand(SplittableRandom r, int a, int c, int x, int y) {
        int span = y - x + 1;
        while (a > 1 && a >= span) a = a / 2; // 1023 -> 511 -> 255 ... all of the form 2^k - 1
        return (((r.nextInt(a + 1) | (x + r.nextInt(span))) + c) % span) + x;
    }

    static String alpha(SplittableRandom r, int min, int max) {
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

    static String zip(SplittableRandom r) {
        return digits(r, 4) + "11111";
    }

    /** A data string of which 10% contain "ORIGINAL" somewhere (items and stock). */
    static String data(SplittableRandom r) {
        String s = alpha(r, 26, 50);
        if (r.nextInt(10) == 0) {
            int at = r.nextInt(s.length() - 8);
            s = s.substring(0, at) + "ORIGINAL" + s.substring(at + 8);
        }
        return s;
    }
}
