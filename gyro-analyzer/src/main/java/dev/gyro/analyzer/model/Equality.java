package dev.gyro.analyzer.model;

import java.util.Objects;

/** One conjunct of a condition: {@code column = value}, the column being one of the entry's table. */
public record Equality(String column, Value value) {
    public Equality {
        Objects.requireNonNull(column, "column");
        Objects.requireNonNull(value, "value");
    }

    @Override
    public String toString() {
        return column + " = " + value;
    }
}
