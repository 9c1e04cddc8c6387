package dev.gyro.agent;

import dev.gyro.app.Kind;
import dev.gyro.emulation.Capacity;
import dev.gyro.runtime.hook.TransactionGate;

import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where the advice on the application's classified methods reports each call ({@link CallAdvice}): every call of an
 * {@link AttachedMethod} is one request, its partitioning values read from its arguments. Public because the advice,
 * inlined into the application's classes, calls it from there.
 */
public final class Calls {

    /** One transaction's calls. */
    public static final class Transaction {
        final AttachedMethod method;
        final LongAdder calls = new LongAdder(), failed = new LongAdder();

        Transaction(AttachedMethod method) {
            this.method = method;
        }

        public String name() {
            return method.rule().name();
        }

        public long calls() {
            return calls.sum();
        }

        /** Calls that ended with an exception. */
        public long failed() {
            return failed.sum();
        }
    }

    /**
     * One call in progress; {@code request} null where Gyro does not run calls (it only counts them); {@code slot} the
     * emulated server's slot a call holds where Gyro passes calls through to the application's own database.
     */
    static final class Call {
        private final Transaction transaction;
        /** The call's request: another one where the application rolled the first back and its method tried again. */
        private volatile Attachment.Call request;
        private final TransactionGate.Slot slot;
        private final long began;

        Call(Transaction transaction, Attachment.Call request, TransactionGate.Slot slot, long began) {
            this.transaction = transaction;
            this.request = request;
            this.slot = slot;
            this.began = began;
        }

        Transaction transaction() {
            return transaction;
        }

        Attachment.Call request() {
            return request;
        }

        TransactionGate.Slot slot() {
            return slot;
        }

        long began() {
            return began;
        }
    }

    private static volatile Map<String, Transaction> byKey = Map.of();
    /** Where calls run as requests; null: calls are counted only. */
    private static volatile Attachment attachment;

    static void runThrough(Attachment a) {
        attachment = a;
    }

    /** Where this process is one of several, each beside its instance: the other processes; else null. */
    private static volatile Processes beside;

    static void beside(Processes p) {
        beside = p;
    }

    static Processes beside() {
        return beside;
    }

    /** Where calls are not run as requests, each holds one of this emulated server's slots; null: none. */
    private static volatile Capacity passThrough;
    /** The call passed through that holds a slot on this thread. */
    private static final ThreadLocal<Call> IN_SLOT = new ThreadLocal<>();

    /**
     * Calls go to the application's own database, each holding a slot of {@code server} from its entry to its exit
     * (the baseline of docs/decisions/36-attached-benchmark.md: one database with the emulated capacity of one Gyro
     * instance's).
     */
    static void passThrough(Capacity server) {
        passThrough = server;
    }

    /** Where calls run as requests; null when they are counted only. */
    static Attachment attachment() {
        return attachment;
    }

    private Calls() {}

    /** The classified methods whose calls are requests from now on. */
    static void attach(List<AttachedMethod> methods) {
        Map<String, Transaction> m = new LinkedHashMap<>();
        for (AttachedMethod a : methods) m.put(key(a.method()), new Transaction(a));
        byKey = m;
    }

    static Collection<Transaction> transactions() {
        return byKey.values();
    }

    /**
     * A call of a classified method begins.
     *
     * @param key the method as the advice names it: {@code owner.name(descriptor)}
     * @return the call, handed back to {@link #exit}
     * @throws IllegalArgumentException when the call has no partitioning value (the application sees it)
     */
    public static Object enter(String key, Object[] args) {
        Transaction t = byKey.get(key);
        if (t == null) return null; // a method of the same name the classification does not name
        Attachment.Call open = Takeover.current();
        if (open != null && open.methodReturned) // a second call in the first one's transaction, after its method
            throw Calls.<RuntimeException>sneaky(new java.sql.SQLException("gyro: " + t.name() + " began in the"
                    + " transaction of " + open.name() + ", whose method returned but which has not committed: one"
                    + " transaction runs one classified method's request. Classify the method that runs both (the"
                    + " caller of " + t.name() + ") instead, or commit in between (docs/attach.md)", "0A000"));
        if (open != null) return null; // called within a call's method: part of its request
        List<Object> values = t.method.partitionValues(args); // read once: a call without one fails here
        Attachment a = attachment;
        if (a == null) {
            Capacity server = passThrough;
            if (server == null) return new Call(t, null, null, System.nanoTime());
            if (IN_SLOT.get() != null) return null; // called within a call: it holds the slot already
            try {
                Call c = new Call(t, null, server.enter(), System.nanoTime());
                IN_SLOT.set(c);
                return c;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw Calls.<RuntimeException>sneaky(new java.sql.SQLException("gyro: interrupted while "
                        + t.name() + " waited for the emulated server", e));
            }
        }
        try {
            Attachment.Call request = a.begin(t.method, values, args);
            Processes.Forwarded remote = request.remote();
            if (remote == null) {
                Call c = new Call(t, request, null, 0);
                Takeover.begun(request, () -> c.request = a.begin(t.method, values, args));
                return c;
            }
            // It ran at the instance that owns it (docs/decisions/38-attached-processes.md): the method is not run
            // here; its transaction there ends with the application's commit or rollback, unless it ended already
            if (!remote.ended) Takeover.begun(request);
            else if (remote.thrown != null) request.rollback();
            else request.commit();
            return new dev.gyro.agent.bridge.Bridge.Ran(new Call(t, request, null, 0), remote.value, remote.thrown);
        } catch (java.sql.SQLException e) {
            throw Calls.<RuntimeException>sneaky(e); // the application's JDBC code expects an SQLException
        }
    }

    /** The call ended: returned ({@code thrown} null) or threw. */
    public static void exit(Object call, Throwable thrown) {
        if (!(call instanceof Call c)) return;
        c.transaction().calls.increment();
        if (thrown != null) c.transaction().failed.increment();
        else if (c.request() == null && c.slot() == null && c.transaction().method.rule().kind() == Kind.LOCAL)
            CallTiming.passedThrough(System.nanoTime() - c.began());
        if (c.slot() != null) {
            IN_SLOT.remove();
            c.slot().close();
        }
        Attachment.Call request = c.request();
        if (request != null) {
            request.methodReturned = true;
            Takeover.returned(request);
        }
        // Its connection commits each statement, or the method did no work on a connection of Gyro's (none of its JDBC
        // calls reached the call's transaction): the call's transaction ends with the method, as nothing else will end it
        if (request != null && (request.endsWithMethod || !request.used && request.remote() == null)
                && Takeover.current() == request) {
            Takeover.ended();
            try {
                if (thrown == null) request.commit();
                else request.rollback();
            } catch (java.sql.SQLException e) {
                throw Calls.<RuntimeException>sneaky(e);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T sneaky(Throwable t) throws T {
        throw (T) t;
    }

    /** {@code owner.name(descriptor)}, as the advice's {@code #t.#m#d} names a method. */
    static String key(Method m) {
        return m.getDeclaringClass().getName() + "." + m.getName()
                + MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
    }
}
