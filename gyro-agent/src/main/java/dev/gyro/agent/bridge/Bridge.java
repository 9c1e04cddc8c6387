package dev.gyro.agent.bridge;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;

/**
 * The one door between an application and Gyro attached to it (docs/decisions/34-attaching.md, "Gyro's libraries
 * apart"): the code Gyro adds to the application's classes calls these static methods, which only the JDK's types
 * cross. It is loaded by the application's class loader (from the agent's jar); everything else of Gyro is loaded by
 * a class loader of its own, which sees none of the application's libraries, and answers through {@link Handler}.
 */
public final class Bridge {

    /** Gyro's side: what the application's calls and connections are answered with. */
    public interface Handler {
        /** A call of a classified method begins ({@code key}: {@code owner.name(descriptor)}); its token, or null. */
        Object enter(String key, Object[] args);

        /** The call {@link #enter} began has ended: returned ({@code thrown} null) or threw. */
        void exit(Object call, Throwable thrown);

        /** The connection to give the application instead of the one {@code driver} would make, or null. */
        Connection instead(Driver driver, String url) throws SQLException;

        /** The connection to give the application instead of the one {@code dataSource} would make, or null. */
        Connection insteadOf(Object dataSource) throws SQLException;

        /** Throws where {@code dataSource} would be taken over but its method cannot return Gyro's connection. */
        void narrowed(Object dataSource) throws SQLException;
    }

    private static volatile Handler handler;

    /**
     * What {@link #enter} returns for a call that ran elsewhere (at the instance of another process that owns it,
     * docs/decisions/38-attached-processes.md): the method is not run here, and returns {@code value} or throws
     * {@code thrown} instead; {@code call} is handed to {@link #exit} as any call's token.
     */
    public static final class Ran {
        public final Object call;
        public final Object value;
        public final Throwable thrown;

        public Ran(Object call, Object value, Throwable thrown) {
            this.call = call;
            this.value = value;
            this.thrown = thrown;
        }
    }

    private Bridge() {}

    /** Gyro answers from now on. */
    public static void install(Handler h) {
        handler = h;
    }

    public static Object enter(String key, Object[] args) {
        Handler h = handler;
        return h == null ? null : h.enter(key, args);
    }

    public static void exit(Object call, Throwable thrown) {
        if (call instanceof Ran ran) call = ran.call;
        Handler h = handler;
        if (h != null && call != null) h.exit(call, thrown);
    }

    public static Connection instead(Driver driver, String url) throws SQLException {
        Handler h = handler;
        return h == null ? null : h.instead(driver, url);
    }

    public static Connection insteadOf(Object dataSource) throws SQLException {
        Handler h = handler;
        return h == null ? null : h.insteadOf(dataSource);
    }

    public static void narrowed(Object dataSource) throws SQLException {
        Handler h = handler;
        if (h != null) h.narrowed(dataSource);
    }
}
