package dev.gyro.agent;

import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * The code Gyro adds to each classified method of the application (inlined by ByteBuddy): the call is reported on
 * entry, with its arguments, and on exit, however it ends, through the bridge ({@link Calls} answers). Nothing else
 * of the method changes, except where the call ran at another process's instance
 * (docs/decisions/38-attached-processes.md): then the method is skipped here and returns or throws what it did there.
 */
public final class CallAdvice {

    private CallAdvice() {}

    @Advice.OnMethodEnter(skipOn = dev.gyro.agent.bridge.Bridge.Ran.class)
    public static Object enter(@Advice.Origin("#t.#m#d") String method, @Advice.AllArguments Object[] args) {
        return dev.gyro.agent.bridge.Bridge.enter(method, args);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    public static void exit(@Advice.Enter Object call, @Advice.Thrown(readOnly = false) Throwable thrown,
                            @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object returned) {
        if (call instanceof dev.gyro.agent.bridge.Bridge.Ran) {
            dev.gyro.agent.bridge.Bridge.Ran ran = (dev.gyro.agent.bridge.Bridge.Ran) call;
            returned = ran.value;
            thrown = ran.thrown;
        }
        dev.gyro.agent.bridge.Bridge.exit(call, thrown);
    }

    /** The same for a method that returns nothing (whose return value cannot be written). */
    public static final class Void {

        private Void() {}

        @Advice.OnMethodEnter(skipOn = dev.gyro.agent.bridge.Bridge.Ran.class)
        public static Object enter(@Advice.Origin("#t.#m#d") String method, @Advice.AllArguments Object[] args) {
            return dev.gyro.agent.bridge.Bridge.enter(method, args);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        public static void exit(@Advice.Enter Object call, @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (call instanceof dev.gyro.agent.bridge.Bridge.Ran)
                thrown = ((dev.gyro.agent.bridge.Bridge.Ran) call).thrown;
            dev.gyro.agent.bridge.Bridge.exit(call, thrown);
        }
    }
}
