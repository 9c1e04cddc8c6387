package dev.gyro.cli;

import java.util.List;
import java.util.Locale;

/**
 * The log level of Gyro's own loggers ({@code dev.gyro.*}), set by {@code --log-level} on any command. The backend is
 * SLF4J's simple logger (slf4j-simple, on gyro-cli's class path): it writes to standard error and reads its settings
 * from system properties and {@code simplelogger.properties} (gyro-cli's defaults: INFO for Gyro, WARN for the
 * libraries). A level is read when a logger is made, so it must be set before Gyro's classes log: {@link Gyro#main}
 * sets it before anything else runs.
 */
final class Logging {

    static final List<String> LEVELS = List.of("error", "warn", "info", "debug", "trace", "off");
    private static final String GYRO_LOGGERS = "org.slf4j.simpleLogger.log.dev.gyro";

    private static volatile String level;

    private Logging() {}

    /**
     * Sets the level of Gyro's loggers.
     *
     * @throws IllegalArgumentException naming the levels there are when {@code name} is none of them
     */
    static void level(String name) {
        String l = name.strip().toLowerCase(Locale.ROOT);
        if (!LEVELS.contains(l))
            throw new IllegalArgumentException("unknown log level '" + name + "': give one of " + String.join(", ", LEVELS));
        level = l;
        System.setProperty(GYRO_LOGGERS, l);
    }

    /** The level given with --log-level, or null: what a command passes on to the processes it starts. */
    static String level() {
        return level;
    }

    /** Applies {@code --log-level LEVEL} (or {@code --log-level=LEVEL}) found anywhere in {@code args}, first of all. */
    static void fromArguments(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String value = null;
            if (args[i].equals("--log-level") && i + 1 < args.length) value = args[i + 1];
            else if (args[i].startsWith("--log-level=")) value = args[i].substring("--log-level=".length());
            if (value == null) continue;
            try {
                level(value);
            } catch (IllegalArgumentException e) {
                return; // picocli reports it, with the command's usage
            }
        }
    }
}
