package dev.gyro.runtime;

/**
 * What the process does once an instance has stopped itself because its state contradicted the protocol (an
 * invariant of the Conveyor Belt, a gap in gsns, an action the shell could not perform): fail-stop, never carry on
 * with state the belt did not decide (docs/decisions/11-fail-stop.md). By the time this is called the instance has
 * logged why at ERROR level and stopped serving; its database keeps what committed, and a restart recovers from it.
 */
@FunctionalInterface
public interface FailStop {

    /** Leaves the process running: for processes that host several instances (tests, the local cluster). */
    FailStop KEEP_PROCESS = (instance, reason, cause) -> {};

    /** The exit status of a process that stopped because its instance failed (EX_SOFTWARE). */
    int EXIT_STATUS = 70;

    /** Exits the process with status {@value #EXIT_STATUS}: for a process that runs one instance. */
    FailStop EXIT = (instance, reason, cause) -> System.exit(EXIT_STATUS);

    void stopped(int instance, String reason, Throwable cause);
}
