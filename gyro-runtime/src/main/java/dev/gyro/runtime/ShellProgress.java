package dev.gyro.runtime;

import dev.gyro.driver.BeltActions;
import dev.gyro.protocol.Message;

/**
 * What the belt's actions did, told to the instance's statistics, its session gate (a local request waiting for a gsn
 * goes on once it is applied here) and its watch on the token ({@link TokenEvents}). Called on the belt loop.
 */
final class ShellProgress implements BeltActions.Progress {

    /**
     * What the token does here, for the instance's watch on its ring and its metrics (docs/decisions/18-watching.md).
     * Called on the belt loop.
     */
    interface TokenEvents {
        TokenEvents NONE = new TokenEvents() {
            @Override
            public void sent(int to, long hop) {}

            @Override
            public void received(long hop, int updates) {}
        };

        /** The token of {@code hop} was sent to {@code to} (passed, or resent until acknowledged). */
        void sent(int to, long hop);

        /** The token of {@code hop} arrived and its {@code updates} were applied. */
        void received(long hop, int updates);

        /** A peer's message arrived, before the belt hears of it. */
        default void heard(Message message) {}
    }

    private final InstanceStats stats;
    private final SessionGate session;
    private final TokenEvents token;

    ShellProgress(InstanceStats stats, SessionGate session, TokenEvents token) {
        this.stats = stats;
        this.session = session;
        this.token = token;
    }

    @Override
    public void applied(int updates, long lastGsn, boolean ahead) {
        if (ahead) stats.updatesAhead.add(updates);
        stats.updatesApplied.add(updates);
        stats.appliedGsn(lastGsn);
        session.advance(lastGsn);
    }

    @Override
    public void tokenReceived(long hop, int updates) {
        token.received(hop, updates);
    }

    @Override
    public void tokenSent(int to, long hop, boolean passed) {
        if (passed) stats.tokenPasses.increment();
        token.sent(to, hop);
    }

    @Override
    public void heard(Message message) {
        token.heard(message);
    }
}
