package dev.gyro.agent;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * The application's JDBC connections, taken over (docs/decisions/34-attaching.md): whatever URL its configuration
 * holds, a connection it opens is Gyro's. Inside a call of a classified method it is the call's request's connection,
 * on the owning instance's database, until the application commits or rolls back; outside any call, before Gyro
 * serves its first call, every statement runs on every instance's database (the application creating and loading its
 * schema); after that, a statement outside any call that may write is refused, naming the calling method. The
 * application's statements are made again wherever they run ({@link VirtualStatement}): one prepared once and kept in
 * a field runs in each call's own request.
 * Public: the advice on the database driver's {@code connect}, inlined into the driver, calls {@link #instead}.
 */
public final class Takeover {

    private static volatile Takeover active;
    private static final ThreadLocal<Attachment.Call> CURRENT = new ThreadLocal<>();

    private final int instances;
    private final IntFunction<String> instanceUrl;
    private final Predicate<String> instanceDatabase;
    private volatile boolean serving;

    /**
     * @param instanceUrl      the JDBC URL of instance I's database
     * @param instanceDatabase whether a URL is one of the instances' databases (their connections are Gyro's own,
     *                         never taken over)
     */
    Takeover(int instances, IntFunction<String> instanceUrl, Predicate<String> instanceDatabase) {
        this.instances = instances;
        this.instanceUrl = instanceUrl;
        this.instanceDatabase = instanceDatabase;
    }

    static void activate(Takeover t) {
        active = t;
    }

    /** Whether a call has begun: from the first on, writes outside calls are refused. */
    boolean serving() {
        return serving;
    }

    /** The call the current thread is in, or null. */
    static Attachment.Call current() {
        return CURRENT.get();
    }

    static void begun(Attachment.Call call) {
        begun(call, null);
    }

    /**
     * {@code call} runs on this thread from now on; {@code again}, if not null, begins another request for the same
     * call of its method, should the application roll the first back and try again before the method returns.
     */
    static void begun(Attachment.Call call, Again again) {
        CURRENT.set(call);
        AGAIN.set(again);
        Takeover t = active;
        if (t != null && !t.serving) t.serving = true; // read first: every call passes here
    }

    static void ended() {
        CURRENT.remove();
        AGAIN.remove();
    }

    /** The method of {@code call} returned: what it did after its transaction ended no longer matters. */
    static void returned(Attachment.Call call) {
        Ended e = ENDED.get();
        if (e != null && e.call() == call) ENDED.remove();
    }

    /** Begins another request for the call of a method whose first request the application rolled back. */
    interface Again {
        Attachment.Call begin() throws SQLException;
    }

    /** A call's transaction the application ended before the call's method returned. */
    private record Ended(Attachment.Call call, boolean committed, Again again) {}

    private static final ThreadLocal<Again> AGAIN = new ThreadLocal<>();
    private static final ThreadLocal<Ended> ENDED = new ThreadLocal<>();

    /** The application committed or rolled back {@code call}'s transaction on this thread. */
    private static void endedByApplication(Attachment.Call call, boolean committed) {
        Again again = AGAIN.get();
        ended();
        if (!call.methodReturned) ENDED.set(new Ended(call, committed, again));
    }

    /**
     * The connection to give the application instead of the one {@code driver} would make for {@code url}, or null to
     * let the driver connect: a URL the driver does not take, or one of the instances' own databases.
     */
    public static Connection instead(java.sql.Driver driver, String url) throws SQLException {
        Takeover t = active;
        if (t == null || url == null || t.instanceDatabase.test(url) || !driver.acceptsURL(url)) return null;
        return proxy(t.new AppConnection());
    }

    /** A data source's JDBC URL as it names it ({@code getUrl()} or {@code getURL()}), or null where it names none. */
    private static final ClassValue<Method> URL_OF = new ClassValue<>() {
        @Override
        protected Method computeValue(Class<?> type) {
            for (String name : new String[] {"getUrl", "getURL"}) {
                try {
                    Method m = type.getMethod(name);
                    if (m.getReturnType() == String.class) return m;
                } catch (NoSuchMethodException e) {
                    // the next name
                }
            }
            return null;
        }
    };

    /**
     * The connection to give the application instead of the one {@code dataSource} would make, or null to let it
     * connect: a data source that names no URL (a pool, whose connections come from a driver's {@code connect}, taken
     * over there), a URL no backend's driver takes, or one of the instances' own databases.
     */
    public static Connection insteadOf(Object dataSource) throws SQLException {
        String url = urlToTakeOver(dataSource);
        if (url == null) return null;
        return proxy(active.new AppConnection());
    }

    /**
     * Refuses a data source's {@code getConnection} whose return type is the driver's own connection class (which
     * Gyro's connection is not) where Gyro would take the data source over: the application would reach the database
     * its configuration names, past every instance.
     */
    public static void narrowed(Object dataSource) throws SQLException {
        String url = urlToTakeOver(dataSource);
        if (url == null) return;
        throw new SQLException("gyro: " + caller() + " asks " + dataSource.getClass().getName() + " for a connection"
                + " of the driver's own type, which Gyro cannot give in place of one to " + url + "; call getConnection"
                + " through javax.sql.DataSource (docs/attach.md)", "0A000");
    }

    private static String urlToTakeOver(Object dataSource) throws SQLException {
        Takeover t = active;
        if (t == null) return null;
        Method m = URL_OF.get(dataSource.getClass());
        if (m == null) return null;
        String url;
        try {
            url = (String) m.invoke(dataSource);
        } catch (ReflectiveOperationException e) {
            return null;
        }
        if (url == null || t.instanceDatabase.test(url)) return null;
        for (java.util.Enumeration<java.sql.Driver> d = java.sql.DriverManager.getDrivers(); d.hasMoreElements(); ) {
            if (d.nextElement().acceptsURL(url)) return url;
        }
        return null;
    }

    /**
     * A connection of the application's for a call another process sent here (docs/decisions/38-attached-processes.md):
     * in place of its {@code Connection} argument, with the caller's connection's autocommit.
     */
    static Connection connection(boolean autoCommit) {
        AppConnection c = active.new AppConnection();
        c.autoCommit = autoCommit;
        return proxy(c);
    }

    /** The application's view of {@code c}: a {@code Connection} answered by it. */
    private static Connection proxy(AppConnection c) {
        return (Connection) Proxy.newProxyInstance(Takeover.class.getClassLoader(), new Class<?>[] {Connection.class}, c);
    }

    /** One connection the application holds. */
    private final class AppConnection implements InvocationHandler {
        private Connection everywhere; // every instance's database, outside calls; opened when first needed
        private boolean autoCommit = true;

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            if (method.getDeclaringClass() == Object.class)
                return name.equals("equals") ? proxy == args[0] : name.equals("hashCode")
                        ? System.identityHashCode(proxy) : "gyro connection";
            if (name.equals("getAutoCommit")) return autoCommit;
            if (name.equals("setAutoCommit")) {
                autoCommit = (Boolean) args[0];
                if (CURRENT.get() == null) return on(everywhere(), method, args);
                return null;
            }
            if (name.equals("createStatement") || name.equals("prepareStatement") || name.equals("prepareCall"))
                return VirtualStatement.of((Connection) proxy, method, args, this::place);
            Attachment.Call call = CURRENT.get();
            if (call != null) return inCall(call, method, args);
            if (name.equals("close") || name.equals("isClosed")) return everywhere == null ? (name.equals("close")
                    ? null : Boolean.FALSE) : on(everywhere(), method, args);
            return on(everywhere(), method, args);
        }

        /**
         * Where the application's statements run now: in the current call's request, or everywhere. Once the
         * application ended a call's transaction and its method goes on: after a rollback, in a new request for the
         * same call (the method tries again); after a commit, nowhere: one call is one DBMS transaction.
         */
        private VirtualStatement.Place place() {
            Attachment.Call call = CURRENT.get();
            Ended ended = call == null ? ENDED.get() : null;
            if (ended != null) {
                SQLException refused = null;
                if (ended.committed() || ended.again() == null) {
                    refused = new SQLException("gyro: " + ended.call().name() + " committed its transaction and runs"
                            + " more SQL before its method returns: one call of a classified method is one DBMS"
                            + " transaction, committed once. Commit once, at its end, or classify the methods that run"
                            + " each transaction instead (docs/attach.md)", "0A000");
                } else {
                    try {
                        ENDED.remove();
                        begun(ended.again().begin(), ended.again());
                        return place();
                    } catch (SQLException e) {
                        refused = e;
                    }
                }
                return refusedPlace(refused);
            }
            AppConnection self = this;
            return new VirtualStatement.Place() {
                @Override
                public Object key() {
                    return call != null ? call : self;
                }

                @Override
                public Connection connection() throws SQLException {
                    if (call == null) return everywhere();
                    if (autoCommit) call.endsWithMethod = true; // each statement would commit: the call ends with it
                    return call.connection();
                }

                @Override
                public boolean refusesWrites() {
                    return call == null && serving;
                }
            };
        }

        private Object inCall(Attachment.Call call, Method method, Object[] args) throws Throwable {
            switch (method.getName()) {
                case "commit" -> {
                    endedByApplication(call, true);
                    call.commit();
                    return null;
                }
                case "rollback" -> {
                    if (args != null && args.length > 0) break; // to a savepoint: inside the call's transaction
                    endedByApplication(call, false);
                    call.rollback();
                    return null;
                }
                case "close" -> {
                    // In auto-commit mode each statement committed as it ran, as far as the application knows: its
                    // work stands, and the call's transaction ends with its method (as when it keeps the connection
                    // open), or here if the method has returned. Otherwise the transaction is closed without a commit,
                    // and rolls back as drivers do.
                    if (autoCommit && !call.methodReturned) {
                        call.endsWithMethod = true;
                        return null;
                    }
                    endedByApplication(call, autoCommit);
                    if (autoCommit) call.commit();
                    else call.rollback();
                    return null;
                }
                default -> {
                }
            }
            if (autoCommit) call.endsWithMethod = true; // each statement would commit: the call commits at its end
            try {
                return method.invoke(call.connection(), args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }

        private Object on(Connection fanned, Method method, Object[] args) throws Throwable {
            try {
                return method.invoke(fanned, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }

        private Connection everywhere() throws SQLException {
            if (everywhere == null) {
                List<Connection> each = new ArrayList<>();
                for (int i = 0; i < instances; i++) {
                    Connection c = java.sql.DriverManager.getConnection(instanceUrl.apply(i));
                    c.setAutoCommit(autoCommit);
                    each.add(c);
                }
                everywhere = FanOut.of(Connection.class, each);
            }
            return everywhere;
        }
    }

    /** The texts of reads outside any call once Gyro serves, told once each (at most {@link #TOLD} of them). */
    private static final java.util.Set<String> READS_TOLD = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private static final int TOLD = 20;

    /**
     * A read outside any call while Gyro serves: it runs on every instance's database and is answered with instance
     * 0's, which holds the local requests' writes of instance 0's partitions only. Said once per text on standard
     * error, naming the application's method: a read that needs every partition's rows belongs in a transaction method
     * (of a partition), or is a global one.
     */
    static void readOutsideCalls(String sql) {
        String text = sql.strip();
        if (READS_TOLD.size() >= TOLD || !READS_TOLD.add(text)) return;
        System.err.println(GyroAgent.PREFIX + caller() + " reads outside any transaction method while Gyro serves ("
                + (text.length() > 120 ? text.substring(0, 120) + "..." : text) + "): answered from instance 0's database,"
                + " which holds only its own partitions' local writes");
    }

    /** Where no statement runs: each is answered {@code refused}. */
    private static VirtualStatement.Place refusedPlace(SQLException refused) {
        return new VirtualStatement.Place() {
            @Override
            public Object key() {
                return refused;
            }

            @Override
            public Connection connection() throws SQLException {
                throw new SQLException(refused.getMessage(), refused.getSQLState(), refused);
            }

            @Override
            public boolean refusesWrites() {
                return false;
            }
        };
    }

    /** The application's method that called into JDBC: the first frame outside the JDK, JDBC drivers and Gyro. */
    static String caller() {
        ClassLoader gyro = Takeover.class.getClassLoader();
        return StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).walk(frames -> frames
                .filter(f -> f.getDeclaringClass().getClassLoader() != gyro)
                .filter(f -> !javax.sql.DataSource.class.isAssignableFrom(f.getDeclaringClass())
                        && !java.sql.Driver.class.isAssignableFrom(f.getDeclaringClass()))
                .map(f -> f.getClassName() + "." + f.getMethodName())
                .filter(n -> !n.startsWith("java.") && !n.startsWith("jdk.") && !n.startsWith("sun.")
                        && !n.startsWith("com.sun.proxy") && !n.startsWith("dev.gyro.agent.bridge.")
                        && !n.contains("$Proxy"))
                .findFirst().orElse("the application"));
    }
}
