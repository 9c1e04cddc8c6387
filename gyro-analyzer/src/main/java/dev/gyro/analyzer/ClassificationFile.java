package dev.gyro.analyzer;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.gyro.analyzer.partition.Classification;
import dev.gyro.analyzer.partition.TransactionClass;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The classification file {@code gyro analyze --json FILE} writes and the runtime reads:
 * <pre>
 * {"transactions": [{"name": "addItem", "class": "local", "readOnly": false,
 *                    "partitionBy": ["cartId"], "reason": "..."}, ...],
 *  "summary": {"local": 2, "global": 1, "localOrGlobal": 0, "readOnly": 0, "total": 3}}
 * </pre>
 * {@code class} is {@code local}, {@code global} or {@code local-or-global}. {@code partitionBy} names
 * input parameters of the transaction (run's parameters after ctx, by their Java names; for legacy code,
 * also {@code object.field} paths and servlet request parameter names). It is empty when the transaction
 * has no input parameter to partition by (route such a request to any instance if it is local). A
 * local-or-global transaction has two: its request is local when both values route to the same instance,
 * and otherwise global, executed at the instance of the first (its home key).
 */
public record ClassificationFile(List<TransactionEntry> transactions, Summary summary) {

    /** One transaction's classification. */
    @JsonPropertyOrder({"name", "class", "readOnly", "partitionBy", "reason"})
    public record TransactionEntry(String name, @JsonProperty("class") String kind, boolean readOnly,
                                   List<String> partitionBy, String reason) {
        public TransactionEntry {
            partitionBy = partitionBy == null ? List.of() : List.copyOf(partitionBy);
        }

        /** The class as an enum (throws on an unknown label). */
        public TransactionClass transactionClass() {
            return TransactionClass.fromLabel(kind);
        }
    }

    /** Counts in the form of the paper's Table I. */
    @JsonPropertyOrder({"local", "global", "localOrGlobal", "readOnly", "total"})
    public record Summary(int local, int global, int localOrGlobal, int readOnly, int total) {
    }

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    public ClassificationFile {
        transactions = List.copyOf(transactions);
    }

    public static ClassificationFile of(List<Classification> classifications) {
        List<TransactionEntry> entries = new ArrayList<>();
        int local = 0;
        int global = 0;
        int both = 0;
        int readOnly = 0;
        for (Classification c : classifications) {
            entries.add(new TransactionEntry(c.name(), c.kind().label(), c.readOnly(), c.partitionBy(), c.reason()));
            switch (c.kind()) {
                case LOCAL -> local++;
                case GLOBAL -> global++;
                case LOCAL_OR_GLOBAL -> both++;
                default -> throw new IllegalStateException(c.kind().name());
            }
            if (c.readOnly()) {
                readOnly++;
            }
        }
        return new ClassificationFile(entries, new Summary(local, global, both, readOnly, classifications.size()));
    }

    public String toJson() {
        try {
            return MAPPER.writeValueAsString(this) + System.lineSeparator();
        } catch (IOException e) {
            throw new IllegalStateException("cannot serialize the classification", e);
        }
    }

    public void write(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, toJson());
    }

    public static ClassificationFile read(Path file) throws IOException {
        return MAPPER.readValue(file.toFile(), ClassificationFile.class);
    }

    public static ClassificationFile parse(String json) throws IOException {
        return MAPPER.readValue(json, ClassificationFile.class);
    }
}
