package dev.gyro.app;

import dev.gyro.protocol.Value;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The transactions of one application, found by reflection once (validated at start, then sealed), with the
 * conversion of wire values to typed input parameters. Every mistake gets an exact message.
 */
public final class TransactionCatalog {

    /** One transaction: its name, its input parameters, and how to run it. */
    public record Entry(String name, Transaction instance, Method run, List<String> parameterNames,
                        List<Class<?>> parameterTypes) {

        public int parameterIndex(String parameter) {
            int i = parameterNames.indexOf(parameter);
            if (i < 0) throw new IllegalArgumentException("transaction " + name + " has no parameter '" + parameter
                    + "' (parameters: " + parameterNames + ")");
            return i;
        }

        public String signature() {
            List<String> ps = new ArrayList<>();
            for (int i = 0; i < parameterNames.size(); i++)
                ps.add(parameterTypes.get(i).getSimpleName() + " " + parameterNames.get(i));
            return name + "(" + String.join(", ", ps) + ")";
        }

        /** Converts wire values to the run method's argument array (context first). */
        public Object[] arguments(TxContext ctx, List<Value> values) {
            if (values.size() != parameterTypes.size())
                throw new BadRequestException("transaction " + signature() + " takes " + parameterTypes.size()
                        + " parameter(s), got " + values.size());
            Object[] args = new Object[values.size() + 1];
            args[0] = ctx;
            for (int i = 0; i < values.size(); i++)
                args[i + 1] = convert(values.get(i), parameterTypes.get(i), i);
            return args;
        }

        /** Runs the transaction; unwraps the method's own exceptions. */
        public Object invoke(TxContext ctx, List<Value> values) throws Exception {
            return invokeWith(ctx, arguments(ctx, values));
        }

        /**
         * Runs the transaction on arguments {@link #arguments} converted already (the request was checked with them),
         * {@code ctx} put first; unwraps the method's own exceptions.
         */
        public Object invokeWith(TxContext ctx, Object[] args) throws Exception {
            args[0] = ctx;
            try {
                return run.invoke(instance, args);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (cause instanceof Exception ex) throw ex;
                if (cause instanceof Error err) throw err;
                throw e;
            }
        }

        private Object convert(Value v, Class<?> type, int index) {
            String where = "parameter " + parameterNames.get(index) + " of " + name;
            Object raw = v.toJava();
            if (raw == null) {
                if (type.isPrimitive()) throw new BadRequestException(where + " must not be NULL");
                return null;
            }
            if (type == long.class || type == Long.class) {
                if (raw instanceof Long l) return l;
            } else if (type == int.class || type == Integer.class) {
                if (raw instanceof Long l) {
                    if (l < Integer.MIN_VALUE || l > Integer.MAX_VALUE)
                        throw new BadRequestException(where + ": " + l + " does not fit in an int");
                    return l.intValue();
                }
            } else if (type == double.class || type == Double.class) {
                if (raw instanceof Double d) return d;
                if (raw instanceof Long l) return l.doubleValue();
            } else if (type == boolean.class || type == Boolean.class) {
                if (raw instanceof Long l && (l == 0 || l == 1)) return l == 1;
            } else if (type == String.class) {
                if (raw instanceof String s) return s;
            } else if (type == byte[].class) {
                if (raw instanceof byte[] b) return b;
            }
            throw new BadRequestException(where + ": expected " + type.getSimpleName() + ", got " + v + " ("
                    + v.getClass().getSimpleName().toLowerCase() + ")");
        }
    }

    private static final List<Class<?>> ALLOWED = List.of(long.class, Long.class, int.class, Integer.class,
            double.class, Double.class, boolean.class, Boolean.class, String.class, byte[].class);

    private final Map<String, Entry> entries;

    /** The transactions, each named after its class ({@link Transaction#nameOf}). */
    public TransactionCatalog(Collection<? extends Transaction> transactions) {
        this(named(transactions));
    }

    /**
     * The transactions under the names given: where one class serves several transactions (an unmodified
     * application's methods, each one transaction, docs/decisions/34-attaching.md).
     */
    public TransactionCatalog(Map<String, ? extends Transaction> named) {
        Map<String, Entry> byName = new LinkedHashMap<>();
        named.forEach((name, t) -> byName.put(name, entryOf(name, t)));
        this.entries = Map.copyOf(byName);
        this.order = List.copyOf(byName.keySet());
    }

    private static Map<String, Transaction> named(Collection<? extends Transaction> transactions) {
        Map<String, Transaction> byName = new LinkedHashMap<>();
        for (Transaction t : transactions) {
            String name = Transaction.nameOf(t.getClass());
            if (byName.put(name, t) != null) throw new IllegalArgumentException("two transactions are named " + name);
        }
        return byName;
    }

    private final List<String> order;

    public Entry get(String name) {
        Entry e = entries.get(name);
        if (e == null) throw new BadRequestException("unknown transaction '" + name + "' (known: "
                + String.join(", ", order) + ")");
        return e;
    }

    public boolean contains(String name) {
        return entries.containsKey(name);
    }

    public List<String> names() {
        return order;
    }

    private static Entry entryOf(String name, Transaction t) {
        Class<? extends Transaction> type = t.getClass();
        Method run = null;
        for (Method m : type.getMethods()) {
            if (!m.getName().equals("run") || Modifier.isStatic(m.getModifiers()) || m.isBridge()) continue;
            if (run != null) throw new IllegalArgumentException("transaction " + type.getName()
                    + " has more than one public run method");
            run = m;
        }
        if (run == null) throw new IllegalArgumentException("transaction " + type.getName()
                + " has no public run(TxContext, ...) method");
        Parameter[] ps = run.getParameters();
        if (ps.length == 0 || ps[0].getType() != TxContext.class)
            throw new IllegalArgumentException("transaction " + type.getName()
                    + ": the first parameter of run must be a TxContext");
        List<String> names = new ArrayList<>();
        List<Class<?>> types = new ArrayList<>();
        for (int i = 1; i < ps.length; i++) {
            if (!ps[i].isNamePresent())
                throw new IllegalArgumentException("transaction " + type.getName()
                        + " was compiled without -parameters: its parameter names are needed for partitioning");
            if (!ALLOWED.contains(ps[i].getType()))
                throw new IllegalArgumentException("transaction " + name + ": parameter " + ps[i].getName()
                        + " has unsupported type " + ps[i].getType().getSimpleName());
            names.add(ps[i].getName());
            types.add(ps[i].getType());
        }
        run.setAccessible(true);
        return new Entry(name, t, run, List.copyOf(names), List.copyOf(types));
    }
}
