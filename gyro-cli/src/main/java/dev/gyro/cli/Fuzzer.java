package dev.gyro.cli;

import dev.gyro.app.TransactionCatalog;
import dev.gyro.check.ReplicaCheck;
import dev.gyro.protocol.Codec;
import dev.gyro.protocol.MalformedMessageException;
import dev.gyro.protocol.Message;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Token;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.MetadataStore;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;
import dev.gyro.wire.Transport;
import dev.gyro.wire.Wire;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Sends random and mutated messages to a live instance, authenticated so they pass the TLS handshake and reach its
 * decoders (docs/decisions/13-secure-by-default.md, "Fuzzed"): client requests (garbage and truncated encodings,
 * unknown transactions, wrong arity and types, huge values, a far session gsn, the forwarded flag) and peer messages
 * (token passes, wants, acknowledgements, the start-up position question; random, mutated from valid ones, from a
 * sender other than the certificate's, with another cluster's or ring's headers). Peer messages carry the certificate
 * of the target's ring successor: a token pass from it reaches the decoder and is then refused, as it would be from
 * anyone but the predecessor, whom the ring trusts with its state updates.
 *
 * <p>Every request is built to be invalid, so none may change a replica. The run checks: no crash (every instance
 * answers Status at the end, and every {@value #CHECK_EVERY} messages), no hang (every call answered within the
 * deadline), each answer an error of a known kind (counted), and every instance's database unchanged (every
 * application table's digest and the last gsn).
 */
final class Fuzzer {

    static final int CHECK_EVERY = 10_000;
    static final Duration DEADLINE = Duration.ofSeconds(10);
    private static final int IN_FLIGHT = 32;

    static final Metadata.Key<String> CLUSTER = Metadata.Key.of("gyro-cluster", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> RING = Metadata.Key.of("gyro-ring", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> FROM = Metadata.Key.of("gyro-from", Metadata.ASCII_STRING_MARSHALLER);

    /**
     * What to fuzz.
     *
     * @param addresses  the ring, in order
     * @param target     the instance to send to
     * @param client     the transport of a client (its certificate)
     * @param peer       the transport with the certificate of the target's successor
     * @param clusterId  the cluster's id, as peers send it
     * @param ring       the ring's fingerprint, as peers send it
     * @param jdbcUrls   every instance's database, to compare before and after
     */
    record Target(List<String> addresses, int target, Transport client, Transport peer, String clusterId, String ring,
                  TransactionCatalog catalog, List<String> jdbcUrls) {
        int successor() {
            return (target + 1) % addresses.size();
        }

        int predecessor() {
            return Math.floorMod(target - 1, addresses.size());
        }
    }

    /** What a run found. */
    record Result(long messages, long millis, long crashes, long hangs, Map<String, Long> answers, List<String> changed) {
        boolean clean() {
            return crashes == 0 && hangs == 0 && changed.isEmpty() && !answers.containsKey(UNEXPECTED_OK);
        }

        String summary() {
            List<String> kinds = new ArrayList<>();
            answers.forEach((k, n) -> kinds.add(k + "=" + n));
            return String.format("fuzz: %d messages in %d s, %d crashes, %d hangs, answers: %s; %s", messages,
                    Math.round(millis / 1000.0), crashes, hangs, String.join(", ", kinds),
                    changed.isEmpty() ? "replicas unchanged" : "REPLICAS CHANGED: " + String.join("; ", changed));
        }
    }

    static final String UNEXPECTED_OK = "UNEXPECTED ok";

    private final Target t;
    private final Map<String, LongAdder> answers = new ConcurrentHashMap<>();
    private final LongAdder hangs = new LongAdder();
    private final List<String> validTransactions;

    Fuzzer(Target target) {
        this.t = target;
        this.validTransactions = target.catalog().names();
    }

    Result run(long count, Duration bound, long seed, Consumer<String> progress) throws Exception {
        Map<String, String> before = replicas();
        long start = System.nanoTime();
        long deadline = start + bound.toNanos();
        long crashes = 0;
        long sent = 0;
        ManagedChannel clientChannel = t.client().channel(t.addresses().get(t.target()));
        ManagedChannel peerChannel = t.peer().channel(t.addresses().get(t.target()));
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        SplittableRandom rnd = new SplittableRandom(seed);
        try {
            for (; sent < count && System.nanoTime() < deadline; sent++) {
                SplittableRandom r = rnd.split();
                inFlight.acquire();
                boolean toPeer = r.nextInt(10) < 4;
                Call call = toPeer ? peerMessage(r, peerChannel) : clientRequest(r, clientChannel);
                CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
                var future = call.method == Wire.LINK ? Wire.linkOnce(call.channel, options, call.body)
                        : ClientCalls.futureUnaryCall(call.channel.newCall(call.method, options), call.body);
                future.addListener(() -> {
                    try {
                        count(call, future);
                    } finally {
                        inFlight.release();
                    }
                }, Runnable::run);
                if ((sent + 1) % CHECK_EVERY == 0) {
                    crashes += unreachable(progress);
                    progress.accept(String.format("fuzz: %d messages, %d s, %d hangs", sent + 1,
                            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start), hangs.sum()));
                }
            }
            inFlight.acquire(IN_FLIGHT); // every answer is in
            crashes += unreachable(progress);
        } finally {
            clientChannel.shutdownNow();
            peerChannel.shutdownNow();
        }
        Map<String, String> after = replicas();
        List<String> changed = new ArrayList<>();
        for (String key : before.keySet())
            if (!before.get(key).equals(after.get(key)))
                changed.add(key + ": " + before.get(key) + " -> " + after.get(key));
        for (String key : after.keySet()) if (!before.containsKey(key)) changed.add(key + ": new");
        Map<String, Long> kinds = new TreeMap<>();
        answers.forEach((k, n) -> kinds.put(k, n.sum()));
        for (String h : hung) progress.accept("fuzz: not answered within " + DEADLINE.toSeconds() + " s: " + h);
        return new Result(sent, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), crashes, hangs.sum(), kinds,
                changed);
    }

    private record Call(Channel channel, MethodDescriptor<byte[], byte[]> method, byte[] body, boolean request) {
        String describe() {
            return method.getBareMethodName() + " of " + body.length + " bytes starting "
                    + java.util.HexFormat.of().formatHex(body, 0, Math.min(body.length, 24));
        }
    }

    /** The first calls that were not answered in time, to find out why. */
    private final List<String> hung = java.util.Collections.synchronizedList(new ArrayList<>());

    private void count(Call call, com.google.common.util.concurrent.ListenableFuture<byte[]> future) {
        String kind;
        try {
            byte[] answer = future.get();
            kind = call.request ? replyKind(answer) : call.method == Wire.POSITION ? "peer: position told" : "peer: accepted";
        } catch (ExecutionException e) {
            Status st = Status.fromThrowable(e.getCause());
            if (st.getCode() == Status.Code.DEADLINE_EXCEEDED) {
                hangs.increment();
                if (hung.size() < 5) hung.add(call.describe());
            }
            kind = (call.request ? "request: " : "peer: ") + switch (st.getCode()) {
                case INVALID_ARGUMENT -> "malformed";
                case FAILED_PRECONDITION, PERMISSION_DENIED -> "refused";
                case RESOURCE_EXHAUSTED -> "too large";
                default -> st.getCode().name().toLowerCase();
            };
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kind = "interrupted";
        }
        answers.computeIfAbsent(kind, k -> new LongAdder()).increment();
    }

    private static String replyKind(byte[] answer) {
        Reply reply;
        try {
            reply = Reply.decode(answer);
        } catch (MalformedMessageException e) {
            return "request: MALFORMED REPLY";
        }
        if (reply.ok()) return UNEXPECTED_OK;
        String m = reply.message();
        String what = m.startsWith("malformed request") ? "malformed"
                : m.startsWith("unknown transaction") ? "unknown transaction"
                : m.contains(" parameter(s), got ") ? "wrong arity"
                : m.contains(": expected ") || m.contains("must not be NULL") || m.contains("does not fit") ? "wrong type"
                : reply.status().name().toLowerCase();
        return "request: " + what;
    }

    // ------------------------------------------------------------------------------------------ client requests

    private Call clientRequest(SplittableRandom r, Channel ch) {
        byte[] body;
        do {
            body = switch (r.nextInt(9)) {
                case 0 -> garbage(r);
                case 1 -> truncate(r, wrongRequest(r).encode());
                case 2 -> flip(r, wrongRequest(r).encode());
                case 3 -> new Request(randomName(r), randomValues(r, r.nextInt(6)), r.nextBoolean(), r.nextLong()).encode();
                default -> wrongRequest(r).encode();
            };
        } while (valid(body)); // a mutation may turn a wrong request into a right one, which would run and write
        int method = r.nextInt(50);
        // now and then the other client methods with a body they ignore: they must still answer
        return new Call(ch, method == 0 ? Wire.DESCRIBE : method == 1 ? Wire.STATUS : Wire.EXECUTE, body, method > 1);
    }

    /** True when {@code body} is a request the instance would run: right transaction, arity and types. */
    private boolean valid(byte[] body) {
        try {
            Request request = Request.decode(body);
            t.catalog().get(request.transaction()).arguments(null, request.parameters());
            return true;
        } catch (RuntimeException e) { // malformed, unknown transaction or wrong parameters
            return false;
        }
    }

    /** A request for a real transaction that is certainly invalid: wrong arity, or one parameter of a wrong type. */
    private Request wrongRequest(SplittableRandom r) {
        TransactionCatalog.Entry e = t.catalog().get(validTransactions.get(r.nextInt(validTransactions.size())));
        int arity = e.parameterTypes().size();
        List<Value> values;
        if (arity == 0 || r.nextBoolean()) {
            int n;
            do n = r.nextInt(arity + 4); while (n == arity);
            values = randomValues(r, n);
        } else {
            values = new ArrayList<>();
            for (Class<?> type : e.parameterTypes()) values.add(rightValue(r, type));
            int wrong = r.nextInt(arity);
            values.set(wrong, wrongValue(r, e.parameterTypes().get(wrong)));
        }
        long afterGsn = r.nextInt(4) == 0 ? r.nextLong(Long.MAX_VALUE) : 0; // a far session gsn must not make it wait
        return new Request(e.name(), values, r.nextInt(8) == 0, afterGsn);
    }

    private static Value rightValue(SplittableRandom r, Class<?> type) {
        if (type == String.class) return new Value.Text(text(r, r.nextInt(16)));
        if (type == byte[].class) return new Value.Blob(bytes(r, r.nextInt(16)));
        if (type == double.class || type == Double.class) return new Value.Real(r.nextDouble());
        if (type == boolean.class || type == Boolean.class) return new Value.Int(r.nextInt(2));
        if (type == int.class || type == Integer.class) return new Value.Int(r.nextInt());
        return new Value.Int(r.nextLong());
    }

    private static Value wrongValue(SplittableRandom r, Class<?> type) {
        if (type == String.class) return r.nextBoolean() ? new Value.Int(r.nextLong()) : new Value.Blob(bytes(r, 8));
        if (type == byte[].class) return new Value.Real(r.nextDouble());
        if (type == int.class || type == Integer.class)
            return r.nextBoolean() ? new Value.Int(Integer.MAX_VALUE + 1L + r.nextInt(1000)) : huge(r);
        if (type == boolean.class || type == Boolean.class) return new Value.Int(2 + r.nextInt(100));
        if (type.isPrimitive() && r.nextBoolean()) return Value.NULL;
        return r.nextBoolean() ? huge(r) : new Value.Blob(bytes(r, r.nextInt(64)));
    }

    /** A large text: most a few kilobytes, one in fifty a megabyte. */
    private static Value huge(SplittableRandom r) {
        return new Value.Text("x".repeat(r.nextInt(50) == 0 ? 1 << 20 : 1 + r.nextInt(8192)));
    }

    private static List<Value> randomValues(SplittableRandom r, int n) {
        List<Value> values = new ArrayList<>(n);
        for (int i = 0; i < n; i++)
            values.add(switch (r.nextInt(6)) {
                case 0 -> Value.NULL;
                case 1 -> new Value.Int(r.nextLong());
                case 2 -> new Value.Real(r.nextDouble() * r.nextLong());
                case 3 -> new Value.Text(text(r, r.nextInt(32)));
                case 4 -> new Value.Blob(bytes(r, r.nextInt(32)));
                default -> huge(r);
            });
        return values;
    }

    private String randomName(SplittableRandom r) {
        String name;
        do name = r.nextInt(20) == 0 ? "x".repeat(1 << 16) : text(r, r.nextInt(24));
        while (validTransactions.contains(name));
        return name;
    }

    // ------------------------------------------------------------------------------------------ peer messages

    private Call peerMessage(SplittableRandom r, Channel ch) {
        int self = t.successor();
        String from = Integer.toString(self);
        String cluster = t.clusterId(), ring = t.ring();
        int headers = r.nextInt(20);
        if (headers == 0) cluster = text(r, 8);
        else if (headers == 1) ring = text(r, 8);
        else if (headers == 2) from = Integer.toString(t.predecessor()); // not what its certificate says
        if (r.nextInt(40) == 0) return peerCall(ch, cluster, ring, from, Wire.POSITION, bytes(r, r.nextInt(8)));
        byte[] body = switch (r.nextInt(12)) {
            case 0 -> garbage(r);
            case 1 -> truncate(r, Codec.encodeMessage(tokenPass(r, self)));
            case 2 -> flip(r, Codec.encodeMessage(tokenPass(r, self)));
            case 3 -> Codec.encodeMessage(tokenPass(r, r.nextBoolean() ? self : t.predecessor()));
            case 4 -> Codec.encodeMessage(new Message.Want(r.nextInt(4) == 0 ? r.nextInt() : self));
            case 5 -> flip(r, Codec.encodeMessage(new Message.Want(self)));
            // an acknowledgement of a hop the target never passed: a far one, or a negative one
            case 6 -> Codec.encodeMessage(new Message.TokenAck(self, r.nextBoolean() ? Long.MIN_VALUE + r.nextInt(1000)
                    : Long.MAX_VALUE - r.nextInt(1000)));
            // an update sent ahead of the token that its sender did not make (another instance's, or no member's)
            case 8 -> Codec.encodeMessage(new Message.UpdateAhead(self, new StateUpdate(r.nextInt(100) + 1,
                    r.nextBoolean() && t.predecessor() != self ? t.predecessor() : t.addresses().size() + r.nextInt(3),
                    List.of())));
            case 9 -> truncate(r, Codec.encodeMessage(new Message.UpdateAhead(self, new StateUpdate(1, self,
                    List.of()))));
            // a claim to have applied gsns the target never made (it would leave them off the token)
            case 10 -> Codec.encodeMessage(new Message.AppliedAhead(self, Long.MAX_VALUE - r.nextInt(1000)));
            case 11 -> truncate(r, Codec.encodeMessage(new Message.AppliedAhead(self, 1)));
            default -> flip(r, Codec.encodeMessage(new Message.TokenAck(self, r.nextLong())));
        };
        // as instances send them, on a stream, or one message a call
        return peerCall(ch, cluster, ring, from, r.nextBoolean() ? Wire.LINK : Wire.DELIVER, body);
    }

    private static Call peerCall(Channel ch, String cluster, String ring, String from,
                                 MethodDescriptor<byte[], byte[]> method, byte[] body) {
        Metadata m = new Metadata();
        m.put(CLUSTER, cluster);
        m.put(RING, ring);
        m.put(FROM, from);
        return new Call(ClientInterceptors.intercept(ch, MetadataUtils.newAttachHeadersInterceptor(m)), method, body, false);
    }

    private Message.TokenPass tokenPass(SplittableRandom r, int from) {
        List<StateUpdate> updates = new ArrayList<>();
        long gsn = r.nextInt(3) == 0 ? r.nextLong(Long.MAX_VALUE / 2) : r.nextInt(100);
        for (int i = r.nextInt(4); i > 0; i--) {
            gsn += 1 + (r.nextInt(4) == 0 ? r.nextInt(10) : 0); // now and then a gap
            List<RowChange> changes = new ArrayList<>();
            for (int c = r.nextInt(3); c > 0; c--) {
                RowChange.Kind kind = RowChange.Kind.values()[r.nextInt(RowChange.Kind.values().length)];
                changes.add(new RowChange(r.nextBoolean() ? "ITEMS" : text(r, 6), kind, List.of("I_ID", "NAME"),
                        List.of(new Value.Int(r.nextLong()), new Value.Text("FUZZED")),
                        kind.keyless() ? List.of() : List.of("I_ID")));
            }
            updates.add(new StateUpdate(gsn, r.nextInt(t.addresses().size() + 2), changes));
        }
        return new Message.TokenPass(from, new Token(r.nextLong(Long.MAX_VALUE), updates));
    }

    // ------------------------------------------------------------------------------------------ mutations

    private static byte[] garbage(SplittableRandom r) {
        return bytes(r, r.nextInt(10) == 0 ? r.nextInt(1 << 16) : r.nextInt(64));
    }

    private static byte[] truncate(SplittableRandom r, byte[] valid) {
        return java.util.Arrays.copyOf(valid, valid.length == 0 ? 0 : r.nextInt(valid.length));
    }

    /** One to four bytes of a valid encoding changed: a count, a tag, a length or a value. */
    private static byte[] flip(SplittableRandom r, byte[] valid) {
        byte[] b = valid.clone();
        if (b.length == 0) return b;
        for (int i = 1 + r.nextInt(4); i > 0; i--) b[r.nextInt(b.length)] = (byte) r.nextInt(256);
        return b;
    }

    private static byte[] bytes(SplittableRandom r, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) r.nextInt(256);
        return b;
    }

    private static String text(SplittableRandom r, int n) {
        StringBuilder s = new StringBuilder(n);
        for (int i = 0; i < n; i++) s.appendCodePoint(r.nextInt(8) == 0 ? 0x80 + r.nextInt(0x2000) : 'a' + r.nextInt(26));
        return s.toString();
    }

    // ------------------------------------------------------------------------------------------ checks

    /** How many instances do not answer Status now (each a crash). */
    private long unreachable(Consumer<String> progress) {
        long down = 0;
        for (int i = 0; i < t.addresses().size(); i++) {
            ManagedChannel ch = t.client().channel(t.addresses().get(i));
            try {
                ClientCalls.futureUnaryCall(ch.newCall(Wire.STATUS, CallOptions.DEFAULT.withDeadlineAfter(
                        DEADLINE.toMillis(), TimeUnit.MILLISECONDS)), new byte[0]).get(DEADLINE.toMillis() * 2,
                        TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                down++;
                progress.accept("fuzz: instance " + i + " at " + t.addresses().get(i) + " does not answer Status: " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                ch.shutdownNow();
            }
        }
        return down;
    }

    /** Every application table of every instance (row count and digest), and each instance's last gsn. */
    private Map<String, String> replicas() throws SQLException {
        Map<String, String> all = new TreeMap<>();
        for (int i = 0; i < t.jdbcUrls().size(); i++)
            try (Connection c = DriverManager.getConnection(t.jdbcUrls().get(i))) {
                all.put("instance " + i + " last gsn", Long.toString(MetadataStore.lastGsn(c)));
                List<String> tables = new ArrayList<>();
                try (ResultSet rs = c.getMetaData().getTables(c.getCatalog(), c.getSchema(), "%", new String[] {"TABLE"})) {
                    while (rs.next()) tables.add(rs.getString("TABLE_NAME"));
                }
                for (String table : tables) {
                    String lower = table.toLowerCase();
                    if (lower.startsWith(MetadataStore.PREFIX) || lower.startsWith("sqlite_")) continue;
                    ReplicaCheck.TableDigest d = ReplicaCheck.digest(c, table, i);
                    all.put("instance " + i + " " + table, d.rows() + " rows " + d.sha256());
                }
            }
        return all;
    }
}
