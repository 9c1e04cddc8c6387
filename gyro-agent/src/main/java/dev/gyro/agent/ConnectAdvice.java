package dev.gyro.agent;

import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

import java.sql.Connection;

/**
 * The code Gyro adds to the database driver's {@code connect(url, properties)} (inlined by ByteBuddy): the connection it
 * made for the application is replaced by Gyro's ({@link Takeover#connected}), whichever way the application reached
 * the driver (DriverManager, a DataSource, a pool).
 */
public final class ConnectAdvice {

    private ConnectAdvice() {}

    @Advice.OnMethodExit
    public static void exit(@Advice.Argument(0) String url,
                            @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Connection made)
            throws java.sql.SQLException {
        made = Takeover.connected(made, url);
    }
}
