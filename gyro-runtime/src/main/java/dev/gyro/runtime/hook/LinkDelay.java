package dev.gyro.runtime.hook;

import java.time.Duration;
import java.util.Map;

/**
 * What one instance's links to its peers cost. Every message the instance sends to a peer (belt messages, requests
 * it forwards) goes through {@link #send}; the replies to requests it forwarded come back through {@link #receive}.
 * The runtime's default, {@link #NONE}, runs each action at once on the calling thread (a LAN); benchmarks plug in
 * an emulated WAN (the gyro-emulation module), whose links delay each message by their one-way latency.
 *
 * <p>Contract: {@code send} and {@code receive} never block the caller for the delay (they hand the action on);
 * actions of one link run in the order given. {@link #close()} is called once, when the instance stops.
 */
public interface LinkDelay extends AutoCloseable {

    /** A LAN: every action runs at once, on the calling thread. */
    LinkDelay NONE = new LinkDelay() {
        @Override
        public void send(int to, Runnable transmit) {
            transmit.run();
        }

        @Override
        public void receive(int from, Runnable deliver) {
            deliver.run();
        }

        @Override
        public Duration oneWay(int peer) {
            return Duration.ZERO;
        }

        @Override
        public void close() {}
    };

    /** Makes the links of one instance when it starts. */
    @FunctionalInterface
    interface Factory {
        /** No delays: {@link #NONE} for every instance. */
        Factory NONE = self -> LinkDelay.NONE;

        LinkDelay open(int self);
    }

    /** Runs {@code transmit} (which sends one message to instance {@code to}) once the link's delay has passed. */
    void send(int to, Runnable transmit);

    /** Runs {@code deliver} (which hands on a reply instance {@code from} sent back) once the delay has passed. */
    void receive(int from, Runnable deliver);

    /** The one-way delay to {@code peer}: the belt stretches its resend timers by the round trip. */
    Duration oneWay(int peer);

    /** What the instance's Status reports about its links (nothing on a LAN). */
    default Map<String, Object> status() {
        return Map.of();
    }

    @Override
    void close();
}
