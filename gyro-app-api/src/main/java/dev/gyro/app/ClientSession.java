package dev.gyro.app;

/**
 * One emulated user of an application (a TPC-W browser, a RUBiS user, a TPC-C terminal): a state machine that
 * picks its next request from the outcome of the previous one. It keeps what a real client would keep between
 * requests (its customer id, its shopping cart), and draws every choice from the seeded random source it was
 * created with, so one seed gives one sequence of requests for the same sequence of outcomes.
 *
 * <p>Driven by one thread at a time (a closed loop: call, wait for the outcome, call again). Never blocks and never
 * talks to the database itself.
 */
public interface ClientSession {

    /**
     * The next request.
     *
     * @param previous the outcome of the call this session returned last time, or null on the first call
     */
    Call next(Outcome previous);
}
