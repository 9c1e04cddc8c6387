package dev.gyro.analyzer.partition;

/** Definition 1 of the paper, with the double-key scheme of its RUBiS analysis (Section VII-A). */
public enum TransactionClass {
    /** No request of another partition reads from its requests: run on the instance of its partition. */
    LOCAL("local"),
    /** Some request of another partition may read from it: totally ordered and applied everywhere. */
    GLOBAL("global"),
    /**
     * Partitioned by two keys: a request is local when both keys route to the same instance, global
     * otherwise (executed, like every global request, at the instance its first key routes to).
     */
    LOCAL_OR_GLOBAL("local-or-global");

    private final String label;

    TransactionClass(String label) {
        this.label = label;
    }

    /** The name used in the classification file and the report. */
    public String label() {
        return label;
    }

    public static TransactionClass fromLabel(String label) {
        for (TransactionClass c : values()) {
            if (c.label.equals(label)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown transaction class: " + label);
    }
}
