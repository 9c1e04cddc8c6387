package dev.gyro.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Properties;

/** What the build wrote into the gyro command's jar ({@code gyro.properties}, filtered by Maven). */
final class BuildSettings {

    private BuildSettings() {}

    /** Gyro's version. */
    static String version() {
        return property("version");
    }

    /**
     * Where CMU BenchBase's source is, a third-party test input: the build setting {@code gyro.benchbase}
     * (docs/testing.md, "CMU BenchBase").
     */
    static Path benchbase() {
        return Path.of(property("benchbase")).normalize();
    }

    private static String property(String key) {
        try (InputStream in = BuildSettings.class.getResourceAsStream("gyro.properties")) {
            Properties p = new Properties();
            p.load(in);
            String value = p.getProperty(key);
            if (value == null) throw new IllegalStateException(key + " is missing from gyro.properties: rebuild Gyro");
            return value;
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("gyro.properties is missing from the gyro command's jar: rebuild Gyro", e);
        }
    }
}
