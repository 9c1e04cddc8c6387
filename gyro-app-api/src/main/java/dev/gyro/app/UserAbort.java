package dev.gyro.app;

/**
 * Thrown by a transaction that decides to roll back (for example: not enough stock). The request's writes are
 * discarded, a global request ships no state update, and the client receives {@code ABORTED} with this message.
 */
public class UserAbort extends RuntimeException {
    public UserAbort(String message) {
        super(message, null, false, false);
    }
}
