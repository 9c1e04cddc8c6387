package dev.gyro.runtime;

import dev.gyro.protocol.Ring;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;
import dev.gyro.protocol.Value;
import dev.gyro.runtime.db.MetadataStore;
import dev.gyro.wire.RoutingTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * The ring's membership at this instance (docs/decisions/44-ring-changes.md): the ring this database applied last, and
 * the addresses of the instances that joined since the cluster started, which a join's update carries as rows of
 * {@value #TABLE}. When an update that changes the ring is committed here, made or applied, the peers and the
 * routing table learn the new instances before the belt passes the next hop.
 *
 * <pre>
 * gyro_members (id PRIMARY KEY, address)   -- the instances that joined the ring, with their addresses
 * </pre>
 */
final class RingMembers {

    private static final Logger log = LoggerFactory.getLogger(RingMembers.class);

    static final String TABLE = MetadataStore.MEMBERS;
    private static final List<String> COLUMNS = List.of("id", "address");

    private final int self;
    private final RoutingTable routing;
    private volatile Ring ring;
    private volatile PeerLinks peers;
    private volatile RingWatch watch;

    RingMembers(int self, RoutingTable routing, Ring ring) {
        this.self = self;
        this.routing = routing;
        this.ring = ring;
    }

    /** The peers and the watch, once built: they learn the members that joined before this instance started. */
    void attach(PeerLinks peers, RingWatch watch) {
        this.peers = peers;
        this.watch = watch;
        List<String> all = routing.addresses();
        for (int i = 0; i < all.size(); i++) {
            peers.join(i, all.get(i));
            watch.join(i, all.get(i));
        }
        for (int i = 0; i < all.size(); i++) if (!ring.contains(i)) watch.leave(i);
    }

    /** The addresses of the instances that joined, by id, as this database holds them. */
    static TreeMap<Integer, String> joined(Connection c) throws SQLException {
        TreeMap<Integer, String> out = new TreeMap<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT id, address FROM " + TABLE)) {
            while (rs.next()) out.put((int) rs.getLong(1), rs.getString(2));
        }
        return out;
    }

    /** The row of {@value #TABLE} that names instance {@code id}'s address. */
    static RowChange row(int id, String address) {
        return new RowChange(TABLE, RowChange.Kind.UPSERT, COLUMNS, List.of(new Value.Int(id), new Value.Text(address)),
                List.of("id"));
    }

    Ring ring() {
        return ring;
    }

    /**
     * {@code updates} are committed here (made, or applied from another instance): the ring changes they make are in
     * force, the instances they add are linked, the ones they take out no longer watched.
     */
    void committed(List<StateUpdate> updates) {
        for (StateUpdate u : updates) {
            if (u.ring() == null) continue;
            Ring before = ring;
            for (RowChange c : u.changes()) {
                if (!c.table().equals(TABLE)) continue;
                int id = (int) ((Value.Int) c.value("id")).value();
                String address = ((Value.Text) c.value("address")).value();
                PeerLinks p = peers;
                RingWatch w = watch;
                if (id < routing.addresses().size()) { // a member reached at another address (decision 47)
                    routing.moveAddress(id, address, u.ring().epoch());
                    if (p != null) p.move(id, address);
                    if (w != null) w.move(id, address);
                    continue;
                }
                List<String> longer = new ArrayList<>(routing.addresses());
                while (longer.size() <= id) longer.add(address);
                routing.adoptAddresses(longer);
                if (p != null) p.join(id, address);
                if (w != null) w.join(id, address);
            }
            ring = u.ring();
            for (int m : before.members())
                if (!ring.contains(m)) {
                    RingWatch w = watch;
                    if (w != null) w.leave(m);
                }
            log.info("instance {}: the ring is {} from gsn {} on (epoch {}){}", self, ring.members(), u.gsn(),
                    ring.epoch(), ring.contains(self) ? "" : ": this instance is out of it and can be stopped");
        }
    }
}
