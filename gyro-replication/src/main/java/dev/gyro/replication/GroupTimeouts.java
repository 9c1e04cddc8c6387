package dev.gyro.replication;

import java.time.Duration;

/**
 * A group's timeouts (docs/decisions/22-group-log.md, "Ratis settings"). Validated once, here.
 *
 * <p>A failover takes about: the time until a follower's election timeout runs out after the leader's last heartbeat
 * (Ratis sends heartbeats at half of {@link #electionMin}), a pre-vote and a vote round on the group's links, and the
 * new leader's first entry committed, after which requests run on it. The defaults aim at a failover well under three
 * seconds on a loaded two-core machine: an election timeout of 0.5-1 s leaves a follower at least two missed heartbeats
 * before it campaigns, and Ratis' pre-vote keeps a follower that was merely slow (a pause on a busy machine) from
 * deposing a leader the others still hear.
 *
 * @param commit      how long a request waits for a leader and for its log entry to commit before it is answered
 *                    {@link GroupUnavailableException}
 * @param electionMin Ratis' election timeout, lower bound: how long a follower waits for a silent leader at least;
 *                    Ratis' heartbeat interval is half of it
 * @param electionMax Ratis' election timeout, upper bound (each wait is drawn between the two, so that candidates
 *                    rarely split the vote)
 * @param request     Ratis' timeout of one replica-to-replica call (log entries, votes) before it is retried; a
 *                    stopped replica refuses its connections at once, so this does not enter a failover
 */
public record GroupTimeouts(Duration commit, Duration electionMin, Duration electionMax, Duration request) {

    public static final GroupTimeouts DEFAULT = new GroupTimeouts(Duration.ofSeconds(5), Duration.ofMillis(500),
            Duration.ofMillis(1000), Duration.ofSeconds(3));

    public GroupTimeouts {
        positive("commit", commit);
        positive("electionMin", electionMin);
        positive("request", request);
        if (electionMax.compareTo(electionMin) <= 0)
            throw new IllegalArgumentException("election timeouts must have min < max, were " + electionMin
                    + " and " + electionMax);
    }

    private static void positive(String what, Duration d) {
        if (d.isNegative() || d.isZero())
            throw new IllegalArgumentException(what + " timeout must be positive, was " + d);
    }

    public GroupTimeouts withCommit(Duration d) {
        return new GroupTimeouts(d, electionMin, electionMax, request);
    }

    public GroupTimeouts withElection(Duration min, Duration max) {
        return new GroupTimeouts(commit, min, max, request);
    }

    /** The interval at which a leader sends heartbeats: Ratis' own rule, half the shortest election timeout. */
    public Duration heartbeat() {
        return electionMin.dividedBy(2);
    }
}
