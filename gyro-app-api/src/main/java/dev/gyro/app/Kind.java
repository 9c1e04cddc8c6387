package dev.gyro.app;

/** Definition 1 of the paper, per transaction. */
public enum Kind {
    /** No request of another partition reads from it: runs at its owner at once. */
    LOCAL("local"),
    /** Ordered by the token; its state update goes to every instance. */
    GLOBAL("global"),
    /** Partitioned by two keys: local when both route to the same instance, global otherwise. */
    LOCAL_OR_GLOBAL("local-or-global");

    private final String label;

    Kind(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static Kind ofLabel(String label) {
        for (Kind k : values()) if (k.label.equals(label)) return k;
        throw new IllegalArgumentException("unknown class '" + label + "' (expected local, global or local-or-global)");
    }
}
