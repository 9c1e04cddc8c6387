package dev.gyro.sim;

/** A checker found a violation: the run fails, and its seed replays it. */
final class SimulationFailure extends RuntimeException {
    SimulationFailure(String message) {
        super(message);
    }
}
