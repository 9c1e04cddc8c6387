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
 *
 * <p>A transaction of an unmodified application is one of its own methods, which the file names
 * ({@link Method}), and its partitioning parameters are paths into that method's parameters: a parameter's name,
 * then fields or getters of its value ({@code req.customer.id}) or an element of an array ({@code ids[0]}):
 * <pre>
 * {"name": "Amalgamate", "class": "local-or-global", "partitionBy": ["custId0", "custId1"],
 *  "method": {"class": "com.example.bank.Amalgamate", "name": "run",
 *             "parameters": [{"name": "conn", "type": "java.sql.Connection"},
 *                            {"name": "custId0", "type": "long"}, {"name": "custId1", "type": "long"}]}}
 * </pre>
 * Types are written as Java writes them ({@code long}, {@code java.lang.String}, {@code int[]},
 * {@code com.example.Order$Line}). Such a file is validated against the application's classes when Gyro is attached.
 *
 * <p>{@code partitionedTables} says which rows belong to a partition, for moving a bucket with its data
 * (docs/decisions/43-bucket-moves.md): each table that local requests write, with the column that holds the row's
 * partitioning value ({@code "partitionedTables": {"SHOPPING_CARTS": "CART_ID"}}). The rows of a bucket are the
 * rows whose value in that column hashes to it. Absent, buckets cannot be moved.
 */
public final class Classification {

    /**
     * One transaction's line of the file.
     *
     * @param method the application's own method that is the transaction, or null for a transaction of Gyro's API
     */
    public record Rule(String name, Kind kind, boolean readOnly, List<String> partitionBy, String reason,
                       Method method) {
        public Rule {
            partitionBy = List.copyOf(partitionBy);
            reason = reason == null ? "" : reason;
        }

        public Rule(String name, Kind kind, boolean readOnly, List<String> partitionBy, String reason) {
            this(name, kind, readOnly, partitionBy, reason, null);
        }

        /** Why this transaction's class cannot have as many partitioning parameters as it names, or null. */
        public String partitionCountProblem() {
            if (kind == Kind.LOCAL_OR_GLOBAL && partitionBy.size() != 2)
                return "transaction " + name + " is local-or-global and needs exactly two partitioning parameters, has "
                        + partitionBy;
            if (kind == Kind.LOCAL && partitionBy.size() > 1)
                return "transaction " + name + " is local and may have at most one partitioning parameter";
            return null;
        }
    }

    /** An application's own method: its class's binary name, its name and its parameters, in order. */
    public record Method(String className, String name, List<Parameter> parameters) {
        public Method {
            parameters = List.copyOf(parameters);
        }

        /** {@code com.example.Bank.run(java.sql.Connection conn, long custId)}. */
        @Override
        public String toString() {
            StringBuilder s = new StringBuilder(className).append('.').append(name).append('(');
            for (int i = 0; i < parameters.size(); i++)
                s.append(i == 0 ? "" : ", ").append(parameters.get(i).type()).append(' ').append(parameters.get(i).name());
            return s.append(')').toString();
        }
    }

    /** A parameter of a {@link Method}: its name in the source, and its type as Java writes it. */
    public record Parameter(String name, String type) {}

    /** Counts in the form of the paper's Table I. */
    public record Summary(int local, int global, int localOrGlobal, int readOnly, int total) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, Rule> rules;
    private final Map<String, String> partitionedTables;

    public Classification(List<Rule> rules) {
        this(rules, Map.of());
    }

    /** @param partitionedTables table to the column holding its rows' partitioning value, in the file's order */
    public Classification(List<Rule> rules, Map<String, String> partitionedTables) {
        this.partitionedTables = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(partitionedTables));
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

    /**
     * Each table local requests write, with the column that holds its rows' partitioning value; empty when the file
     * does not say (then buckets cannot be moved with their data).
     */
    public Map<String, String> partitionedTables() {
        return partitionedTables;
    }

    /** The same rules with {@code tables} as the partitioned tables. */
    public Classification withPartitionedTables(Map<String, String> tables) {
        return new Classification(rules(), tables);
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
            if (r.method() != null) {
                ObjectNode m = t.putObject("method");
                m.put("class", r.method().className());
                m.put("name", r.method().name());
                ArrayNode ps = m.putArray("parameters");
                for (Parameter p : r.method().parameters()) ps.addObject().put("name", p.name()).put("type", p.type());
            }
        }
        if (!partitionedTables.isEmpty()) {
            ObjectNode tables = root.putObject("partitionedTables");
            partitionedTables.forEach(tables::put);
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
            String count = r.partitionCountProblem();
            if (count != null) problems.add(count);
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
            rules.add(new Rule(name, kind, readOnly, by, t.path("reason").asText(""), method(t.get("method"), where)));
        }
        return new Classification(rules, partitionedTables(root.get("partitionedTables"), source));
    }

    private static Map<String, String> partitionedTables(JsonNode tables, String source) {
        Map<String, String> out = new LinkedHashMap<>();
        if (tables == null || tables.isNull()) return out;
        if (!tables.isObject())
            throw new IllegalArgumentException("classification " + source + ": \"partitionedTables\" must be an object"
                    + " of table names to column names, as {\"ORDERS\": \"CUSTOMER_ID\"}");
        tables.fields().forEachRemaining(e -> {
            if (!e.getValue().isTextual() || e.getValue().asText().isBlank())
                throw new IllegalArgumentException("classification " + source + ": \"partitionedTables\" names no"
                        + " column for table " + e.getKey() + " (a column name as text, not " + e.getValue() + ")");
            out.put(e.getKey(), e.getValue().asText());
        });
        return out;
    }

    /** The {@code "method"} of a transaction, or null when it has none. */
    private static Method method(JsonNode m, String where) {
        if (m == null || m.isNull()) return null;
        if (!m.isObject()) throw new IllegalArgumentException(where + ": \"method\" must be an object");
        String cls = m.path("class").asText(""), name = m.path("name").asText("");
        if (cls.isBlank() || name.isBlank())
            throw new IllegalArgumentException(where + ": \"method\" needs a \"class\" and a \"name\"");
        JsonNode ps = m.get("parameters");
        if (ps == null || !ps.isArray())
            throw new IllegalArgumentException(where + ": \"method\" needs a \"parameters\" array (empty for none)");
        List<Parameter> parameters = new ArrayList<>();
        for (JsonNode p : ps) {
            String pn = p.path("name").asText(""), pt = p.path("type").asText("");
            if (pn.isBlank() || pt.isBlank())
                throw new IllegalArgumentException(where + ": each parameter of \"method\" needs a \"name\" and a"
                        + " \"type\", not " + p);
            parameters.add(new Parameter(pn, pt));
        }
        return new Method(cls, name, parameters);
    }

    private static String text(JsonNode node, String field, String source) {
        JsonNode v = node.get(field);
        if (v == null || !v.isTextual() || v.asText().isEmpty())
            throw new IllegalArgumentException("classification " + source + ": a transaction lacks \"" + field + "\"");
        return v.asText();
    }
}
