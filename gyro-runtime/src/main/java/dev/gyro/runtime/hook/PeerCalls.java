package dev.gyro.runtime.hook;

import java.util.function.Consumer;

/**
 * Calls between the instances of a ring that the process hosting an instance answers itself, over the ring's sockets
 * and their mutual TLS ({@code Wire.CALL}): an attached application's calls that another process's instance owns
 * (docs/decisions/38-attached-processes.md). The runtime carries the bytes; their meaning is the process's.
 */
public interface PeerCalls {

    /**
     * Answers one call from instance {@code from} (its certificate's, under TLS) with {@code out}, exactly once, later
     * or now. Called on the instance's peer thread, which carries the belt's messages too: it must not block.
     */
    void answer(int from, byte[] body, Consumer<byte[]> out);

    /** The default: the process answers no calls; each is refused. */
    PeerCalls NONE = (from, body, out) -> {
        throw new UnsupportedOperationException("this instance's process answers no calls of other instances");
    };
}
