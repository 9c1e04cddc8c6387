package dev.gyro.cli;

import dev.gyro.app.Application;
import dev.gyro.app.Applications;
import dev.gyro.runtime.ApplicationCheck;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The applications a command can run: the built-in ones and those in the jars given with {@code --app-jar}, all
 * found through {@link Applications} (no application is known by a hard-coded name). A picocli mixin: every command
 * that takes {@code --app NAME} mixes this in for {@code --app-jar PATH}.
 */
final class Apps {

    @Option(names = "--app-jar", paramLabel = "PATH", description = "a jar holding applications of your own "
            + "(found through META-INF/services/dev.gyro.app.Application; repeatable, e.g. for the libraries they need)")
    List<Path> jars = new ArrayList<>();

    /** The application called {@code name}, checked by the runtime (transactions, classification, SQL). */
    Application byName(String name) {
        Applications.Found found = Applications.load(jars).find(name);
        try {
            ApplicationCheck.check(found.application());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(found.origin().equals(Applications.CLASS_PATH) ? e.getMessage()
                    : "application jar " + found.origin() + ": " + e.getMessage(), e);
        }
        return found.application();
    }

    /** The jars as command-line arguments, for a command that starts another gyro process. */
    List<String> arguments() {
        List<String> out = new ArrayList<>();
        for (Path j : jars) {
            out.add("--app-jar");
            out.add(j.toAbsolutePath().toString());
        }
        return out;
    }

    /** The built-in application names, for help texts. */
    static List<String> builtInNames() {
        return Applications.builtIn().names();
    }
}
