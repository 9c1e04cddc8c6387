package dev.gyro.agent;

import net.bytebuddy.asm.Advice;

/**
 * The code Gyro adds to each classified method of the application (inlined by ByteBuddy): the call is reported on
 * entry, with its arguments, and on exit, however it ends, through the bridge ({@link Calls} answers). Nothing else
 * of the method changes.
 */
public final class CallAdvice {

    private CallAdvice() {}

    @Advice.OnMethodEnter
    public static Object enter(@Advice.Origin("#t.#m#d") String method, @Advice.AllArguments Object[] args) {
        return dev.gyro.agent.bridge.Bridge.enter(method, args);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    public static void exit(@Advice.Enter Object call, @Advice.Thrown Throwable thrown) {
        dev.gyro.agent.bridge.Bridge.exit(call, thrown);
    }
}
