package dev.gyro.replication;

import dev.gyro.runtime.db.UnavailableException;

/**
 * A request its group could not commit (docs/decisions/10-errors.md and docs/decisions/22-group-log.md): the message
 * names the group and how many of its replicas the answering replica could reach. {@link #outcome()} says whether the
 * request is known to have changed nothing, or may still commit (its entry is in the log of a replica that may yet
 * reach a majority).
 */
public final class GroupUnavailableException extends UnavailableException {

    /** What the caller knows about the request's effect. */
    public enum Outcome {
        /** Nothing of the request is, or will be, in any replica's database: safe to run again. */
        NOT_APPLIED,
        /**
         * Not in the answering replica's database now; its log entry may still commit once a majority is back, and
         * then every replica applies it. Only a request id makes a retry safe.
         */
        UNKNOWN
    }

    private final String group;
    private final int reached;
    private final int replicas;
    private final Outcome outcome;

    GroupUnavailableException(String group, int reached, int replicas, Outcome outcome, String why) {
        super(group + " is unavailable: " + why + " (reached " + reached + " of its " + replicas
                + " replicas, a majority is " + (replicas / 2 + 1) + "; "
                + (outcome == Outcome.NOT_APPLIED ? "the request changed nothing"
                : "the request is not committed; it may still be if the group regains a majority") + ")",
                outcome == Outcome.UNKNOWN);
        this.group = group;
        this.reached = reached;
        this.replicas = replicas;
        this.outcome = outcome;
    }

    public String group() {
        return group;
    }

    /** Replicas of the group the answering replica could reach, itself included. */
    public int reached() {
        return reached;
    }

    public int replicas() {
        return replicas;
    }

    public Outcome outcome() {
        return outcome;
    }
}
