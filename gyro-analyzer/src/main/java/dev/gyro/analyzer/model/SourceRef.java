package dev.gyro.analyzer.model;

import java.nio.file.Path;
import java.util.Objects;

/** A place in the analyzed sources: a file and a line (1-based; 0 when unknown). */
public record SourceRef(Path file, int line) {
    public SourceRef {
        Objects.requireNonNull(file, "file");
    }

    @Override
    public String toString() {
        Path name = file.getFileName();
        String shown = name == null ? file.toString() : name.toString();
        return line > 0 ? shown + ":" + line : shown;
    }
}
