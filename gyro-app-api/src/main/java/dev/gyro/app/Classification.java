package dev.gyro.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The classification of an application's transactions, and the one codec of its file: per transaction,
 * local / global / local-or-global (Definition 1), whether it is read-only, its partitioning parameter(s) and
 * why. {@code gyro analyze --json} writes it ({@link #write}), the runtime reads it ({@link #read}), and it may be
 * written by hand:
 * <pre>
 * {"transactions": [{"name": "addItem", "class": "local", "readOnly": false,
 *                    "partitionBy": ["cartId"], "reason": "..."}, ...],
 *  "summary": {"local": 2, "global": 1, "localOrGlobal": 0, "readOnly": 0, "total": 3}}
 * </pre>
 * {@code partitionBy} names input parameters of the transaction; it is empty when there is none to partition by.
 * A local-or-global transaction has two: its request is local when both values route to the same instance, and
 * otherwise global, executed at the instance of the first (its home key). The summary counts as the paper's
 * Table I does; reading ignores it. Validated against the application's transactions when an instance starts.
 */
public final class Classification {

    /** One transaction's line of the file. */
    public record Rule(String name, Kind kind, boolean readOnly, List<String> partitionBy, String reason) {
        public Rule {
            partitionBy = List.copyOf(partitionBy);
            reason = reason == null ? "" : reason;
        }
    }

    /** Counts in the form of the paper's Table I. */
    public record Summary(int local, int global, int localOrGlobal, int readOnly, int total) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, Rule> rules;

    public Classification(List<Rule> rules) {
        Map<String, Rule> m = new LinkedHashMap<>();
        for (Rule r : rules)
            if (m.put(r.name(), r) != null) throw new IllegalArgumentException("transaction " + r.name()
                    + " is classified twice");
        this.rules = m;
    }

    public Rule rule(String transaction) {
        Rule r = rules.get(transaction);
        if (r == null) throw new IllegalArgumentException("transaction " + transaction + " is not classified");
        return r;
    }

    public List<Rule> rules() {
        return List.copyOf(rules.values());
    }

    public Summary summary() {
        int local = 0, global = 0, both = 0, readOnly = 0;
        for (Rule r : rules.values()) {
            switch (r.kind()) {
                case LOCAL -> local++;
                case GLOBAL -> global++;
                case LOCAL_OR_GLOBAL -> both++;
            }
            if (r.readOnly()) readOnly++;
        }
        return new Summary(local, global, both, readOnly, rules.size());
    }

    /** The file's text, transactions in the order given. */
    public String toJson() {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode txs = root.putArray("transactions");
        for (Rule r : rules.values()) {
            ObjectNode t = txs.addObject();
            t.put("name", r.name());
            t.put("class", r.kind().label());
            t.put("readOnly", r.readOnly());
            ArrayNode by = t.putArray("partitionBy");
            r.partitionBy().forEach(by::add);
            t.put("reason", r.reason());
        }
        Summary s = summary();
        ObjectNode sum = root.putObject("summary");
        sum.put("local", s.local());
        sum.put("global", s.global());
        sum.put("localOrGlobal", s.localOrGlobal());
        sum.put("readOnly", s.readOnly());
        sum.put("total", s.total());
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + System.lineSeparator();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes the file, creating its folder. */
    public void write(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        Files.writeString(file, toJson());
    }

    /**
     * Checks that every transaction of the catalog is classified, with partitioning parameters it has, and in
     * the number its class needs (local: at most one, local-or-global: exactly two).
     */
    public void validateAgainst(TransactionCatalog catalog) {
        List<String> problems = new ArrayList<>();
        for (String name : catalog.names()) {
            Rule r = rules.get(name);
            if (r == null) {
                problems.add("transaction " + name + " has no classification");
                continue;
            }
            TransactionCatalog.Entry e = catalog.get(name);
            for (String p : r.partitionBy())
                if (!e.parameterNames().contains(p))
                    problems.add("transaction " + name + " is partitioned by '" + p + "', which is not one of its "
                            + "parameters " + e.parameterNames());
            if (r.kind() == Kind.LOCAL_OR_GLOBAL && r.partitionBy().size() != 2)
                problems.add("transaction " + name + " is local-or-global and needs exactly two partitioning "
                        + "parameters, has " + r.partitionBy());
            if (r.kind() == Kind.LOCAL && r.partitionBy().size() > 1)
                problems.add("transaction " + name + " is local and may have at most one partitioning parameter");
        }
        for (String name : rules.keySet())
            if (!catalog.contains(name)) problems.add("classified transaction " + name + " does not exist");
        if (!problems.isEmpty())
            throw new IllegalArgumentException("classification does not match the application: "
                    + String.join("; ", problems));
    }

    /**
     * The {@code classification.json} that sits beside {@code owner} in its jar (same package), the usual place for
     * an application's classification.
     *
     * @throws IllegalStateException naming the resource when it is missing
     */
    public static Classification resource(Class<?> owner) {
        String where = owner.getPackageName().replace('.', '/') + "/classification.json";
        try (InputStream in = owner.getResourceAsStream("classification.json")) {
            if (in == null) throw new IllegalStateException(owner.getName() + ": " + where + " is missing from its jar");
            return read(in, where);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + where, e);
        }
    }

    public static Classification read(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return read(in, file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read classification file " + file, e);
        }
    }

    public static Classification read(InputStream in, String source) {
        JsonNode root;
        try {
            root = JSON.readTree(in);
        } catch (IOException e) {
            throw new IllegalArgumentException("classification " + source + " is not valid JSON: "
                    + e.getMessage());
        }
        JsonNode txs = root == null ? null : root.get("transactions");
        if (txs == null || !txs.isArray())
            throw new IllegalArgumentException("classification " + source + ": missing \"transactions\" array");
        List<Rule> rules = new ArrayList<>();
        for (JsonNode t : txs) {
            String name = text(t, "name", source);
            String where = "classification " + source + ", transaction " + name;
            Kind kind;
            try {
                kind = Kind.ofLabel(text(t, "class", source));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage());
            }
            List<String> by = new ArrayList<>();
            JsonNode pb = t.get("partitionBy");
            if (pb != null && !pb.isNull()) {
                if (!pb.isArray()) throw new IllegalArgumentException(where + ": \"partitionBy\" must be an array");
                pb.forEach(p -> by.add(p.asText()));
            }
            boolean readOnly = t.path("readOnly").asBoolean(false);
            rules.add(new Rule(name, kind, readOnly, by, t.path("reason").asText("")));
        }
        return new Classification(rules);
    }

    private static String text(JsonNode node, String field, String source) {
        JsonNode v = node.get(field);
        if (v == null || !v.isTextual() || v.asText().isEmpty())
            throw new IllegalArgumentException("classification " + source + ": a transaction lacks \"" + field + "\"");
        return v.asText();
    }
}
