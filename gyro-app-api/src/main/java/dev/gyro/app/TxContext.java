package dev.gyro.app;

import java.sql.Connection;
import java.util.random.RandomGenerator;

/** What a running request may use besides its input parameters. */
public interface TxContext {

    /**
     * The connection of this request's DBMS transaction (auto-commit off, serializable). For a global request
     * it records every write as a row image (paper Appendix B, "Extracting state updates").
     */
    Connection connection();

    /**
     * The request's deterministic clock, in milliseconds since the epoch: fixed when the request arrived, the
     * same on every retry of the request.
     */
    long now();

    /** A random source seeded by the request's identity: the same sequence on every retry of the request. */
    RandomGenerator random();
}
