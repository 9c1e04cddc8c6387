package dev.gyro.runtime;

import dev.gyro.app.BadRequestException;
import dev.gyro.protocol.Ring;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.Database;
import dev.gyro.runtime.db.OrderedCommits;
import dev.gyro.wire.RingRequest;
import dev.gyro.wire.RoutingTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * A change of the ring's membership at the token's holder (docs/decisions/44-ring-changes.md): Gyro's own global
 * requests {@value RingRequest#JOIN}(address), {@value RingRequest#LEAVE}(id) and {@value RingRequest#MOVE}(id,
 * address), run in the token's round like any other. The update carries the new ring ({@link Ring#change}, made at the
 * hop this instance holds; a move keeps its members) and, for a join or a move, the instance's address; once committed
 * here, the peers know the new instance, or its new address, before the belt passes the token by the new ring. One
 * change at a time.
 *
 * <p>Threads: {@link #run} on a global thread.
 */
final class RingChange {

    private static final Logger log = LoggerFactory.getLogger(RingChange.class);

    private final int self;
    private final Database db;
    private final RoutingTable routing;
    private final RingMembers members;
    private final LongSupplier heldHop;
    private final OwnUpdates attempts;

    /** @param heldHop the hop of the token this instance holds while its round runs */
    RingChange(int self, Database db, RoutingTable routing, RingMembers members, LongSupplier heldHop, RetryRule retry) {
        this.self = self;
        this.db = db;
        this.routing = routing;
        this.members = members;
        this.heldHop = heldHop;
        this.attempts = new OwnUpdates(self, db, retry);
    }

    /** Where two replica lists of the same length differ first. */
    private static int changedAt(List<String> was, List<String> will) {
        for (int i = 0; i < was.size(); i++) if (!was.get(i).equals(will.get(i))) return i;
        return -1;
    }

    /** Runs change request {@code id}, again while it loses races; a failed change changes nothing. */
    synchronized GlobalAttempts.Outcome run(long id, GlobalAttempts.Pending p, GlobalAttempts.GsnSource gsns,
                                      OrderedCommits ordered) throws InterruptedException {
        Ring now = members.ring();
        List<RowChange> extra = new ArrayList<>();
        Ring next;
        String what; // the reply's words
        try {
            List<Value> args = p.request().parameters();
            if (p.request().transaction().equals(RingRequest.JOIN)) {
                if (args.isEmpty() || args.size() > 2 || !(args.get(0) instanceof Value.Text address)
                        || address.value().isBlank() || (args.size() == 2 && !(args.get(1) instanceof Value.Int)))
                    throw new BadRequestException(RingRequest.JOIN + " takes the new instance's address (host:port)"
                            + " and, optionally, its id");
                if (routing.addresses().contains(address.value()))
                    throw new BadRequestException(RingRequest.JOIN + ": " + address.value() + " is the address of"
                            + " instance " + routing.addresses().indexOf(address.value()) + " already");
                int joiner = routing.addresses().size();
                if (args.size() == 2 && ((Value.Int) args.get(1)).value() != joiner)
                    throw new BadRequestException(RingRequest.JOIN + ": the ring's next instance is instance " + joiner
                            + ", not " + ((Value.Int) args.get(1)).value() + " (ids are never reused: start the new"
                            + " instance as --id " + joiner + ", with a certificate for instance-" + joiner + ")");
                List<Integer> more = new ArrayList<>(now.members());
                more.add(joiner);
                next = now.next(more, heldHop.getAsLong(), self);
                extra.add(RingMembers.row(joiner, address.value()));
                what = "instance " + joiner + " at " + address.value() + " joined the ring";
            } else if (p.request().transaction().equals(RingRequest.MOVE)) {
                if (args.size() != 2 || !(args.get(0) instanceof Value.Int mover)
                        || !(args.get(1) instanceof Value.Text address) || address.value().isBlank())
                    throw new BadRequestException(RingRequest.MOVE + " takes the instance's id and its new address"
                            + " (host:port, or a group's replicas joined by +)");
                int moved = (int) mover.value();
                if (!now.contains(moved))
                    throw new BadRequestException(RingRequest.MOVE + ": instance " + moved + " is no member of the ring "
                            + now.members());
                List<String> was = dev.gyro.wire.Transport.replicaAddresses(routing.addresses().get(moved));
                List<String> will = dev.gyro.wire.Transport.replicaAddresses(address.value());
                for (String a : will) {
                    try {
                        InstanceConfig.parsePort(a);
                    } catch (IllegalArgumentException e) {
                        throw new BadRequestException(RingRequest.MOVE + ": " + e.getMessage());
                    }
                }
                int changed = 0;
                for (int i = 0; i < Math.min(was.size(), will.size()); i++) if (!was.get(i).equals(will.get(i))) changed++;
                if (was.size() < 2 || will.size() != was.size() || changed != 1)
                    throw new BadRequestException(RingRequest.MOVE + " gives a replicated group the address of a new"
                            + " member in one lost member's place: instance " + moved + " is at "
                            + routing.addresses().get(moved) + ", and " + address.value() + " is not that address"
                            + " with one replica's changed");
                for (String a : routing.addresses())
                    if (!a.equals(routing.addresses().get(moved)) && dev.gyro.wire.Transport.replicaAddresses(a)
                            .contains(will.get(changedAt(was, will))))
                        throw new BadRequestException(RingRequest.MOVE + ": " + will.get(changedAt(was, will))
                                + " is an address of instance " + routing.addresses().indexOf(a) + " already");
                next = now.next(now.members(), heldHop.getAsLong(), self);
                extra.add(RingMembers.row(moved, address.value()));
                what = "instance " + moved + " is at " + address.value() + " from now on";
            } else {
                if (args.size() != 1 || !(args.get(0) instanceof Value.Int leaver))
                    throw new BadRequestException(RingRequest.LEAVE + " takes the leaving instance's id");
                int out = (int) leaver.value();
                if (!now.contains(out))
                    throw new BadRequestException(RingRequest.LEAVE + ": instance " + out + " is no member of the ring "
                            + now.members());
                if (out == self)
                    throw new BadRequestException(RingRequest.LEAVE + ": instance " + out + " cannot take itself out"
                            + " of the ring; send the request to another member");
                int owned = routing.map().bucketsOf(out).length;
                if (owned > 0)
                    throw new BadRequestException(RingRequest.LEAVE + ": instance " + out + " still owns " + owned
                            + " buckets; move them to other instances first (gyro cluster rebalance)");
                List<Integer> fewer = new ArrayList<>(now.members());
                fewer.remove(Integer.valueOf(out));
                next = now.next(fewer, heldHop.getAsLong(), self);
                what = "instance " + out + " left the ring";
            }
        } catch (BadRequestException e) {
            return new GlobalAttempts.Outcome(null, null, e);
        }
        Ring made = next;
        return attempts.run(id, p, gsns, ordered, new OwnUpdates.Work() {
            @Override
            public void read(Connection c) {}

            @Override
            public OwnUpdates.Changes changes(long gsn) {
                List<RowChange> changes = new ArrayList<>(extra);
                changes.add(made.change());
                return new OwnUpdates.Changes(changes, List.of());
            }

            @Override
            public Object committed(StateUpdate update) {
                members.committed(List.of(update)); // the peers know a new member before the token goes to it
                String result = what + " at gsn " + update.gsn() + ": ring " + made.members() + " (epoch "
                        + made.epoch() + ")";
                log.debug("instance {}: {}", self, result); // the reply says it; every member logs the new ring
                return result;
            }

            @Override
            public void failed() {}
        });
    }
}
