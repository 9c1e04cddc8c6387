package dev.gyro.apps;

import dev.gyro.app.Classification;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Reads an application's {@code classification.json}, which sits beside its classes in the jar. */
public final class Resources {

    private Resources() {}

    public static Classification classification(Class<?> app, String name) {
        try (InputStream in = app.getResourceAsStream("classification.json")) {
            if (in == null) throw new IllegalStateException(name + " classification.json is missing from the jar");
            return Classification.read(in, name + " classification.json");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
