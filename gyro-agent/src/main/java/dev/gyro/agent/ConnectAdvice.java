package dev.gyro.agent;

import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

import java.sql.Connection;
import java.sql.Driver;

/**
 * The code Gyro adds to a JDBC driver's {@code connect(url, properties)} (inlined by ByteBuddy): for a URL the driver
 * takes that is not one of the instances' databases, Gyro's connection is returned instead and the driver does not
 * connect at all ({@link Takeover#instead}, through the bridge), so the database the application's configuration names need not exist;
 * whichever way the application reached the driver (DriverManager, a DataSource, a pool).
 */
public final class ConnectAdvice {

    private ConnectAdvice() {}

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    public static Connection enter(@Advice.This Driver driver, @Advice.Argument(0) String url)
            throws java.sql.SQLException {
        return dev.gyro.agent.bridge.Bridge.instead(driver, url);
    }

    @Advice.OnMethodExit
    public static void exit(@Advice.Enter Connection instead,
                            @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Connection made) {
        if (instead != null) made = instead;
    }
}
