package dev.gyro.bench;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * A JDBC connection as an application sees it from another WAN site than its database's: every statement it executes
 * is a request to the database and a reply, so each pays the one-way delay twice on the calling thread, as a driver
 * waits for its reply. Preparing a statement and binding its parameters cost nothing (drivers send them with the
 * execution); the transaction's commit is the caller's round trip to pay ({@code centralized-jdbc} in
 * {@link Systems}).
 *
 * <p>This is how the paper's centralized baseline talked to its one MySQL server (Section VII-D): Table III's 1390 ms
 * (TPC-W) and 416 ms (RUBiS) at light load are several round trips per request, not one.
 */
final class RemoteConnection {

    /** The {@link Statement} methods that send the statement to the database and wait for its reply. */
    private static final Set<String> EXECUTIONS = Set.of("execute", "executeQuery", "executeUpdate", "executeBatch",
            "executeLargeUpdate", "executeLargeBatch");

    private RemoteConnection() {}

    /**
     * {@code c} seen from {@code oneWayNanos} away; every statement executed through it (or through statements it
     * creates) adds one to {@code roundTrips}.
     */
    static Connection across(Connection c, long oneWayNanos, LongAdder roundTrips) {
        InvocationHandler handler = (proxy, method, args) -> {
            Object result = call(c, method, args);
            if (result instanceof Statement s && Statement.class.isAssignableFrom(method.getReturnType()))
                return statement(s, method.getReturnType(), oneWayNanos, roundTrips);
            return result;
        };
        return (Connection) Proxy.newProxyInstance(RemoteConnection.class.getClassLoader(),
                new Class<?>[]{Connection.class}, handler);
    }

    private static Object statement(Statement s, Class<?> type, long oneWayNanos, LongAdder roundTrips) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (!EXECUTIONS.contains(method.getName())) return call(s, method, args);
            away(oneWayNanos);
            Object result = call(s, method, args);
            roundTrips.increment();
            away(oneWayNanos);
            return result;
        };
        return Proxy.newProxyInstance(RemoteConnection.class.getClassLoader(), new Class<?>[]{type}, handler);
    }

    /** One message's way across the WAN; an interrupted wait fails the statement (the transaction rolls back). */
    static void away(long oneWayNanos) throws SQLException {
        if (!WanChannel.pause(oneWayNanos))
            throw new SQLException("interrupted while a statement crossed the emulated WAN", "57014");
    }

    private static Object call(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
