package dev.gyro.cli;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real headless Chromium (Debian's chromium package) for tests of the live view: installed with apt-get when
 * missing and the tests run as root; a test that needs it is skipped only when it cannot be installed (failed under
 * CI=true, whose .ci/run installs it).
 */
final class Chromium {

    static final Path BINARY = Path.of("/usr/bin/chromium");

    private Chromium() {}

    /** The browser, installed if need be; aborts (skips) the test when that cannot be done. */
    static Path require() throws Exception {
        if (!Files.isExecutable(BINARY) && "root".equals(System.getProperty("user.name"))
                && Files.isExecutable(Path.of("/usr/bin/apt-get"))) {
            Process p = new ProcessBuilder("/usr/bin/apt-get", "install", "-y", "-qq", "chromium")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            p.waitFor(10, TimeUnit.MINUTES);
        }
        if (Files.isExecutable(BINARY)) return BINARY;
        if ("true".equalsIgnoreCase(System.getenv("CI"))) Assertions.fail("CI=true and " + BINARY + " is missing");
        Assumptions.abort("skipped: no " + BINARY + " and it cannot be installed (apt-get install chromium)");
        return null;
    }

    /**
     * Loads {@code url} in a fresh profile, lets the page run for {@code millis} of virtual time (its fetches
     * complete within it), and returns what Chromium printed: the DOM as it then is with {@code --dump-dom}.
     */
    static String run(Path profile, String url, long millis, String... what) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(BINARY.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-dev-shm-usage", "--user-data-dir=" + profile,
                "--virtual-time-budget=" + millis));
        cmd.addAll(List.of(what));
        cmd.add(url);
        Path out = Files.createTempFile(profile.getParent(), "chromium", ".out");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish within 120 s: " + cmd);
        }
        try {
            return Files.readString(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError("chromium's output: " + e, e);
        }
    }
}
