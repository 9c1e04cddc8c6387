package dev.gyro.app;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Options of a workload as {@code name=value} pairs ({@code mix=browsing}, {@code local=0.9}, {@code void=true}),
 * read from a command line. An application reads the ones it knows with their defaults and rejects the rest with
 * {@link #requireOnly}, so a misspelt option fails at start with the exact problem instead of being ignored.
 */
public final class WorkloadOptions {

    private final Map<String, String> values;

    private WorkloadOptions(Map<String, String> values) {
        this.values = Map.copyOf(values);
    }

    public static final WorkloadOptions NONE = new WorkloadOptions(Map.of());

    public static WorkloadOptions of(Map<String, String> values) {
        return new WorkloadOptions(values);
    }

    /** Parses {@code name=value} items; a bare {@code name} means {@code name=true}. */
    public static WorkloadOptions parse(Collection<String> items) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String item : items) {
            if (item == null || item.isBlank()) continue;
            int eq = item.indexOf('=');
            String name = (eq < 0 ? item : item.substring(0, eq)).strip();
            String value = eq < 0 ? "true" : item.substring(eq + 1).strip();
            if (name.isEmpty()) throw new IllegalArgumentException("workload option '" + item + "' has no name");
            if (m.put(name, value) != null) throw new IllegalArgumentException("workload option " + name + " is given twice");
        }
        return new WorkloadOptions(m);
    }

    /** Fails with the exact names if any option is not one of {@code known}. */
    public WorkloadOptions requireOnly(String application, Collection<String> known) {
        List<String> unknown = new ArrayList<>();
        for (String name : values.keySet()) if (!known.contains(name)) unknown.add(name);
        if (!unknown.isEmpty())
            throw new IllegalArgumentException("unknown workload option(s) " + unknown + " for " + application
                    + " (known: " + new TreeSet<>(known) + ")");
        return this;
    }

    public String text(String name, String defaultValue) {
        return values.getOrDefault(name, defaultValue);
    }

    public String choice(String name, String defaultValue, Collection<String> allowed) {
        String v = text(name, defaultValue);
        if (!allowed.contains(v))
            throw new IllegalArgumentException("workload option " + name + "=" + v + " is not one of " + allowed);
        return v;
    }

    public long longValue(String name, long defaultValue, long min, long max) {
        String v = values.get(name);
        if (v == null) return defaultValue;
        long x;
        try {
            x = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("workload option " + name + "=" + v + " is not an integer");
        }
        if (x < min || x > max)
            throw new IllegalArgumentException("workload option " + name + "=" + v + " is outside [" + min + ", " + max + "]");
        return x;
    }

    public double doubleValue(String name, double defaultValue, double min, double max) {
        String v = values.get(name);
        if (v == null) return defaultValue;
        double x;
        try {
            x = Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("workload option " + name + "=" + v + " is not a number");
        }
        if (!(x >= min && x <= max))
            throw new IllegalArgumentException("workload option " + name + "=" + v + " is outside [" + min + ", " + max + "]");
        return x;
    }

    public boolean flag(String name, boolean defaultValue) {
        String v = values.get(name);
        if (v == null) return defaultValue;
        if (v.equalsIgnoreCase("true") || v.equals("1") || v.equalsIgnoreCase("yes")) return true;
        if (v.equalsIgnoreCase("false") || v.equals("0") || v.equalsIgnoreCase("no")) return false;
        throw new IllegalArgumentException("workload option " + name + "=" + v + " is not true or false");
    }

    public Map<String, String> asMap() {
        return values;
    }

    @Override
    public String toString() {
        List<String> parts = new ArrayList<>();
        values.forEach((k, v) -> parts.add(k + "=" + v));
        return String.join(" ", parts);
    }
}
