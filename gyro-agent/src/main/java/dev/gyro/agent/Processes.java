package dev.gyro.agent;

import dev.gyro.runtime.GyroInstance;
import dev.gyro.runtime.hook.PeerCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One of several processes of an application, each beside its own instance of the ring
 * (docs/decisions/38-attached-processes.md). A local call whose partition another instance K owns is sent to K's process
 * over the ring's link ({@code Wire.CALL}, mutual TLS): its arguments as Java serialization, a {@link Connection}
 * argument left out; K's process runs the same method there, as a local request of K's, on a thread of its own, and
 * answers what it returned (serialized) or threw (class, message, SQLSTATE). When the application commits after the
 * method returned, K holds the request's transaction until this process's {@code commit} or {@code rollback} arrives,
 * and rolls it back when none arrives within {@link #HELD_MILLIS}. The processes also meet twice: before their first
 * calls (each process's start-up has written its schema and data to its own instance) and at exit (the ring stays
 * until every process is done; position 0 checks it and says the outcome).
 */
final class Processes implements PeerCalls {

    private static final Logger log = LoggerFactory.getLogger(Processes.class);

    /** How long a call waits for the instance that owns it to answer. */
    static final long CALL_MILLIS = 60_000;
    /** How long an instance holds a forwarded call's transaction for its caller's commit or rollback. */
    static final long HELD_MILLIS = 60_000;
    /** How long a process waits for the others to reach their first call, or their exit. */
    static final long MEET_MILLIS = 600_000;

    private static final byte RUN = 1, END = 2, STATE = 3, FINISHED = 4;
    private static final byte RETURNED = 0, THREW = 1;

    private final int position;
    private final int ring;
    private final Map<String, AttachedMethod> byName = new ConcurrentHashMap<>();
    private final ClassLoader application;
    private volatile GyroInstance self;
    private volatile Attachment attachment;
    private final ExecutorService runs = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "gyro-forwarded-call");
        t.setDaemon(true);
        return t;
    });
    private final ScheduledExecutorService expiries = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "gyro-forwarded-expiry");
        t.setDaemon(true);
        return t;
    });
    private record Held(Attachment.Call call, ScheduledFuture<?> expiry) {}

    private final Map<String, Held> held = new ConcurrentHashMap<>();
    private final Map<Class<?>, Object> receivers = new ConcurrentHashMap<>();
    /** Calls of other processes run here. */
    final Attachment.Figures served = new Attachment.Figures();
    private volatile boolean ready, done;
    /** What this process's start-up left in its instance's database: one line per table of the application's. */
    private volatile String startup = "";
    /** Why calls are refused here: the start-ups left the instances with different data; or null. */
    private volatile String differs;
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile String outcome;

    Processes(int position, int ring, List<AttachedMethod> methods) {
        this.position = position;
        this.ring = ring;
        for (AttachedMethod m : methods) byName.put(m.rule().name(), m);
        this.application = methods.isEmpty() ? ClassLoader.getSystemClassLoader()
                : methods.get(0).method().getDeclaringClass().getClassLoader();
    }

    /** This process's instance and its calls, once they run. */
    void serve(GyroInstance instance, Attachment a) {
        this.self = instance;
        this.attachment = a;
    }

    int position() {
        return position;
    }

    /**
     * What cannot cross processes, one line per problem naming the method (refused when the classification is
     * attached): a parameter or return type that is not serializable (a {@link Connection} parameter is replaced, not
     * sent), an instance method whose class has no no-argument constructor, a partitioning path through a value that is
     * not serialized.
     */
    static List<String> refusals(List<AttachedMethod> methods) {
        List<String> problems = new java.util.ArrayList<>();
        for (AttachedMethod m : methods) {
            String name = "transaction " + m.rule().name() + " (" + m.method().getDeclaringClass().getName() + "."
                    + m.method().getName() + ")";
            Class<?>[] types = m.method().getParameterTypes();
            for (int i = 0; i < types.length; i++)
                if (types[i] != Connection.class && !serializable(types[i]))
                    problems.add(name + ": parameter " + (i + 1) + " of type " + types[i].getTypeName() + " is not"
                            + " serializable, so a call cannot be sent to the instance that owns it");
            Class<?> returned = m.method().getReturnType();
            if (returned != void.class && !serializable(returned))
                problems.add(name + ": its return type " + returned.getTypeName() + " is not serializable, so its"
                        + " result cannot come back from the instance that owns it");
            if (!Modifier.isStatic(m.method().getModifiers())) {
                try {
                    m.method().getDeclaringClass().getDeclaredConstructor();
                } catch (NoSuchMethodException e) {
                    problems.add(name + ": an instance method whose class has no no-argument constructor, so the"
                            + " instance that owns a call cannot make the object to call it on");
                }
            }
            for (PartitionPath p : m.partitionBy()) {
                String through = p.notSerialized();
                if (through != null) problems.add(name + ": partitioning value " + p.text() + " " + through);
            }
        }
        return problems;
    }

    /** Whether values of {@code type} cross as Java serialization: primitives, and Serializable classes and arrays. */
    static boolean serializable(Class<?> type) {
        if (type.isPrimitive()) return true;
        if (type.isArray()) return serializable(type.getComponentType());
        return java.io.Serializable.class.isAssignableFrom(type);
    }

    // ------------------------------------------------------------------ the caller's side

    /** A call that ran at instance {@link #owner}: what it returned or threw there, and whether its transaction ended. */
    final class Forwarded {
        private final int owner;
        private final String id;
        final Object value;
        final Throwable thrown;
        /** Its transaction ended at the owner (it threw, or committed with the method); else it waits for {@link #end}. */
        final boolean ended;

        private Forwarded(int owner, String id, Object value, Throwable thrown, boolean ended) {
            this.owner = owner;
            this.id = id;
            this.value = value;
            this.thrown = thrown;
            this.ended = ended;
        }

        int owner() {
            return owner;
        }

        /** The application commits ({@code true}) or rolls back: the owner does, and says how it went. */
        void end(boolean commit) throws SQLException {
            if (ended) return;
            byte[] answer = ask(owner, out -> {
                out.writeByte(END);
                out.writeInt(position);
                out.writeUTF(id);
                out.writeBoolean(commit);
            }, "the " + (commit ? "commit" : "rollback") + " of call " + id);
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(answer))) {
                if (in.readByte() == THREW) {
                    Throwable t = thrown(in);
                    if (t instanceof SQLException e) throw e;
                    throw new SQLException("gyro: the commit at instance " + owner + " failed: " + t, t);
                }
            } catch (IOException e) {
                throw new SQLException("gyro: instance " + owner + " answered the end of call " + id + " malformed", e);
            }
        }
    }

    /**
     * Runs a call of {@code method} at instance {@code owner}, which owns its partition, and waits for its answer.
     *
     * @throws SQLException when it cannot be sent (its arguments do not serialize) or the owner does not answer
     */
    Forwarded forward(int owner, AttachedMethod method, String id, List<Object> keys, Object[] args) throws SQLException {
        Object[] sent = args.clone();
        boolean autoCommit = false;
        Class<?>[] types = method.method().getParameterTypes();
        for (int i = 0; i < sent.length; i++)
            if (types[i] == Connection.class) {
                if (sent[i] instanceof Connection c) autoCommit = c.getAutoCommit();
                sent[i] = null; // the call's own connection takes its place there
            }
        byte[] serialized;
        try {
            serialized = serialize(sent);
        } catch (IOException e) {
            throw new SQLException("gyro: a call of " + method.rule().method() + " belongs to instance " + owner
                    + ", another process's, and its arguments do not serialize: " + e + " (docs/attach.md, \"Several"
                    + " processes\")", "0A000", e);
        }
        boolean commitsEach = autoCommit;
        byte[] answer = ask(owner, out -> {
            out.writeByte(RUN);
            out.writeInt(position);
            out.writeUTF(id);
            out.writeUTF(method.rule().name());
            out.writeBoolean(commitsEach);
            out.writeInt(serialized.length);
            out.write(serialized);
        }, "call " + id + " of " + method.rule().name());
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(answer))) {
            if (in.readByte() == THREW) return new Forwarded(owner, id, null, thrown(in), true);
            boolean ended = in.readBoolean();
            byte[] value = in.readNBytes(in.readInt());
            return new Forwarded(owner, id, deserialize(value), null, ended);
        } catch (IOException | ClassNotFoundException e) {
            throw new SQLException("gyro: instance " + owner + " answered call " + id + " of " + method.rule().name()
                    + " with what this process cannot read: " + e, e);
        }
    }

    private interface Body {
        void write(DataOutputStream out) throws IOException;
    }

    private byte[] ask(int owner, Body body, String what) throws SQLException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            body.write(out);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        try {
            return self.callPeer(owner, bytes.toByteArray(), CALL_MILLIS).get();
        } catch (ExecutionException e) {
            throw new SQLException("gyro: " + what + " did not reach instance " + owner + ", which owns it: "
                    + e.getCause(), "08006", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("gyro: interrupted while " + what + " waited for instance " + owner, e);
        }
    }

    // ------------------------------------------------------------------ the owner's side

    @Override
    public void answer(int from, byte[] body, Consumer<byte[]> out) {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(body));
        try {
            byte kind = in.readByte();
            switch (kind) {
                case STATE -> out.accept(state());
                case FINISHED -> {
                    outcome = in.readUTF();
                    finished.countDown();
                    out.accept(new byte[0]);
                }
                case RUN -> {
                    int caller = caller(from, in.readInt());
                    String id = in.readUTF(), name = in.readUTF();
                    boolean autoCommit = in.readBoolean();
                    byte[] args = in.readNBytes(in.readInt());
                    runs.execute(() -> out.accept(run(caller, id, name, autoCommit, args)));
                }
                case END -> {
                    int caller = caller(from, in.readInt());
                    String id = in.readUTF();
                    boolean commit = in.readBoolean();
                    runs.execute(() -> out.accept(end(caller, id, commit)));
                }
                default -> throw new IllegalArgumentException("not a call of an attached application's process: " + kind);
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("a malformed call of an attached application's process: " + e);
        }
    }

    /**
     * The caller's position: its certificate's under TLS ({@code certified}, which it must not contradict), else the one
     * it says (plaintext trusts whoever reaches the port).
     */
    private static int caller(int certified, int said) {
        if (certified >= 0 && certified != said)
            throw new IllegalArgumentException("a call says it is from instance " + said + " but came with instance "
                    + certified + "'s certificate");
        return said;
    }

    /** Runs a call of instance {@code from}'s process here, as a local request of this instance. */
    private byte[] run(int from, String id, String name, boolean autoCommit, byte[] serialized) {
        AttachedMethod m = byName.get(name);
        if (m == null) return threw(new SQLException("gyro: instance " + self.id() + " has no transaction " + name));
        Object[] args;
        Object receiver;
        Attachment.Call call;
        try {
            args = (Object[]) deserialize(serialized);
            Class<?>[] types = m.method().getParameterTypes();
            for (int i = 0; i < args.length; i++)
                if (types[i] == Connection.class) args[i] = Takeover.connection(autoCommit);
            receiver = Modifier.isStatic(m.method().getModifiers()) ? null : receiver(m.method().getDeclaringClass());
            call = attachment.openHere(m, Attachment.request(m, from + "." + id, m.partitionValues(args)), 0, served);
        } catch (Exception e) {
            return threw(e);
        }
        Thread t = Thread.currentThread();
        ClassLoader before = t.getContextClassLoader();
        t.setContextClassLoader(application);
        Object value = null;
        Throwable thrown = null;
        Takeover.begun(call);
        try {
            m.method().setAccessible(true);
            value = m.method().invoke(receiver, args);
        } catch (InvocationTargetException e) {
            thrown = e.getCause();
        } catch (ReflectiveOperationException | RuntimeException e) {
            thrown = e;
        } finally {
            t.setContextClassLoader(before);
        }
        boolean open = Takeover.current() == call; // the method did not commit or roll back itself
        Takeover.ended();
        try {
            if (thrown != null) {
                if (open) call.rollback();
                return threw(thrown);
            }
            byte[] result = serialize(value);
            if (!open) return returned(true, result);
            if (call.endsWithMethod) {
                call.commit();
                return returned(true, result);
            }
            String key = from + ":" + id;
            held.put(key, new Held(call, expiries.schedule(() -> expire(key), HELD_MILLIS, TimeUnit.MILLISECONDS)));
            return returned(false, result);
        } catch (IOException e) {
            rollback(call, open);
            return threw(new SQLException("gyro: what " + name + " returned at instance " + self.id()
                    + " does not serialize: " + e, "0A000", e));
        } catch (SQLException e) {
            return threw(e);
        }
    }

    private static void rollback(Attachment.Call call, boolean open) {
        if (!open) return;
        try {
            call.rollback();
        } catch (SQLException e) {
            log.debug("rolling back a forwarded call failed: {}", e.toString());
        }
    }

    /** The caller's process decided: commit or roll back the call it left open here. */
    private byte[] end(int from, String id, boolean commit) {
        Held h = held.remove(from + ":" + id);
        if (h == null)
            return threw(new SQLException("gyro: call " + id + " of instance " + from + " is no longer open at instance "
                    + self.id() + ": it was rolled back after " + HELD_MILLIS / 1000 + " s without its commit", "40000"));
        h.expiry().cancel(false);
        try {
            if (commit) h.call().commit();
            else h.call().rollback();
            return returned(true, serialize(null));
        } catch (SQLException | IOException e) {
            return threw(e);
        }
    }

    /** A held call whose caller never decided (gone, or stuck): rolled back. */
    private void expire(String key) {
        Held h = held.remove(key);
        if (h == null) return;
        log.warn("instance {}: forwarded call {} rolled back: no commit or rollback from its caller within {} s",
                position, key, HELD_MILLIS / 1000);
        rollback(h.call(), true);
    }

    /** The object an instance method runs on here: made with its class's no-argument constructor, once per class. */
    private Object receiver(Class<?> type) {
        return receivers.computeIfAbsent(type, c -> {
            try {
                java.lang.reflect.Constructor<?> k = c.getDeclaredConstructor();
                k.setAccessible(true);
                return k.newInstance();
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("gyro: cannot make a " + c.getName() + " to run its method on: " + e, e);
            }
        });
    }

    private static byte[] returned(boolean ended, byte[] value) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(RETURNED);
            out.writeBoolean(ended);
            out.writeInt(value.length);
            out.write(value);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return bytes.toByteArray();
    }

    /** What a call threw, as its class, message and SQLSTATE. */
    private static byte[] threw(Throwable t) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(THREW);
            out.writeUTF(t.getClass().getName());
            out.writeUTF(String.valueOf(t.getMessage()));
            out.writeUTF(t instanceof SQLException e && e.getSQLState() != null ? e.getSQLState() : "");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return bytes.toByteArray();
    }

    /** The exception a call threw at its owner, made again here: its class where it can be, else one that names it. */
    private Throwable thrown(DataInputStream in) throws IOException {
        String type = in.readUTF(), message = in.readUTF(), state = in.readUTF();
        String sqlState = state.isEmpty() ? null : state;
        try {
            Class<?> c = Class.forName(type, false, application);
            if (SQLException.class.isAssignableFrom(c)) {
                try {
                    return (Throwable) c.getConstructor(String.class, String.class).newInstance(message, sqlState);
                } catch (NoSuchMethodException e) {
                    return new SQLException(type + ": " + message, sqlState);
                }
            }
            if (Throwable.class.isAssignableFrom(c)) return (Throwable) c.getConstructor(String.class).newInstance(message);
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            // named below
        }
        return sqlState != null ? new SQLException(type + ": " + message, sqlState)
                : new RuntimeException(type + ": " + message);
    }

    static byte[] serialize(Object value) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        return bytes.toByteArray();
    }

    /** Reads what another instance of the ring serialized, with the application's classes. */
    private Object deserialize(byte[] bytes) throws IOException, ClassNotFoundException {
        try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(new ByteArrayInputStream(bytes)) {
            @Override
            protected Class<?> resolveClass(java.io.ObjectStreamClass desc) throws IOException, ClassNotFoundException {
                try {
                    return Class.forName(desc.getName(), false, application);
                } catch (ClassNotFoundException e) {
                    return super.resolveClass(desc);
                }
            }
        }) {
            in.setObjectInputFilter(java.io.ObjectInputFilter.Config.createFilter("maxdepth=100;maxrefs=1000000"));
            return in.readObject();
        }
    }

    // ------------------------------------------------------------------ meeting the other processes

    private byte[] state() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeBoolean(ready);
            out.writeBoolean(done);
            out.writeLong(self == null ? -1 : self.appliedGsn());
            out.writeUTF(self == null ? "STARTING" : self.role());
            out.writeUTF(startup);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return bytes.toByteArray();
    }

    /** What instance {@code i}'s process says of itself. */
    private record State(boolean ready, boolean done, long appliedGsn, String role, String startup) {}

    /** Instance {@code i}'s process's state, or null when it does not answer. */
    private State stateOf(int i) {
        byte[] answer;
        if (i == position) {
            answer = state();
        } else {
            try {
                answer = self.callPeer(i, new byte[] {STATE}, 5_000).get();
            } catch (ExecutionException e) {
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(answer))) {
            return new State(in.readBoolean(), in.readBoolean(), in.readLong(), in.readUTF(), in.readUTF());
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Before this process's first call: every process has reached its own first call (or its exit), so each start-up
     * has written its schema and data to its instance before any call reaches it; and the start-ups left every instance
     * with the same data (each table's rows, digested), else every call is refused and the exit says why.
     */
    void meetBeforeFirstCall() {
        try (Connection c = self.database().readConnection()) {
            StringBuilder lines = new StringBuilder();
            for (String table : dev.gyro.check.ReplicaCheck.tables(c))
                if (!table.toLowerCase(java.util.Locale.ROOT).startsWith("gyro_")) {
                    dev.gyro.check.ReplicaCheck.TableDigest d = dev.gyro.check.ReplicaCheck.digest(c, table, position);
                    lines.append(table).append(": ").append(d.rows()).append(" rows, ").append(d.sha256()).append('\n');
                }
            self.database().rollback(c);
            startup = lines.toString();
        } catch (SQLException e) {
            throw new IllegalStateException("gyro: instance " + position + "'s database could not be read after the"
                    + " application's start-up: " + e.getMessage(), e);
        }
        ready = true;
        for (int i = 0; i < ring; i++) {
            int k = i;
            State[] seen = new State[1];
            if (!waitFor(() -> {
                seen[0] = stateOf(k);
                return seen[0] != null && (seen[0].ready() || seen[0].done());
            }, MEET_MILLIS))
                throw new IllegalStateException("gyro: instance " + k + "'s process did not reach its first call within "
                        + MEET_MILLIS / 1000 + " s of this process's (every process of the application serves once each"
                        + " has started; docs/attach.md, \"Several processes\")");
            // a process that exited before its first call has no start-up to compare; one that exited since has
            if (!seen[0].startup().isEmpty() && !seen[0].startup().equals(startup) && differs == null)
                differs = "the application's start-up left instance " + k + " with other data than instance " + position
                        + " (" + firstDifference(startup, seen[0].startup()) + "): each process's start-up writes to its"
                        + " own instance, and must write the same schema and data (docs/attach.md, \"Several processes\")";
        }
    }

    /** Why calls are refused in this process (see {@link #meetBeforeFirstCall}), or null. */
    String refusal() {
        return differs;
    }

    private static String firstDifference(String mine, String theirs) {
        List<String> a = mine.lines().toList(), b = theirs.lines().toList();
        for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
            String x = i < a.size() ? a.get(i) : "no table", y = i < b.size() ? b.get(i) : "no table";
            if (!x.equals(y)) return "here " + x + ", there " + y;
        }
        return "the same tables";
    }

    /**
     * At this process's exit: its instance serves until every process is done; then position 0 waits for the ring to be
     * quiet, compares the instances and tells the others the outcome, which it returns (the others return it too).
     */
    String meetAtExit() {
        ready = true;
        done = true;
        String gone = null;
        for (int i = 0; i < ring && gone == null; i++) {
            int k = i;
            boolean[] answered = {true};
            waitFor(() -> {
                State s = stateOf(k);
                answered[0] = s != null;
                return s == null || s.done();
            }, MEET_MILLIS);
            if (!answered[0]) gone = "instance " + k + "'s process is gone: it did not answer at this process's exit";
        }
        if (position != 0) {
            try {
                if (!finished.await(MEET_MILLIS, TimeUnit.MILLISECONDS))
                    outcome = "FAILED: position 0 did not say the outcome within " + MEET_MILLIS / 1000 + " s";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else {
            outcome = gone != null ? "FAILED: " + gone : differs != null ? "FAILED: " + differs : agree();
            for (int i = 1; i < ring; i++) {
                String said = outcome;
                try {
                    ask(i, out -> {
                        out.writeByte(FINISHED);
                        out.writeUTF(said.length() > 60_000 ? said.substring(0, 60_000) : said);
                    }, "the outcome");
                } catch (SQLException e) {
                    log.debug("instance {} did not hear the outcome: {}", i, e.toString());
                }
            }
        }
        for (String key : List.copyOf(held.keySet())) expire(key);
        runs.shutdownNow();
        expiries.shutdownNow();
        return outcome;
    }

    /** Once the ring is quiet: whether every instance applied the same global requests. */
    private String agree() {
        State[] states = new State[ring];
        boolean quiet = waitFor(() -> {
            int parked = 0;
            for (int i = 0; i < ring; i++) {
                states[i] = stateOf(i);
                if (states[i] == null || states[i].appliedGsn() != states[0].appliedGsn()) return false;
                if (states[i].role().equals("PARKED")) parked++;
            }
            return parked == 1;
        }, 60_000);
        if (!quiet) {
            StringBuilder said = new StringBuilder();
            for (int i = 0; i < ring; i++)
                said.append(i == 0 ? "" : ", ").append("instance ").append(i).append(states[i] == null ? " did not answer"
                        : " applied up to gsn " + states[i].appliedGsn() + " (" + states[i].role() + ")");
            return "FAILED: the ring did not become quiet within 60 s of the exit: " + said;
        }
        return "OK: every instance applied global requests 1 to " + states[0].appliedGsn() + " (" + ring
                + " processes, each beside its instance)";
    }

    /** Asks {@code done} every 20 ms until it holds, for at most {@code millis}: whether it held. */
    private static boolean waitFor(java.util.function.BooleanSupplier done, long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) return false;
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
