package dev.gyro.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * This machine's CPU time since boot, busy and in all, as Linux counts it in {@code /proc/stat}: two readings, at a
 * measured window's ends, say how busy the whole machine was over it (docs/benchmark-method.md). Capacity
 * emulation means the emulated servers to be what limits a system; when the machine's own cores are near 100% busy
 * (the benchmark's own processes, other work, or a host that takes the cores away: its "steal" time counts as busy
 * here), the cores limit it instead, and a point measures the machine as much as the protocol.
 *
 * @param busy  time the cores did anything but idle or wait for I/O, in the kernel's ticks
 * @param total all the cores' time, in the same ticks
 */
record MachineCpu(long busy, long total) {

    private static final Path STAT = Path.of("/proc/stat");

    /** The reading now, or null where there is no {@code /proc/stat} to read (not Linux) or it is not understood. */
    static MachineCpu read() {
        if (!Files.isReadable(STAT)) return null;
        try (Stream<String> lines = Files.lines(STAT)) {
            return lines.findFirst().map(MachineCpu::parse).orElse(null);
        } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * The all-cores line of {@code /proc/stat}: {@code cpu user nice system idle iowait irq softirq steal [guest
     * guest_nice]}. Guest time is already inside user and nice, so it is not added again.
     *
     * @throws IllegalArgumentException when the line is not that
     */
    static MachineCpu parse(String line) {
        String[] f = line.trim().split("\\s+");
        if (f.length < 5 || !f[0].equals("cpu"))
            throw new IllegalArgumentException("not the all-cores line of /proc/stat: '" + line + "'");
        long total = 0, idle = 0;
        for (int i = 1; i < Math.min(f.length, 9); i++) {
            long v;
            try {
                v = Long.parseLong(f[i]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("field " + i + " of '" + line + "' is not a count", e);
            }
            if (v < 0) throw new IllegalArgumentException("field " + i + " of '" + line + "' is negative");
            total += v;
            if (i == 4 || i == 5) idle += v; // idle, iowait
        }
        return new MachineCpu(total - idle, total);
    }

    /** The share of the cores' time that was busy between {@code earlier} and this reading; null if none passed. */
    Double busySince(MachineCpu earlier) {
        long all = total - earlier.total;
        if (all <= 0) return null;
        return Math.max(0, Math.min(1, (double) (busy - earlier.busy) / all));
    }
}
