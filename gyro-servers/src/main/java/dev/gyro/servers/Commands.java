package dev.gyro.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Running server programs, as another user when this process is root. */
final class Commands {

    private Commands() {}

    /** What a finished command left: its exit code and its output (stdout and stderr together). */
    record Result(int exitCode, String output) {
        boolean ok() {
            return exitCode == 0;
        }
    }

    private static final boolean ROOT = detectRoot();

    private static boolean detectRoot() {
        try {
            return new com.sun.security.auth.module.UnixSystem().getUid() == 0;
        } catch (RuntimeException | LinkageError e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    static boolean isRoot() {
        return ROOT;
    }

    /**
     * The system user a server runs as: {@code user} when this process is root (database servers refuse, or
     * should not, run as root), null (this process's user) otherwise.
     *
     * @throws IllegalStateException when root and {@code user} does not exist
     */
    static String serverUser(String user, String debianPackage) {
        if (!ROOT) return null;
        try {
            Result r = run(List.of("id", "-u", user), null, Duration.ofSeconds(10));
            if (r.ok()) return user;
        } catch (IllegalStateException e) {
            // fall through
        }
        throw new IllegalStateException("running as root, the server must run as the system user '" + user
                + "', which does not exist; the Debian package " + debianPackage + " creates it");
    }

    /** {@code command}, prefixed to run as {@code user} (null: as this process). */
    static List<String> as(String user, List<String> command) {
        if (user == null) return command;
        if (Files.isExecutable(Path.of("/usr/sbin/runuser")) || Files.isExecutable(Path.of("/sbin/runuser"))) {
            List<String> out = new ArrayList<>(List.of("runuser", "-u", user, "--"));
            out.addAll(command);
            return out;
        }
        StringBuilder sh = new StringBuilder();
        for (String c : command) sh.append(sh.length() == 0 ? "" : " ").append(shellQuote(c));
        return List.of("su", "-s", "/bin/sh", user, "-c", sh.toString());
    }

    static String shellQuote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    /**
     * Runs {@code command} (as {@code user} when not null) to completion. Output goes through a temporary file, not
     * a pipe, so that a daemon the command leaves behind cannot hold it open.
     *
     * @throws IllegalStateException when it cannot be started or does not finish within {@code timeout}
     */
    static Result run(List<String> command, String user, Duration timeout) {
        List<String> full = as(user, command);
        Path out = null;
        try {
            out = Files.createTempFile("gyro-cmd", ".log");
            ProcessBuilder pb = new ProcessBuilder(full).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.to(out.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            pb.environment().put("LC_ALL", "C");
            Process p = pb.start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("'" + String.join(" ", full) + "' did not finish within "
                        + timeout.toSeconds() + " s");
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("cannot run '" + String.join(" ", full) + "': " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running '" + String.join(" ", full) + "'", e);
        } finally {
            if (out != null) {
                try {
                    Files.deleteIfExists(out);
                } catch (IOException ignored) {
                    // a temporary file
                }
            }
        }
    }

    /** Runs {@code command} and fails with its output when it exits non-zero. */
    static String check(String what, List<String> command, String user, Duration timeout) {
        Result r = run(command, user, timeout);
        if (!r.ok())
            throw new IllegalStateException(what + " failed (exit " + r.exitCode() + ", '" + String.join(" ",
                    as(user, command)) + "'):\n" + errors(r.output()) + tail(r.output(), 25));
        return r.output();
    }

    /** Gives {@code dir} and everything in it to {@code user} (no-op when null). */
    static void chown(Path dir, String user) {
        if (user == null) return;
        try {
            UserPrincipal owner = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(user);
            try (Stream<Path> all = Files.walk(dir)) {
                for (Path p : all.toList()) Files.setOwner(p, owner);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot give " + dir + " to user " + user, e);
        }
    }

    /**
     * Checks that {@code user} can write in {@code dir}: every directory above it must be searchable by that user.
     *
     * @throws IllegalStateException naming the problem and what to do
     */
    static void checkAccess(Path dir, String user) {
        if (user == null) return;
        Result r = run(List.of("test", "-w", dir.toString()), user, Duration.ofSeconds(10));
        if (!r.ok())
            throw new IllegalStateException("the server runs as system user '" + user + "', which cannot write in "
                    + dir + ": a directory above it is not searchable by other users (for example /root). Choose a"
                    + " directory under /tmp or /var/tmp, or make the directories above searchable (chmod o+x)");
    }

    /** The last {@code lines} lines of {@code text}. */
    /** The lines of {@code output} that report an error (a long output's tail may be all advice), each once. */
    static String errors(String output) {
        StringBuilder out = new StringBuilder();
        output.lines().filter(l -> l.contains("ERROR") || l.contains("error:") || l.contains("FATAL")).distinct()
                .limit(10).forEach(l -> out.append(l).append('\n'));
        return out.isEmpty() ? "" : out.append("...\n").toString();
    }

    static String tail(String text, int lines) {
        String[] all = text.strip().split("\n");
        int from = Math.max(0, all.length - lines);
        return String.join("\n", java.util.Arrays.copyOfRange(all, from, all.length));
    }

    /** The last lines of a log file, or a note that there is none. */
    static String tail(Path log, int lines) {
        try {
            return Files.exists(log) ? tail(Files.readString(log, StandardCharsets.UTF_8), lines) : "(no " + log + ")";
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e.getMessage() + ")";
        }
    }

    /**
     * True when process {@code pid} runs. A process that exited but was not reaped yet (a zombie: a daemonized
     * server's parent may be an init that reaps late) does not run.
     */
    static boolean alive(long pid) {
        if (pid <= 0 || !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) return false;
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            int close = stat.lastIndexOf(')');
            return close < 0 || close + 2 >= stat.length() || stat.charAt(close + 2) != 'Z';
        } catch (IOException e) {
            return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        }
    }

    /** A TCP port free right now, outside the ephemeral range ({@link FreePorts}). */
    static int freePort() {
        try {
            return FreePorts.take();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    /** True when something accepts connections on loopback {@code port}. */
    static boolean listening(int port) {
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
