package dev.gyro.servers;

/**
 * A database server program Gyro needs is not installed. The message names the programs looked for, where, and the
 * Debian package that provides them.
 */
public final class MissingServerException extends IllegalStateException {

    private final String debianPackage;

    MissingServerException(String message, String debianPackage) {
        super(message);
        this.debianPackage = debianPackage;
    }

    /** The Debian package that provides the missing programs ({@code postgresql}, {@code mariadb-server}). */
    public String debianPackage() {
        return debianPackage;
    }
}
