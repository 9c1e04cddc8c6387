package dev.gyro.driver;

/**
 * The instance is stopping: what was under way is abandoned, unreported (the database decides on restart). Thrown on
 * global threads and the belt loop; the loop stops quietly on it instead of failing the instance.
 */
public final class Stopping extends RuntimeException {
    public Stopping() {
        super("the instance is stopping", null, false, false);
    }
}
