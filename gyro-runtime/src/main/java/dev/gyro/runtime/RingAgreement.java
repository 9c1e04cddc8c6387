package dev.gyro.runtime;

import dev.gyro.protocol.Codec;
import dev.gyro.protocol.ConveyorBelt;
import dev.gyro.protocol.DurableState;
import dev.gyro.protocol.MalformedMessageException;
import dev.gyro.protocol.Value;

import java.util.List;
import java.util.Map;

/**
 * Is this database the ring's? Checked at start, before the instance serves (docs/decisions/13-secure-by-default.md):
 * an instance restarted on a recreated database, or on a backup behind the ring, would otherwise take part in the belt
 * with a history the others have moved past, and the token it was passed is lost.
 *
 * <p>The evidence is what its peers durably know. Every pass adds one to the token's hop and goes to the successor
 * (paper Section V: the ring order is fixed), so hop {@code h} is held by instance {@code h mod n}, and an instance
 * records a token before it passes it on or acknowledges it ({@link dev.gyro.protocol.Action},
 * docs/decisions/05-exactly-once.md). Hence, for this instance {@code i} and a peer {@code j} that is {@code d} places
 * after it:
 * <ul>
 *   <li>if {@code j} has received hop {@code r}, then {@code i} passed hop {@code r - d + 1} (when that is at least 1:
 *       hop 0 is the first token, which instance 0 holds from no one), and its database records at least that hop;</li>
 *   <li>if its predecessor {@code p} knows its successor acknowledged hop {@code a}, then {@code i} recorded receiving
 *       hop {@code a}.</li>
 * </ul>
 * A correct database always satisfies both, since it only moves forward; a database that fails one is not the one
 * this instance ran on, and the instance refuses to start, naming itself, its gsn and the ring's. A fresh database is
 * refused the same way as soon as the ring has passed this instance anything. Peers that do not answer (stopped, or
 * starting at the same moment) give no evidence; what the others say is still checked.
 */
final class RingAgreement {

    /** Where the token stands at one instance, as it answers {@link dev.gyro.wire.Wire#POSITION}. */
    record Position(long receivedHop, long successorHasHop, long lastGsn) {

        static Position of(ConveyorBelt belt) {
            return new Position(belt.lastReceivedHop(), belt.successorHasHop(), belt.lastGsn());
        }

        byte[] encode() {
            return Codec.encodeValues(List.of(new Value.Int(receivedHop), new Value.Int(successorHasHop),
                    new Value.Int(lastGsn)));
        }

        static Position decode(byte[] bytes) {
            List<Value> v = Codec.decodeValues(bytes);
            if (v.size() != 3 || !(v.get(0) instanceof Value.Int r) || !(v.get(1) instanceof Value.Int s)
                    || !(v.get(2) instanceof Value.Int g))
                throw new MalformedMessageException("a position is three integers: received hop, successor's hop, gsn");
            return new Position(r.value(), s.value(), g.value());
        }
    }

    private RingAgreement() {}

    /**
     * Why instance {@code self} of a ring of {@code n} must not serve on a database holding {@code state}, given what
     * its peers answered ({@code answers}: by instance id); null when nothing contradicts it.
     */
    static String refusal(int self, int n, DurableState state, Map<Integer, Position> answers) {
        long hop = state.tokenStatus() == DurableState.TokenStatus.NONE ? -1 : state.token().hop();
        long received = switch (state.tokenStatus()) {
            case NONE -> -1;
            case HELD -> state.token().hop();
            case PASSED -> state.token().hop() - 1;
        };
        long ringGsn = answers.values().stream().mapToLong(Position::lastGsn).max().orElse(state.lastGsn());
        for (Map.Entry<Integer, Position> e : answers.entrySet()) {
            int j = e.getKey();
            Position p = e.getValue();
            int d = Math.floorMod(j - self, n);
            long mustHavePassed = p.receivedHop() - d + 1;
            if (mustHavePassed >= 1 && hop < mustHavePassed)
                return behind(self, state, hop, ringGsn, "instance " + j + " has received the token's hop "
                        + p.receivedHop() + ", so this instance must have passed hop " + mustHavePassed);
            if (d == n - 1 && p.successorHasHop() > received)
                return behind(self, state, hop, ringGsn, "instance " + j + ", its predecessor, passed it hop "
                        + p.successorHasHop() + ", and this instance acknowledged it as recorded");
        }
        return null;
    }

    private static String behind(int self, DurableState state, long hop, long ringGsn, String evidence) {
        String has = state.tokenStatus() == DurableState.TokenStatus.NONE ? "no token hop (a fresh database)"
                : "token hop " + hop;
        return "instance " + self + " refuses to serve: its database is not the ring's, it is behind it. The database"
                + " is at gsn " + state.lastGsn() + " with " + has + ", the ring at gsn " + ringGsn + ", and " + evidence
                + ". Was the database recreated, or restored from a backup? Start instance " + self + " on the database"
                + " it last ran on; nothing was changed in the ring";
    }
}
