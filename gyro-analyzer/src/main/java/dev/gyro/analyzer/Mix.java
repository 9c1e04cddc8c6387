package dev.gyro.analyzer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A workload mix: the relative frequency of each transaction, used as its weight by the partitioning
 * optimizer (Algorithm 2, line 20: "estimates of the relative frequency of the transactions can be used
 * for better cost estimations").
 *
 * <p>File format, one transaction per line:
 * <pre>
 * # the shopping mix (comments start with #; blank lines are ignored)
 * createCart   10
 * addItem = 60%
 * order: 30
 * </pre>
 * A line is a transaction name, optionally {@code =} or {@code :}, and a non-negative number, optionally
 * followed by {@code %}. Weights are relative: they need not add up to 100. A transaction the file does
 * not list has weight 0 (it does not occur in this workload); without a mix file every weight is 1.
 */
public record Mix(Map<String, Double> weights, Path source) {
    private static final Pattern LINE = Pattern.compile(
            "^([A-Za-z_$][\\w$.#]*)\\s*(?:[=:]\\s*|\\s+)([0-9]+(?:\\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\\.[0-9]+)\\s*%?$");

    /** A mix file that cannot be read, with the file and line of the problem. */
    public static final class MixException extends Exception {
        public MixException(String message) {
            super(message);
        }
    }

    public Mix {
        weights = Collections.unmodifiableMap(new LinkedHashMap<>(weights));
    }

    public static Mix parse(Path file) throws MixException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException | RuntimeException e) {
            throw new MixException(file + ": cannot read mix file: " + e.getMessage());
        }
        Map<String, Double> weights = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf('#');
            String content = (hash >= 0 ? line.substring(0, hash) : line).trim();
            if (content.isEmpty()) {
                continue;
            }
            Matcher m = LINE.matcher(content);
            if (!m.matches()) {
                throw new MixException(file + ":" + (i + 1) + ": expected \"TRANSACTION WEIGHT\" (a name and a "
                        + "non-negative number, optionally with %), got \"" + content + "\"");
            }
            String name = m.group(1);
            double w = Double.parseDouble(m.group(2));
            if (Double.isInfinite(w) || Double.isNaN(w)) {
                throw new MixException(file + ":" + (i + 1) + ": weight of " + name + " is not a finite number");
            }
            if (weights.put(name, w) != null) {
                throw new MixException(file + ":" + (i + 1) + ": transaction " + name + " is listed twice");
            }
        }
        if (weights.isEmpty()) {
            throw new MixException(file + ": the mix file lists no transaction");
        }
        return new Mix(weights, file);
    }
}
