package dev.gyro.replication;

import dev.gyro.servers.FreePorts;
import dev.gyro.wire.Transport;
import dev.gyro.wire.tls.Certificates;
import dev.gyro.wire.tls.TlsFiles;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.security.TlsConf;
import org.apache.ratis.thirdparty.io.grpc.StatusRuntimeException;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The group log's ports (docs/decisions/32-group-log-tls.md): with TLS, only the position's own instance certificate
 * of the cluster's CA gets a Ratis call through; and a message that is no group entry never enters the log, even from
 * an authenticated peer, so no replica meets it.
 */
@Tag("slow")
class GroupLogSecurityTest {

    private static final int POSITION = 2;

    @TempDir
    Path dir;

    @Test
    void withTlsAPeerWithoutTheGroupsCertificateCannotListTransferOrAppend() throws Exception {
        TlsFiles cluster = Certificates.createCluster(dir.resolve("tls"), "tls-test", POSITION + 1, List.of());
        TlsFiles other = Certificates.createCluster(dir.resolve("other-ca"), "tls-test", POSITION + 1, List.of());
        Transport own = Transport.mutualTls(cluster, Transport.instanceIdentity(POSITION));
        GroupSpec spec = spec(own);
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, Groups.databases(dir, 3), dir.resolve("logs"))) {
            GroupReplica leader = group.awaitLeader(Groups.WAIT);
            group.submit(Groups.order(1)); // over TLS: the followers take the leader's entries
            int follower = (leader.replica() + 1) % 3;

            Map<String, Parameters> strangers = new LinkedHashMap<>();
            strangers.put("plaintext", new Parameters());
            strangers.put("TLS without a certificate", tls(GrpcTlsConfig.newBuilder()
                    .setTrustCertificates(new TlsConf.CertificatesConf(cluster.ca().toFile()))
                    .setMutualTls(false).build()));
            strangers.put("the same identity from another CA", tls(GrpcTlsConfig.newBuilder()
                    .setPrivateKey(new TlsConf.PrivateKeyConf(other.key(own.identity()).toFile()))
                    .setKeyCertificates(new TlsConf.CertificatesConf(other.certificate(own.identity()).toFile()))
                    .setTrustCertificates(new TlsConf.CertificatesConf(cluster.ca().toFile()))
                    .setMutualTls(true).build()));
            strangers.put("the cluster's client certificate", tls(GrpcTlsConfig.newBuilder()
                    .setPrivateKey(new TlsConf.PrivateKeyConf(cluster.key(Certificates.CLIENT).toFile()))
                    .setKeyCertificates(new TlsConf.CertificatesConf(cluster.certificate(Certificates.CLIENT).toFile()))
                    .setTrustCertificates(new TlsConf.CertificatesConf(cluster.ca().toFile()))
                    .setMutualTls(true).build()));

            for (var s : strangers.entrySet()) {
                try (RaftClient c = client(spec, leader, s.getValue())) {
                    Throwable list = catchThrowable(() -> c.getGroupManagementApi(spec.peerId(follower)).list());
                    System.out.println("list groups, " + s.getKey() + ": " + list);
                    assertThat(list).as("listing groups with %s", s.getKey())
                            .isInstanceOfAny(IOException.class, StatusRuntimeException.class);
                    Throwable transfer = catchThrowable(() -> c.admin().transferLeadership(spec.peerId(follower),
                            2_000));
                    System.out.println("transfer leadership, " + s.getKey() + ": " + transfer);
                    assertThat(transfer).as("moving the leader with %s", s.getKey())
                            .isInstanceOfAny(IOException.class, StatusRuntimeException.class);
                    Throwable append = catchThrowable(() -> c.io().send(Message.valueOf(ByteString.copyFrom(
                            new GroupEntry(0, 7, 1, 0, List.of()).encode()))));
                    System.out.println("append, " + s.getKey() + ": " + append);
                    assertThat(append).as("appending with %s", s.getKey())
                            .isInstanceOfAny(IOException.class, StatusRuntimeException.class);
                }
            }

            assertThat(group.leader()).as("the leader stayed").isSameAs(leader);
            group.submit(Groups.order(2));
            assertThat(group.awaitApplied(leader.lastLogIndex(), Groups.WAIT)).isTrue();
            var expected = Groups.contents(leader.database());
            assertThat(expected.get("orders")).hasSize(2);
            for (int i = 0; i < 3; i++) {
                assertThat(Groups.contents(group.replica(i).database())).as("replica %d", i).isEqualTo(expected);
                assertThat(group.replica(i).requestEntries(0, group.replica(i).lastLogIndex()))
                        .as("replica %d holds the two orders' entries and no stranger's", i).isEqualTo(2);
            }
        }
    }

    @Test
    void anAuthenticatedPeersJunkEntryIsRefusedAndNeverApplied() throws Exception {
        TlsFiles cluster = Certificates.createCluster(dir.resolve("tls"), "tls-test", POSITION + 1, List.of());
        Transport own = Transport.mutualTls(cluster, Transport.instanceIdentity(POSITION));
        GroupSpec spec = spec(own);
        try (ReplicatedGroup group = ReplicatedGroup.start(spec, Groups.databases(dir, 3), dir.resolve("logs"))) {
            GroupReplica leader = group.awaitLeader(Groups.WAIT);
            group.submit(Groups.order(1));
            byte[] junk = new byte[16];
            new SecureRandom().nextBytes(junk);
            junk[0] = 1; // this Gyro's entry version: the check must be the decoder's, not the version byte's
            // Authenticated as the group itself (instance-2 of the cluster): TLS lets it through, the decoder must not.
            try (RaftClient c = client(spec, leader, GroupLogTls.parameters(spec))) {
                RaftClientReply[] reply = new RaftClientReply[1];
                Throwable refused = catchThrowable(() ->
                        reply[0] = c.io().send(Message.valueOf(ByteString.copyFrom(junk))));
                System.out.println("junk entry: " + (refused != null ? refused : reply[0]));
                assertThat(refused).as("the junk entry's sender is told").isInstanceOf(StateMachineException.class)
                        .hasMessageContaining("not a group log entry");
            }

            group.submit(Groups.order(2));
            assertThat(group.leader()).as("the leader still leads").isSameAs(leader);
            assertThat(group.awaitApplied(leader.lastLogIndex(), Groups.WAIT)).isTrue();
            var expected = Groups.contents(leader.database());
            assertThat(expected.get("orders")).hasSize(2);
            for (int i = 0; i < 3; i++) {
                GroupReplica r = group.replica(i);
                assertThat(r.term()).as("replica %d still runs", i).isPositive();
                assertThat(Groups.contents(r.database())).as("replica %d", i).isEqualTo(expected);
                assertThat(r.requestEntries(0, r.lastLogIndex())).as("replica %d's log holds no junk entry", i)
                        .isEqualTo(2);
            }
        }
    }

    private static GroupSpec spec(Transport transport) throws IOException {
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (int port : FreePorts.take(3)) addresses.add(new InetSocketAddress("127.0.0.1", port));
        return GroupSpec.of(transport.clusterId(), POSITION, addresses, transport)
                .withCommitTimeout(Duration.ofSeconds(10));
    }

    private static Parameters tls(GrpcTlsConfig conf) {
        Parameters p = new Parameters();
        GrpcConfigKeys.TLS.setConf(p, conf);
        return p;
    }

    /** A Ratis client of the group that tries once, at its leader, with its own parameters (TLS or none). */
    private static RaftClient client(GroupSpec spec, GroupReplica leader, Parameters parameters) {
        RaftProperties p = new RaftProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(3, TimeUnit.SECONDS));
        return RaftClient.newBuilder()
                .setRaftGroup(spec.raftGroup())
                .setLeaderId(spec.peerId(leader.replica()))
                .setProperties(p)
                .setParameters(parameters)
                .setRetryPolicy(RetryPolicies.noRetry())
                .build();
    }
}
