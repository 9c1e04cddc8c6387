package dev.gyro.app;

/** A request that names an unknown transaction or passes wrong parameters. Nothing was executed. */
public final class BadRequestException extends RuntimeException {
    public BadRequestException(String message) {
        super(message);
    }
}
