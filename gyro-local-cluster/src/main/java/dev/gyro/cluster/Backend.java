package dev.gyro.cluster;

import dev.gyro.runtime.db.Dialect;
import dev.gyro.runtime.db.MariaDbDialect;
import dev.gyro.runtime.db.PostgresDialect;
import dev.gyro.runtime.db.SqliteDialect;
import dev.gyro.servers.ServerKind;

import java.util.Locale;

/**
 * The DBMSs a Gyro cluster can run on, chosen per cluster: {@code sqlite} (one file per instance, the
 * embedded default), {@code postgres}, and {@code mariadb} (MariaDB 10.5 or newer). Each instance of a cluster
 * reaches its own database of that kind through JDBC only.
 */
public enum Backend {
    SQLITE("sqlite", SqliteDialect.INSTANCE, null),
    POSTGRES("postgres", PostgresDialect.INSTANCE, ServerKind.POSTGRES),
    MARIADB("mariadb", MariaDbDialect.INSTANCE, ServerKind.MARIADB);

    private final String label;
    private final Dialect dialect;
    private final ServerKind serverKind;

    Backend(String label, Dialect dialect, ServerKind serverKind) {
        this.label = label;
        this.dialect = dialect;
        this.serverKind = serverKind;
    }

    /** The name users type ({@code --backend postgres}). */
    public String label() {
        return label;
    }

    public Dialect dialect() {
        return dialect;
    }

    /** True for the backends whose instances are database servers Gyro can start. */
    public boolean hasServer() {
        return serverKind != null;
    }

    /** The kind of throwaway server ({@link dev.gyro.servers.DatabaseServer}) for this backend; null for SQLite. */
    public ServerKind serverKind() {
        return serverKind;
    }

    /**
     * Why servers of this backend cannot be started here (the message names the Debian package to install), or
     * null when they can.
     */
    public String unavailableReason() {
        return serverKind == null ? null : serverKind.unavailableReason();
    }

    /**
     * The backend called {@code name}: {@code sqlite}, {@code postgres} (or {@code postgresql}), {@code mariadb}
     * (or {@code mysql}); any case.
     *
     * @throws IllegalArgumentException naming the known backends
     */
    public static Backend parse(String name) {
        String n = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
        return switch (n) {
            case "sqlite", "sqlite3" -> SQLITE;
            case "postgres", "postgresql", "pg" -> POSTGRES;
            case "mariadb", "mysql" -> MARIADB;
            default -> throw new IllegalArgumentException("unknown backend '" + name
                    + "' (known: sqlite, postgres, mariadb)");
        };
    }

    /** The backend of a JDBC URL, or of a plain file path (SQLite). */
    public static Backend ofTarget(String jdbcUrlOrFile) {
        String t = jdbcUrlOrFile.strip().toLowerCase(Locale.ROOT);
        if (t.startsWith("jdbc:postgresql:")) return POSTGRES;
        if (t.startsWith("jdbc:mariadb:") || t.startsWith("jdbc:mysql:")) return MARIADB;
        if (t.startsWith("jdbc:sqlite:") || !t.startsWith("jdbc:")) return SQLITE;
        throw new IllegalArgumentException("Gyro has no backend for JDBC URL " + jdbcUrlOrFile
                + " (supported: jdbc:sqlite:, jdbc:postgresql:, jdbc:mariadb:, jdbc:mysql:)");
    }

    @Override
    public String toString() {
        return label;
    }
}
