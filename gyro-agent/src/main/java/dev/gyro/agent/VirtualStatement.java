package dev.gyro.agent;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * A statement the application holds, on a connection Gyro took over (docs/decisions/34-attaching.md): it is made again
 * on whichever database the statement runs in at the time it runs, because an application may prepare a statement once
 * and keep it in a field of a long-lived object. Inside a call of a classified method it runs in that call's request
 * (prepared once per call); outside any call on every instance's database, where, once Gyro serves, only statements
 * that cannot write are let through ({@link #readOnly}). Parameters, batches and settings are remembered and given to
 * each real statement before it runs.
 */
final class VirtualStatement implements InvocationHandler {

    /** Where a statement runs now: the current call's request, or every instance's database. */
    interface Place {
        /** The connection to run on now, and what identifies it (the same key: the same connection). */
        Object key();

        Connection connection() throws SQLException;

        /** Whether a statement that may write is refused here, and the message's subject. */
        boolean refusesWrites();
    }

    private final Connection owner;
    private final Method create;
    private final Object[] createArgs;
    private final String sql; // the prepared text, or null for a plain statement
    private final Supplier<Place> place;
    private final Map<Integer, Object[]> parameters = new TreeMap<>(); // index -> {setter, args}
    private final List<Object[]> settings = new ArrayList<>(); // {setter, args} on the statement itself
    private final List<Object> batch = new ArrayList<>(); // parameter maps (prepared) or SQL strings (plain)
    private Object boundTo;
    private Statement real;
    private boolean closed;

    private VirtualStatement(Connection owner, Method create, Object[] createArgs, Supplier<Place> place) {
        this.owner = owner;
        this.create = create;
        this.createArgs = createArgs == null ? new Object[0] : createArgs.clone();
        this.sql = create.getName().startsWith("prepare") ? (String) this.createArgs[0] : null;
        this.place = place;
    }

    /** A statement of {@code owner} made by {@code create(createArgs)}, run where {@code place} says at each run. */
    static Statement of(Connection owner, Method create, Object[] createArgs, Supplier<Place> place)
            throws SQLException {
        VirtualStatement v = new VirtualStatement(owner, create, createArgs, place);
        Place now = place.get();
        if (v.sql != null && now.refusesWrites() && !readOnly(v.sql)) throw refused(v.sql);
        Class<?> type = create.getName().equals("prepareCall") ? CallableStatement.class
                : v.sql != null ? PreparedStatement.class : Statement.class;
        return (Statement) Proxy.newProxyInstance(VirtualStatement.class.getClassLoader(), new Class<?>[] {type}, v);
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
        String name = m.getName();
        if (m.getDeclaringClass() == Object.class) {
            return switch (name) {
                case "equals" -> proxy == args[0];
                case "hashCode" -> System.identityHashCode(proxy);
                default -> "gyro statement" + (sql == null ? "" : " [" + sql + "]");
            };
        }
        switch (name) {
            case "getConnection":
                return owner;
            case "isClosed":
                return closed;
            case "close":
                closed = true;
                closeReal();
                return null;
            case "clearParameters":
                parameters.clear();
                return null;
            case "clearBatch":
                batch.clear();
                return null;
            case "unwrap", "isWrapperFor":
                return call(current(place.get()), m, args);
            default:
        }
        if (args != null && args.length >= 2 && name.startsWith("set") && args[0] instanceof Integer index
                && m.getDeclaringClass() != Statement.class) {
            parameters.put(index, new Object[] {m, args.clone()}); // a parameter: given to each real statement
            return null;
        }
        if (name.equals("addBatch")) {
            batch.add(args == null ? new TreeMap<>(parameters) : args[0]);
            return null;
        }
        if (name.startsWith("set") && m.getDeclaringClass() == Statement.class) {
            settings.add(new Object[] {m, args == null ? null : args.clone()});
            if (real != null) call(real, m, args);
            return null;
        }
        if (name.startsWith("execute")) {
            String text = args != null && args.length > 0 && args[0] instanceof String s ? s : sql;
            Place now = place.get();
            if (now.refusesWrites()) {
                if (name.equals("executeBatch") && sql == null) {
                    for (Object b : batch) if (!readOnly((String) b)) throw refused((String) b);
                } else if (text != null && !readOnly(text)) {
                    throw refused(text);
                } else if (text != null) {
                    Takeover.readOutsideCalls(text);
                }
            }
            Statement s = current(now);
            if (name.equals("executeBatch")) {
                for (Object b : batch) {
                    if (b instanceof String plain) {
                        s.addBatch(plain);
                    } else {
                        @SuppressWarnings("unchecked") Map<Integer, Object[]> ps = (Map<Integer, Object[]>) b;
                        give(s, ps);
                        ((PreparedStatement) s).addBatch();
                    }
                }
                batch.clear();
            } else if (sql != null) {
                give(s, parameters);
            }
            return call(s, m, args);
        }
        // results, warnings, generated keys, getters: of the statement that ran last
        return call(real != null ? real : current(place.get()), m, args);
    }

    /** The real statement for where the statement runs {@code now}, made there on first need. */
    private Statement current(Place now) throws SQLException {
        if (closed) throw new SQLException("gyro: the statement is closed");
        if (real != null && boundTo == now.key()) return real;
        closeReal();
        try {
            real = (Statement) create.invoke(now.connection(), createArgs);
        } catch (InvocationTargetException | IllegalAccessException e) {
            Throwable cause = e instanceof InvocationTargetException ite ? ite.getCause() : e;
            if (cause instanceof SQLException s) throw s;
            throw new SQLException("gyro: cannot make the statement again: " + cause, cause);
        }
        boundTo = now.key();
        for (Object[] s : settings) call(real, (Method) s[0], (Object[]) s[1]);
        return real;
    }

    private void closeReal() {
        if (real == null) return;
        try {
            real.close();
        } catch (SQLException ignored) {
            // the connection it was made on has ended: nothing to release there
        }
        real = null;
        boundTo = null;
    }

    private static void give(Statement s, Map<Integer, Object[]> ps) throws SQLException {
        for (Object[] p : ps.values()) call(s, (Method) p[0], (Object[]) p[1]);
    }

    private static Object call(Object target, Method m, Object[] args) throws SQLException {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof SQLException s) throw s;
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw new SQLException(e.getCause());
        } catch (IllegalAccessException e) {
            throw new SQLException(e);
        }
    }

    private static SQLException refused(String sql) {
        return new SQLException("gyro: " + Takeover.caller() + " may write outside any transaction method of the"
                + " classification while Gyro serves (" + sql.strip() + "): it would bypass the requests' order");
    }

    private static final java.util.Set<String> READS = java.util.Set.of("SELECT", "SHOW", "EXPLAIN", "DESCRIBE",
            "DESC", "VALUES", "SET", "PRAGMA");
    private static final java.util.regex.Pattern WRITE_WORD = java.util.regex.Pattern.compile(
            "(?i)\\b(INSERT|UPDATE|DELETE|MERGE|REPLACE|UPSERT)\\b");

    /**
     * Whether {@code sql} cannot write rows: a query ({@code SELECT}, {@code VALUES}, {@code SHOW}, {@code EXPLAIN},
     * {@code DESCRIBE}), a session setting ({@code SET}), a {@code PRAGMA} that assigns nothing, or a {@code WITH}
     * that names no writing statement. Anything else may write.
     */
    static boolean readOnly(String sql) {
        String s = sql.strip();
        while (s.startsWith("(") || s.startsWith("--") || s.startsWith("/*")) {
            if (s.startsWith("(")) s = s.substring(1).strip();
            else if (s.startsWith("--")) s = s.indexOf('\n') < 0 ? "" : s.substring(s.indexOf('\n') + 1).strip();
            else s = s.indexOf("*/") < 0 ? "" : s.substring(s.indexOf("*/") + 2).strip();
        }
        String first = s.split("[^A-Za-z]", 2)[0].toUpperCase(Locale.ROOT);
        if (first.equals("WITH")) return !WRITE_WORD.matcher(s).find();
        if (first.equals("PRAGMA")) return !s.contains("=");
        if (first.equals("EXPLAIN")) return !s.toUpperCase(Locale.ROOT).contains("ANALYZE");
        return READS.contains(first);
    }
}
