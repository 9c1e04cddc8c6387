package dev.gyro.runtime;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** What one instance has done so far, as its Status method reports it. Counters only: nothing here decides. */
final class InstanceStats {

    private static final ObjectMapper JSON = new ObjectMapper();

    final LongAdder local = new LongAdder();
    final LongAdder global = new LongAdder();
    final LongAdder forwarded = new LongAdder();
    final LongAdder aborted = new LongAdder();
    final LongAdder failed = new LongAdder();
    final LongAdder refused = new LongAdder();
    /** Requests with an id answered from their recorded reply: a client's retry of one that had run (decision 24). */
    final LongAdder repeatedRequests = new LongAdder();
    final LongAdder updatesApplied = new LongAdder();
    /** Of those, the ones applied ahead of the token (decision 25). */
    final LongAdder updatesAhead = new LongAdder();
    final LongAdder tokenPasses = new LongAdder();
    private final AtomicInteger globalsRunning = new AtomicInteger();
    private final AtomicInteger mostGlobalsAtOnce = new AtomicInteger();
    private final AtomicLong appliedGsn = new AtomicLong();
    private volatile String role = "STARTING";
    private volatile int queuedGlobals;
    private volatile String stopped; // why the instance stopped itself, or null

    void globalStarted() {
        mostGlobalsAtOnce.accumulateAndGet(globalsRunning.incrementAndGet(), Math::max);
    }

    void globalFinished() {
        globalsRunning.decrementAndGet();
    }

    int globalsRunning() {
        return globalsRunning.get();
    }

    int queuedGlobals() {
        return queuedGlobals;
    }

    /** The most global requests that executed at the same time (1 when they run one at a time). */
    int mostGlobalsAtOnce() {
        return mostGlobalsAtOnce.get();
    }

    void belt(String role, int queuedGlobals) {
        this.role = role;
        this.queuedGlobals = queuedGlobals;
    }

    void appliedGsn(long gsn) {
        appliedGsn.accumulateAndGet(gsn, Math::max);
    }

    long appliedGsn() {
        return appliedGsn.get();
    }

    String role() {
        return role;
    }

    void stopped(String reason) {
        stopped = reason;
        role = "STOPPED";
    }

    byte[] json(int self, String address, boolean parallelGlobals, int waitingForGsn, Map<String, Object> links) {
        ObjectNode s = JSON.createObjectNode();
        s.put("instance", self);
        s.put("address", address);
        s.put("lastGsn", appliedGsn.get());
        s.put("role", role);
        if (stopped != null) s.put("stopped", stopped);
        s.put("queuedGlobals", queuedGlobals);
        s.put("waitingForGsn", waitingForGsn);
        s.put("local", local.sum());
        s.put("global", global.sum());
        s.put("forwarded", forwarded.sum());
        s.put("aborted", aborted.sum());
        s.put("failed", failed.sum());
        s.put("refused", refused.sum());
        s.put("updatesApplied", updatesApplied.sum());
        s.put("updatesAhead", updatesAhead.sum());
        s.put("tokenPasses", tokenPasses.sum());
        s.put("parallelGlobals", parallelGlobals);
        s.put("mostGlobalsAtOnce", mostGlobalsAtOnce());
        links.forEach((k, v) -> s.putPOJO(k, v));
        try {
            return JSON.writeValueAsBytes(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
