package dev.gyro.analyzer.sql;

import dev.gyro.analyzer.model.SourceRef;
import dev.gyro.analyzer.model.Value;

import java.util.Map;
import java.util.Objects;

/**
 * One SQL statement of a transaction as found in the source code, with what the Java front-end knows
 * about its parameters.
 *
 * @param sql           the SQL text; values concatenated into it appear as named parameters
 *                      {@code :gyroHole1}, {@code :gyroHole2}...; {@code null} when the text could not be
 *                      determined (computed SQL)
 * @param unknownReason why {@code sql} is null
 * @param positional    the value bound to placeholder {@code ?} number i (1-based) by {@code setXxx(i, expr)};
 *                      a placeholder missing here is free
 * @param named         the value of each concatenated value, by its named-parameter name
 * @param hint          how the statement is executed, used only when the SQL cannot be read
 * @param source        where the statement is in the source code
 */
public record SqlSite(String sql, String unknownReason, Map<Integer, Value> positional, Map<String, Value> named,
                      ExecutionHint hint, SourceRef source) {

    /** How a statement is executed: a query (executeQuery) cannot write. */
    public enum ExecutionHint { QUERY, UPDATE, UNKNOWN }

    public SqlSite {
        Objects.requireNonNull(source, "source");
        positional = Map.copyOf(positional);
        named = Map.copyOf(named);
        Objects.requireNonNull(hint, "hint");
    }

    public static SqlSite of(String sql, SourceRef source) {
        return new SqlSite(sql, null, Map.of(), Map.of(), ExecutionHint.UNKNOWN, source);
    }
}
