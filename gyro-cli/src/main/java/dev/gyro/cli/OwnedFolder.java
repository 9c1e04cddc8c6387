package dev.gyro.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A folder a command was given with {@code --dir} or {@code --out}: Gyro empties or deletes only a folder it made
 * itself, marked by a file {@value #MARKER} in it, or one that was empty when it was handed over (which it then
 * marks). A folder holding anything else is refused with its name and what is in it, so {@code --dir .} or
 * {@code --dir ~} never loses a file (docs/decisions/19-owned-folders.md).
 */
final class OwnedFolder {
    /** The file that says a folder is Gyro's. */
    static final String MARKER = ".gyro-data";

    private OwnedFolder() {}

    /**
     * {@code dir}, made (and marked) when it does not exist, marked when it is empty, unchanged when it is marked
     * already. Nothing in it is deleted.
     *
     * @param option the option that named it, for the error message
     * @throws IllegalArgumentException when it holds files and is not marked, or is not a folder
     */
    static Path claim(Path dir, String option) throws IOException {
        if (Files.exists(dir) && !Files.isDirectory(dir))
            throw new IllegalArgumentException(option + " " + dir + " is a file, not a folder");
        Files.createDirectories(dir);
        Path marker = dir.resolve(MARKER);
        if (Files.exists(marker)) return dir;
        List<String> found = entries(dir);
        if (!found.isEmpty())
            throw new IllegalArgumentException(option + " " + dir + " holds files Gyro did not create ("
                    + String.join(", ", found.subList(0, Math.min(5, found.size())))
                    + (found.size() > 5 ? ", ... " + found.size() + " in all" : "") + "): give a new or empty folder,"
                    + " or one an earlier gyro command made (it holds a file " + MARKER + ")");
        Files.writeString(marker, "This folder was made by Gyro; gyro commands may empty it.\n");
        return dir;
    }

    /** {@link #claim}, then empties it (all but the marker), so a run starts from fresh databases. */
    static Path fresh(Path dir, String option) throws IOException {
        claim(dir, option);
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList())
                if (!p.equals(dir) && !p.equals(dir.resolve(MARKER))) Files.delete(p);
        }
        return dir;
    }

    /** Deletes {@code dir} and all in it when it is marked as Gyro's; leaves anything else alone. */
    static void delete(Path dir) throws IOException {
        if (!Files.exists(dir.resolve(MARKER))) return;
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }

    /**
     * Removes the marker, and the folder, when nothing but the marker is left in it: after a command removed what it
     * made, the folder it made goes too.
     */
    static void releaseIfEmpty(Path dir) throws IOException {
        if (!Files.isDirectory(dir) || !entries(dir).isEmpty()) return;
        Files.deleteIfExists(dir.resolve(MARKER));
        Files.deleteIfExists(dir);
    }

    private static List<String> entries(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.equals(MARKER)).sorted().toList();
        }
    }
}
