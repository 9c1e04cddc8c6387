package dev.gyro.protocol;

/** Bytes that do not decode to a valid message; the message is rejected, nothing is applied. */
public final class MalformedMessageException extends RuntimeException {
    public MalformedMessageException(String message) {
        super(message);
    }

    public MalformedMessageException(String message, Throwable cause) {
        super(message, cause);
    }
}
