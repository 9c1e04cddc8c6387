package dev.gyro.bench;

import dev.gyro.runtime.hook.PhaseObserver;
import dev.gyro.runtime.hook.PhaseObserver.Phase;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Where a Gyro point's global requests spent their time at their owners, by phase ({@link Phase}), and what the
 * token did on its visits, over the measured window: the instances tell a {@link Log}, and the window's share of it
 * is summed up here.
 *
 * @param globals     global requests that arrived in the window and executed
 * @param phases      per phase: mean, p50, p99 and its share of the total time
 * @param total       the requests' time at their owners, all phases
 * @param visits      token visits that began in the window (passed on): how many
 * @param perVisit    per token visit: global requests executed (the rounds' snapshots), mean
 * @param mostPerVisit and the most in one visit
 * @param carried     state updates the token carried on, mean per pass
 * @param applied     state updates applied from one received token, mean per hop
 * @param applyMs     applying one received token (its updates and its record), mean per hop
 * @param applyUpdateMs applying, per update applied (all applying over all updates; 0 when none)
 * @param holdMs      from the token's arrival to its pass, mean
 * @param rotation    one rotation of the ring, from an instance's pass to the token's return there
 * @param attempts    runs of a global's DBMS transaction, mean per global request
 * @param ranAgain    global requests that lost a race and ran again
 */
public record PhaseBreakdown(long globals, List<Row> phases, Row total, long visits, double perVisit,
                             int mostPerVisit, double carried, double applied, double applyMs, double applyUpdateMs,
                             double holdMs, Row rotation, double attempts, long ranAgain) {

    /** One phase: its latency in ms and its share of the requests' total time (0 to 1). */
    public record Row(String phase, String describe, double meanMs, double p50Ms, double p99Ms, double share) {}

    /** Collects what every instance of a deployment tells; thread-safe. */
    public static final class Log implements PhaseObserver {
        private final ConcurrentLinkedQueue<Global> globals = new ConcurrentLinkedQueue<>();
        private final ConcurrentLinkedQueue<TokenVisit> visits = new ConcurrentLinkedQueue<>();

        @Override
        public void global(Global request) {
            globals.add(request);
        }

        @Override
        public void tokenVisit(TokenVisit visit) {
            visits.add(visit);
        }

        /** The requests that arrived, and the visits that began, in [{@code from}, {@code to}) (nanoTime). */
        public PhaseBreakdown window(long from, long to) {
            Phase[] all = Phase.values();
            Histogram[] h = new Histogram[all.length];
            long[] sums = new long[all.length];
            for (int i = 0; i < all.length; i++) h[i] = new Histogram(3);
            Histogram total = new Histogram(3);
            long n = 0, totalSum = 0, attempts = 0, ranAgain = 0;
            for (Global g : globals) {
                if (g.arrivedNanos() < from || g.arrivedNanos() >= to) continue;
                n++;
                attempts += g.attempts();
                if (g.attempts() > 1) ranAgain++;
                for (int i = 0; i < all.length; i++) {
                    h[i].recordValue(micros(g.nanos()[i]));
                    sums[i] += g.nanos()[i];
                }
                total.recordValue(micros(g.totalNanos()));
                totalSum += g.totalNanos();
            }
            List<Row> rows = new ArrayList<>();
            for (int i = 0; i < all.length; i++)
                rows.add(row(all[i].label(), all[i].describe(), h[i], totalSum == 0 ? 0 : (double) sums[i] / totalSum));
            Histogram rotation = new Histogram(3);
            long v = 0, globalsRun = 0, carried = 0, applied = 0, applyNanos = 0, holdNanos = 0;
            int most = 0;
            for (TokenVisit t : visits) {
                if (t.arrivedNanos() < from || t.arrivedNanos() >= to) continue;
                v++;
                globalsRun += t.globals();
                most = Math.max(most, t.globals());
                carried += t.updatesCarried();
                applied += t.updatesApplied();
                applyNanos += t.applyNanos();
                holdNanos += t.holdNanos();
                if (t.rotationNanos() > 0) rotation.recordValue(micros(t.rotationNanos()));
            }
            return new PhaseBreakdown(n, List.copyOf(rows), row("total", "at the owner, arrival to reply", total, 1),
                    v, v == 0 ? 0 : (double) globalsRun / v, most, v == 0 ? 0 : (double) carried / v,
                    v == 0 ? 0 : (double) applied / v, v == 0 ? 0 : applyNanos / 1e6 / v,
                    applied == 0 ? 0 : applyNanos / 1e6 / applied, v == 0 ? 0 : holdNanos / 1e6 / v,
                    row("rotation", "one rotation of the ring", rotation, 0), n == 0 ? 0 : (double) attempts / n,
                    ranAgain);
        }

        private static long micros(long nanos) {
            return Math.max(0, nanos / 1000);
        }

        private static Row row(String phase, String describe, Histogram h, double share) {
            if (h.getTotalCount() == 0) return new Row(phase, describe, 0, 0, 0, share);
            return new Row(phase, describe, h.getMean() / 1000.0, h.getValueAtPercentile(50) / 1000.0,
                    h.getValueAtPercentile(99) / 1000.0, share);
        }
    }

    /** The phase table and the token's figures, as Markdown (readable as plain text too). */
    public String table() {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%d global requests in the window, at their owners:%n%n", globals));
        out.append("| phase | mean ms | p50 ms | p99 ms | share |\n|---|---|---|---|---|\n");
        for (Row r : phases)
            out.append(String.format(Locale.ROOT, "| %s (%s) | %.2f | %.2f | %.2f | %.1f%% |%n", r.phase(),
                    r.describe(), r.meanMs(), r.p50Ms(), r.p99Ms(), 100 * r.share()));
        out.append(String.format(Locale.ROOT, "| **total** | %.2f | %.2f | %.2f | 100%% |%n", total.meanMs(),
                total.p50Ms(), total.p99Ms()));
        out.append(String.format(Locale.ROOT, "%ntoken: %d visits; per visit %.2f globals executed (most %d), "
                        + "%.2f updates applied in %.2f ms (%.3f ms per update), held %.2f ms; %.2f updates carried per "
                        + "pass; rotation mean %.2f ms, p50 %.2f, p99 %.2f%n", visits, perVisit, mostPerVisit, applied,
                applyMs, applyUpdateMs, holdMs, carried, rotation.meanMs(), rotation.p50Ms(), rotation.p99Ms()));
        out.append(String.format(Locale.ROOT, "%nattempts: %.2f DBMS transactions per global request; %d of %d lost a "
                + "race and ran again%n", attempts, ranAgain, globals));
        return out.toString();
    }
}
