package dev.gyro.analyzer.model;

import java.util.Objects;

/**
 * A problem in the analyzed input, named by file and line: unparsable Java or SQL, a statement or value
 * the analysis had to widen. Never fatal: the analysis goes on with a conservative assumption.
 */
public record Diagnostic(Severity severity, SourceRef where, String message) {
    public enum Severity { ERROR, WARNING }

    public Diagnostic {
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(where, "where");
        Objects.requireNonNull(message, "message");
    }

    public static Diagnostic error(SourceRef where, String message) {
        return new Diagnostic(Severity.ERROR, where, message);
    }

    public static Diagnostic warning(SourceRef where, String message) {
        return new Diagnostic(Severity.WARNING, where, message);
    }

    @Override
    public String toString() {
        return where.file() + (where.line() > 0 ? ":" + where.line() : "") + ": "
                + severity.name().toLowerCase(java.util.Locale.ROOT) + ": " + message;
    }
}
