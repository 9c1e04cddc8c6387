package dev.gyro.analyzer.model;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The condition of a read or write set entry (paper, Section VI): a conjunction of equalities binding
 * columns of one row to input parameters, constants or free values. The empty conjunction selects any
 * row.
 *
 * <p>Whatever the analysis does not model (ranges, LIKE, OR, NOT, IN lists, functions of columns) is
 * not represented: dropping a conjunct only widens the set of rows, so the condition stays an
 * over-approximation (docs/decisions/08-conservative-analyzer.md). {@link #widenings} says what was dropped, for the
 * reason shown to the user.
 */
public record Condition(List<Equality> equalities, List<String> widenings) {
    public static final Condition ANY_ROW = new Condition(List.of(), List.of());

    public Condition {
        equalities = List.copyOf(equalities);
        widenings = List.copyOf(widenings);
    }

    public static Condition anyRow(String why) {
        return new Condition(List.of(), List.of(why));
    }

    public boolean anyRow() {
        return equalities.isEmpty();
    }

    @Override
    public String toString() {
        if (equalities.isEmpty()) {
            return "any row";
        }
        return equalities.stream().map(Equality::toString).collect(Collectors.joining(" AND "));
    }
}
