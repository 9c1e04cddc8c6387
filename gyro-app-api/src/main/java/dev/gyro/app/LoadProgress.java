package dev.gyro.app;

/** Told how far a data load has come, for a progress bar. */
@FunctionalInterface
public interface LoadProgress {

    /**
     * @param fraction between 0 and 1
     * @param detail   what is being loaded, e.g. {@code "ORDER_LINE 12000/30000"}
     */
    void update(double fraction, String detail);

    LoadProgress NONE = (fraction, detail) -> {};
}
