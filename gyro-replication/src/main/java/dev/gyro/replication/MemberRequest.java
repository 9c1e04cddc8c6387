package dev.gyro.replication;

import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A new member run as a process of its own asks its group to take it in a lost member's place
 * (docs/decisions/47-new-member.md): over the other members' log ports, as the group's own identity (their Ratis
 * servers accept no other), the configuration the group has now with its member in the new one's place swapped for
 * it, compare-and-set at the leader, which first brings the new member up to date.
 */
public final class MemberRequest {

    private static final Logger log = LoggerFactory.getLogger(MemberRequest.class);

    private MemberRequest() {}

    /**
     * Asks {@code spec}'s group for its member in place {@code slot} to be the one {@code spec} puts there (started
     * already, {@link InstanceReplica#join}); again while leadership moves or the new member catches up, until
     * {@code within} passed. Returns once the group's configuration names it.
     *
     * @throws IllegalArgumentException  when {@code spec} names another member that is no member of the group (a
     *                                   wrong address of a member that was not lost)
     * @throws GroupUnavailableException when no member answered, or the change did not commit in time
     */
    public static void takePlace(GroupSpec spec, int slot, Duration within) throws GroupUnavailableException,
            InterruptedException {
        List<RaftPeer> others = new ArrayList<>();
        for (int i = 0; i < spec.size(); i++) if (i != slot) others.add(spec.raftPeer(i));
        RaftPeer self = spec.raftPeer(slot);
        RaftProperties p = new RaftProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(Math.max(3_000, within.toMillis() / 4),
                TimeUnit.MILLISECONDS)); // the leader answers once the new member caught up
        long deadline = System.nanoTime() + within.toNanos();
        String why = "no member answered";
        try (RaftClient c = RaftClient.newBuilder()
                .setClientId(ClientId.randomId())
                .setRaftGroup(RaftGroup.valueOf(spec.groupId(), others))
                .setProperties(p)
                .setParameters(GroupLogTls.parameters(spec))
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(5,
                        TimeDuration.valueOf(200, TimeUnit.MILLISECONDS)))
                .build()) {
            while (System.nanoTime() < deadline) {
                Collection<RaftPeer> current = null;
                for (RaftPeer o : others) {
                    try {
                        current = c.getGroupManagementApi(o.getId()).info(spec.groupId()).getGroup().getPeers();
                        break;
                    } catch (IOException | RuntimeException e) {
                        why = o.getAddress() + ": " + e.getMessage();
                    }
                }
                if (current != null) {
                    if (current.stream().anyMatch(x -> x.getId().equals(self.getId()))) return; // a member already
                    for (RaftPeer o : others)
                        if (current.stream().noneMatch(x -> x.getId().equals(o.getId())))
                            throw new IllegalArgumentException(spec.name() + "'s members are " + addresses(current)
                                    + ": " + o.getAddress() + " (replica " + GroupSpec.replicaOf(o.getId())
                                    + " in --group-log) is none of them");
                    try {
                        RaftClientReply r = c.admin().setConfiguration(replacing(current, slot, self));
                        if (r.isSuccess()) {
                            log.info("{}: the member in place {} is {} now", spec.name(), slot, self.getAddress());
                            return;
                        }
                        why = String.valueOf(r.getException());
                    } catch (IOException | RuntimeException e) {
                        why = e.getMessage();
                    }
                }
                log.info("{}: the new member at {} is not a member yet ({}); asking again", spec.name(),
                        self.getAddress(), why);
                TimeUnit.MILLISECONDS.sleep(200); // a round of the group's heartbeats
            }
        } catch (IOException e) {
            why = e.getMessage();
        }
        throw new GroupUnavailableException(spec.name(), 0, spec.size(), GroupUnavailableException.Outcome.UNKNOWN,
                "the new member at " + self.getAddress() + " was not made a member within " + GroupReplica.millis(within)
                        + ": " + why);
    }

    /**
     * The change from the configuration {@code current} to the same with its member in place {@code slot} swapped for
     * {@code joiner}, compare-and-set: the leader refuses it if its configuration is another by then.
     */
    static SetConfigurationRequest.Arguments replacing(Collection<RaftPeer> current, int slot, RaftPeer joiner) {
        List<RaftPeer> next = new ArrayList<>();
        for (RaftPeer x : current) if (GroupSpec.replicaOf(x.getId()) != slot) next.add(x);
        next.add(joiner);
        return SetConfigurationRequest.Arguments.newBuilder().setServersInCurrentConf(new ArrayList<>(current))
                .setServersInNewConf(next).setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET).build();
    }

    private static List<String> addresses(Collection<RaftPeer> peers) {
        return peers.stream().map(RaftPeer::getAddress).toList();
    }
}
