package dev.gyro.cli;

import java.io.PrintStream;

/** A one-line progress bar on a terminal; on a pipe (CI, logs) a plain line every few seconds instead. */
final class ProgressBar {
    private final PrintStream out;
    private final String label;
    private final boolean terminal;
    private long lastLine;

    ProgressBar(PrintStream out, String label) {
        this.out = out;
        this.label = label;
        this.terminal = System.console() != null;
    }

    void update(double fraction, String detail) {
        fraction = Math.max(0, Math.min(1, fraction));
        if (terminal) {
            int width = 30, filled = (int) Math.round(fraction * width);
            out.print("\r" + label + " [" + "#".repeat(filled) + ".".repeat(width - filled) + "] "
                    + String.format("%3d%%", Math.round(fraction * 100)) + "  " + detail + "   ");
            out.flush();
        } else {
            long now = System.currentTimeMillis();
            if (now - lastLine >= 5000 || fraction >= 1) {
                lastLine = now;
                out.println(label + " " + String.format("%3d%%", Math.round(fraction * 100)) + "  " + detail);
            }
        }
    }

    void done(String detail) {
        if (terminal) {
            update(1, detail);
            out.println();
        } else {
            out.println(label + " 100%  " + detail);
        }
    }
}
