package dev.gyro.protocol;

import java.util.Arrays;
import java.util.Objects;

/**
 * A typed SQL value as carried by requests, row images and replies. The five kinds are the storage
 * classes every supported DBMS can round-trip through JDBC without loss (SQLite's own five).
 */
public sealed interface Value permits Value.Null, Value.Int, Value.Real, Value.Text, Value.Blob {

    Null NULL = new Null();

    static Value of(Object o) {
        if (o == null) return NULL;
        // The classes results are made of (final ones: one compare each) come before the check for a Value: asking
        // whether a Long is an instance of an interface scans the interfaces Long implements, and the JVM's
        // one-entry cache of that answer is contended when threads ask of other interfaces. For a result of 100
        // values that was most of a local read-only request's cost over plain JDBC (the README's Cost table). The
        // classes are disjoint, so the order changes no answer.
        if (o instanceof Long l) return new Int(l);
        if (o instanceof String s) return new Text(s);
        if (o instanceof Integer i) return new Int(i);
        if (o instanceof Double d) return new Real(d);
        if (o instanceof Short s) return new Int(s);
        if (o instanceof Byte b) return new Int(b);
        if (o instanceof Boolean b) return new Int(b ? 1 : 0);
        if (o instanceof Float f) return new Real(f);
        if (o instanceof byte[] b) return new Blob(b);
        if (o instanceof Value v) return v;
        if (o instanceof java.math.BigDecimal d) {
            try {
                return new Int(d.longValueExact());
            } catch (ArithmeticException notIntegral) {
                return new Real(d.doubleValue());
            }
        }
        if (o instanceof java.math.BigInteger i) return new Int(i.longValueExact());
        throw new IllegalArgumentException("unsupported value type " + o.getClass().getName()
                + " (supported: null, integral numbers, floating point, String, byte[])");
    }

    /** The plain Java object: null, Long, Double, String or byte[]. */
    Object toJava();

    record Null() implements Value {
        public Object toJava() { return null; }
        public String toString() { return "NULL"; }
    }

    record Int(long value) implements Value {
        public Object toJava() { return value; }
        public String toString() { return Long.toString(value); }
    }

    record Real(double value) implements Value {
        public Object toJava() { return value; }
        public String toString() { return Double.toString(value); }
    }

    record Text(String value) implements Value {
        public Text { Objects.requireNonNull(value); }
        public Object toJava() { return value; }
        public String toString() { return "'" + value + "'"; }
    }

    record Blob(byte[] value) implements Value {
        public Blob { value = value.clone(); }
        public Object toJava() { return value.clone(); }
        @Override public boolean equals(Object o) { return o instanceof Blob b && Arrays.equals(value, b.value); }
        @Override public int hashCode() { return Arrays.hashCode(value); }
        public String toString() { return "x'" + java.util.HexFormat.of().formatHex(value) + "'"; }
    }
}
