package dev.gyro.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * What every instance of a ring says about itself, asked at once through each one's Status method ({@link Wire#STATUS})
 * over the cluster's transport: one helper for everyone who watches a ring (the instances' live view, {@code gyro
 * cluster status}, the client explaining a request that ran out of time; docs/decisions/18-watching.md). An instance
 * that does not answer within the deadline is listed as unreachable, with why.
 */
public final class RingStatus {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The belt's roles in which an instance holds the token (dev.gyro.protocol.ConveyorBelt.Role). */
    private static final Set<String> HOLDING = Set.of("APPLYING", "PRIMARY", "PARKED");

    private RingStatus() {}

    /** One instance's answer: its status document, or why it gave none. */
    public record Entry(int instance, String address, JsonNode status, String error) {
        public boolean up() {
            return status != null;
        }

        public String role() {
            return up() ? status.path("role").asText("?") : "UNREACHABLE";
        }

        public long number(String field) {
            return up() ? status.path(field).asLong() : 0;
        }

        public double decimal(String field) {
            return up() ? status.path(field).asDouble() : 0;
        }
    }

    /**
     * Asks every instance at once and waits for all answers, each for {@code deadline} at most.
     *
     * @param channels  one channel per instance, in ring order
     * @param addresses their addresses, for the answer
     */
    public static List<Entry> ask(List<? extends Channel> channels, List<String> addresses, Duration deadline) {
        List<ListenableFuture<byte[]>> calls = new ArrayList<>();
        for (Channel ch : channels)
            calls.add(ClientCalls.futureUnaryCall(ch.newCall(Wire.STATUS,
                    CallOptions.DEFAULT.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)), new byte[0]));
        List<Entry> out = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            try {
                JsonNode status = JSON.readTree(calls.get(i).get());
                // the instance's own id: after a ring change the list need not be every id in order
                out.add(new Entry(status.path("instance").asInt(i), addresses.get(i), status, null));
            } catch (ExecutionException e) {
                Status st = Status.fromThrowable(e.getCause());
                out.add(new Entry(i, addresses.get(i), null, st.getCode()
                        + (st.getDescription() == null ? "" : " (" + st.getDescription() + ")")));
            } catch (IOException e) {
                out.add(new Entry(i, addresses.get(i), null, "unreadable status: " + e.getMessage()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                out.add(new Entry(i, addresses.get(i), null, "interrupted"));
            }
        }
        return out;
    }

    /**
     * The instance that holds the token, as far as the answers tell, or -1. An instance that says it holds it (its
     * belt applying, primary or parked) does; when none that answered does, the token is where the latest pass sent it
     * (the highest hop any instance passed): at an instance that did not answer, or on its way to it.
     */
    public static int tokenHolder(List<Entry> entries) {
        for (Entry e : entries) if (e.up() && HOLDING.contains(e.role())) return e.instance();
        long hop = -1;
        int to = -1;
        for (Entry e : entries) {
            JsonNode token = e.up() ? e.status().get("token") : null;
            if (token != null && token.has("passedTo") && token.path("hop").asLong() > hop) {
                hop = token.path("hop").asLong();
                to = token.path("passedTo").asInt();
            }
        }
        return to;
    }

    /** The ring as one document: each instance's status (or why it is unreachable) and who holds the token. */
    public static ObjectNode toJson(List<Entry> entries) {
        ObjectNode root = JSON.createObjectNode();
        root.put("asOf", System.currentTimeMillis());
        root.put("tokenHolder", tokenHolder(entries));
        ArrayNode list = root.putArray("instances");
        for (Entry e : entries) {
            ObjectNode n = e.up() ? e.status().deepCopy() : JSON.createObjectNode();
            n.put("instance", e.instance());
            n.put("address", e.address());
            n.put("up", e.up());
            if (!e.up()) {
                n.put("role", e.role());
                n.put("error", e.error());
            }
            list.add(n);
        }
        return root;
    }

    /** {@link #toJson} as bytes. */
    public static byte[] toJsonBytes(List<Entry> entries) {
        try {
            return JSON.writeValueAsBytes(toJson(entries));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
