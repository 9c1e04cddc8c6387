package dev.gyro.runtime;

import dev.gyro.app.TxContext;

import java.sql.Connection;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/** The deterministic context of one attempt of one request (TxContext: time and randomness come from the runtime, so replicas agree). */
final class RequestContext implements TxContext {
    private final Connection connection;
    private final long now;
    private final SplittableRandom random;

    RequestContext(Connection connection, long now, long seed) {
        this.connection = connection;
        this.now = now;
        this.random = new SplittableRandom(seed);
    }

    @Override
    public Connection connection() {
        return connection;
    }

    @Override
    public long now() {
        return now;
    }

    @Override
    public RandomGenerator random() {
        return random;
    }
}
