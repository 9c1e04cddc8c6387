package dev.gyro.replication;

import dev.gyro.wire.Transport;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * One group of the ring: a ring position whose instance is replicated (docs/decisions/12-replicated-groups.md and
 * docs/decisions/22-group-log.md). Validated once, here.
 *
 * @param cluster            the cluster's id: with {@code position}, it names the group's Ratis group for good
 * @param position           the ring position (the instance id of an unreplicated ring)
 * @param replicas           each replica's address for the group's log traffic (Ratis over gRPC), replica i at i
 * @param timeouts  the group's timeouts: commit, election, replica-to-replica calls ({@link GroupTimeouts})
 * @param transport how the group's log traffic travels (docs/decisions/32-group-log-tls.md): with TLS, mutual TLS as
 *                  the position's instance ({@code instance-P}), accepting only that identity of the cluster's CA;
 *                  {@link Transport#insecure()} for plaintext, as the rest of a cluster run with {@code --insecure}
 */
public record GroupSpec(String cluster, int position, List<InetSocketAddress> replicas, GroupTimeouts timeouts,
                        Transport transport, LogRetention retention) {

    public GroupSpec {
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(timeouts, "timeouts");
        Objects.requireNonNull(retention, "retention");
        Objects.requireNonNull(transport, "transport (Transport.insecure() for a plaintext group log)");
        replicas = List.copyOf(replicas);
        if (position < 0) throw new IllegalArgumentException("a ring position is at least 0, was " + position);
        if (replicas.isEmpty()) throw new IllegalArgumentException("a group has at least one replica");
        if (transport.secure() && !Transport.instanceIdentity(position).equals(transport.identity()))
            throw new IllegalArgumentException("the group log of ring position " + position + " speaks TLS as "
                    + Transport.instanceIdentity(position) + ", not as " + transport.identity());
    }

    /** A group that keeps its log as {@link LogRetention#DEFAULT} says. */
    public GroupSpec(String cluster, int position, List<InetSocketAddress> replicas, GroupTimeouts timeouts,
                     Transport transport) {
        this(cluster, position, replicas, timeouts, transport, LogRetention.DEFAULT);
    }

    /** A group with the default timeouts ({@link GroupTimeouts#DEFAULT}). */
    public static GroupSpec of(String cluster, int position, List<InetSocketAddress> replicas, Transport transport) {
        return new GroupSpec(cluster, position, replicas, GroupTimeouts.DEFAULT, transport);
    }

    public GroupSpec withCommitTimeout(Duration d) {
        return new GroupSpec(cluster, position, replicas, timeouts.withCommit(d), transport, retention);
    }

    public GroupSpec withTimeouts(GroupTimeouts t) {
        return new GroupSpec(cluster, position, replicas, t, transport, retention);
    }

    public GroupSpec withTransport(Transport t) {
        return new GroupSpec(cluster, position, replicas, timeouts, t, retention);
    }

    public GroupSpec withRetention(LogRetention r) {
        return new GroupSpec(cluster, position, replicas, timeouts, transport, r);
    }

    /** How long a request waits for a leader and for its entry to commit. */
    public Duration commitTimeout() {
        return timeouts.commit();
    }

    /** How the group is named in messages and in its replicas' databases. */
    public String name() {
        return "group " + position + " of cluster " + cluster;
    }

    public int size() {
        return replicas.size();
    }

    RaftGroupId groupId() {
        return RaftGroupId.valueOf(UUID.nameUUIDFromBytes(("gyro " + cluster + " group " + position)
                .getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Replica {@code replica}'s Ratis peer id: its place in the group and its log address
     * (docs/decisions/47-new-member.md). A member that takes a lost one's place on another address is another peer to
     * Ratis, so that the group's membership changes from one to the other.
     */
    RaftPeerId peerId(int replica) {
        InetSocketAddress a = replicas.get(replica);
        return RaftPeerId.valueOf("replica-" + replica + "-" + (a.getHostString() + "-" + a.getPort())
                .replaceAll("[^A-Za-z0-9.-]", "-"));
    }

    /** The replica (its place in the group) a Ratis peer id names, or -1. */
    static int replicaOf(RaftPeerId id) {
        String s = id == null ? "" : id.toString();
        if (!s.startsWith("replica-")) return -1;
        String rest = s.substring("replica-".length());
        int end = rest.indexOf('-');
        try {
            return Integer.parseInt(end < 0 ? rest : rest.substring(0, end));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    RaftPeer raftPeer(int replica) {
        InetSocketAddress a = replicas.get(replica);
        return RaftPeer.newBuilder().setId(peerId(replica)).setAddress(a.getHostString() + ":" + a.getPort()).build();
    }

    RaftGroup raftGroup() {
        List<RaftPeer> peers = new ArrayList<>();
        for (int i = 0; i < replicas.size(); i++) peers.add(raftPeer(i));
        return RaftGroup.valueOf(groupId(), peers);
    }

    /** This group with replica {@code replica} on another log address: a new member in a lost one's place. */
    public GroupSpec withReplica(int replica, InetSocketAddress address) {
        if (replica < 0 || replica >= replicas.size())
            throw new IllegalArgumentException(name() + " has replicas 0.." + (replicas.size() - 1) + ", not " + replica);
        if (replicas.contains(address))
            throw new IllegalArgumentException(address + " is a log address of " + name() + " already");
        List<InetSocketAddress> moved = new ArrayList<>(replicas);
        moved.set(replica, address);
        return new GroupSpec(cluster, position, moved, timeouts, transport, retention);
    }
}
