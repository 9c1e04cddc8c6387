package dev.gyro.runtime;

/**
 * The instance is stopping: what was under way is abandoned, unreported (the database decides on restart). Thrown on
 * global threads and the belt loop; the loop stops quietly on it instead of failing the instance.
 */
final class Stopping extends RuntimeException {
    Stopping() {
        super("the instance is stopping", null, false, false);
    }
}
