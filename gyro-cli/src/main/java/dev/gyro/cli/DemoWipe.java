package dev.gyro.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Empties a data directory before a run, so every run starts from fresh databases. */
final class DemoWipe {
    private DemoWipe() {}

    static void wipe(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList())
                if (!p.equals(dir)) Files.delete(p);
        }
    }
}
