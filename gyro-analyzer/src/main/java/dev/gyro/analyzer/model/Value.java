package dev.gyro.analyzer.model;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.Objects;

/**
 * What a column is bound to in a condition (paper, Section VI: "the condition binds the value of the
 * input parameters of the transaction ... with the values of the table attributes"): an input parameter
 * of the transaction, a constant, or a free value.
 *
 * <p>A free value is one the analysis cannot trace to an input parameter or a constant (a value read
 * from the database, a random number, a loop variable, an arithmetic result). It is never guessed: each
 * free value is a distinct unknown that may equal anything, so it never makes a conflict condition
 * unsatisfiable and never lets a partitioning localize a conflict (docs/decisions/08-conservative-analyzer.md).
 */
public sealed interface Value permits Value.Param, Value.Constant, Value.Free {

    /** An input parameter of the transaction, by its name ({@code cartId}, {@code order.cartId}). */
    record Param(String name) implements Value {
        public Param {
            Objects.requireNonNull(name, "name");
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /**
     * A constant. Numbers are normalized ({@code 1.0} and {@code 1} are the same constant); strings keep
     * their text.
     */
    record Constant(String text, boolean numeric) implements Value {
        public static Constant number(String literal) {
            String t = literal.trim();
            if (t.endsWith("L") || t.endsWith("l") || t.endsWith("d") || t.endsWith("D")
                    || t.endsWith("f") || t.endsWith("F")) {
                t = t.substring(0, t.length() - 1);
            }
            t = t.replace("_", "");
            try {
                BigDecimal d = new BigDecimal(t);
                return new Constant(d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString(), true);
            } catch (NumberFormatException e) {
                return new Constant(t, false);
            }
        }

        public static Constant string(String text) {
            return new Constant(text, false);
        }

        /**
         * Whether two constants may denote the same column value. Two numbers are equal only when
         * numerically equal; two strings are compared without case and trailing blanks (the default
         * collations of MySQL/MariaDB); a number and a string are assumed possibly equal (the DBMS may
         * coerce one to the other), which is the conservative answer.
         */
        public boolean mayEqual(Constant other) {
            if (numeric && other.numeric) {
                return text.equals(other.text);
            }
            if (!numeric && !other.numeric) {
                return stripTrailingBlanks(text).toLowerCase(Locale.ROOT)
                        .equals(stripTrailingBlanks(other.text).toLowerCase(Locale.ROOT));
            }
            return true;
        }

        private static String stripTrailingBlanks(String s) {
            int end = s.length();
            while (end > 0 && s.charAt(end - 1) == ' ') {
                end--;
            }
            return s.substring(0, end);
        }

        @Override
        public String toString() {
            return numeric ? text : "'" + text.replace("'", "''") + "'";
        }
    }

    /** A free value: unknown to the analysis, compared by identity, rendered with why it is free. */
    final class Free implements Value {
        private final String why;
        private final ReadAt readAt;

        /**
         * Where a value read from the database comes from: select-list item {@code item} (1-based, or -1)
         * or the column labelled {@code label} of the query prepared at {@code query}.
         */
        public record ReadAt(SourceRef query, int item, String label) {
        }

        public Free(String why) {
            this(why, null);
        }

        public Free(String why, ReadAt readAt) {
            this.why = Objects.requireNonNull(why, "why");
            this.readAt = readAt;
        }

        public String why() {
            return why;
        }

        /** The query this value was read from, when the front-end could tell; else null. */
        public ReadAt readAt() {
            return readAt;
        }

        @Override
        public String toString() {
            return "<free: " + why + ">";
        }
    }
}
