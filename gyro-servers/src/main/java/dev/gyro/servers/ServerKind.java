package dev.gyro.servers;

import java.util.Locale;

/** The database servers Gyro can start: PostgreSQL and MariaDB, each from its Debian package. */
public enum ServerKind {
    POSTGRES("postgres", "postgresql"),
    MARIADB("mariadb", "mariadb-server");

    private final String label;
    private final String debianPackage;

    ServerKind(String label, String debianPackage) {
        this.label = label;
        this.debianPackage = debianPackage;
    }

    /** The name users type ({@code postgres}, {@code mariadb}). */
    public String label() {
        return label;
    }

    /** The Debian package that installs the server's programs. */
    public String debianPackage() {
        return debianPackage;
    }

    /**
     * Why servers of this kind cannot be started here (the message names the Debian package to install), or null
     * when they can.
     */
    public String unavailableReason() {
        try {
            if (this == POSTGRES) ServerBinaries.postgres();
            else ServerBinaries.mariadb();
            return null;
        } catch (MissingServerException e) {
            return e.getMessage();
        }
    }

    /**
     * The kind called {@code name}: {@code postgres} (or {@code postgresql}), {@code mariadb} (or {@code mysql}).
     *
     * @throws IllegalArgumentException naming the known kinds
     */
    public static ServerKind parse(String name) {
        String n = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
        return switch (n) {
            case "postgres", "postgresql", "pg" -> POSTGRES;
            case "mariadb", "mysql" -> MARIADB;
            default -> throw new IllegalArgumentException("unknown database server '" + name + "' (known: postgres, mariadb)");
        };
    }

    @Override
    public String toString() {
        return label;
    }
}
