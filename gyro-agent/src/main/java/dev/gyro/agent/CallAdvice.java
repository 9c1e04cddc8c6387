package dev.gyro.agent;

import net.bytebuddy.asm.Advice;

/**
 * The code Gyro adds to each classified method of the application (inlined by ByteBuddy): the call is reported on
 * entry, with its arguments, and on exit, however it ends. Nothing else of the method changes.
 */
public final class CallAdvice {

    private CallAdvice() {}

    @Advice.OnMethodEnter
    public static Object enter(@Advice.Origin("#t.#m#d") String method, @Advice.AllArguments Object[] args) {
        return Calls.enter(method, args);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    public static void exit(@Advice.Enter Object call, @Advice.Thrown Throwable thrown) {
        Calls.exit(call, thrown);
    }
}
