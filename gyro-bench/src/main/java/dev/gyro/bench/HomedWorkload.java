package dev.gyro.bench;

import dev.gyro.app.ClientSession;
import dev.gyro.app.Homing;
import dev.gyro.app.Workload;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.Value;
import dev.gyro.emulation.wan.Wan;

import java.util.SplittableRandom;

/**
 * A workload whose client sessions work on data their nearest Gyro instance owns, as the paper's WAN clients do
 * ("direct requests to the closest Gyro instance", Section VII-A; Table III's 25-29 ms with an instance at every
 * site is only reachable that way). Session k sits where {@link GyroTarget} puts channel k, at
 * {@link Wan.Placement#clientSite}(k), and is homed ({@link Homing}) at {@link Wan.Placement#entryInstance}(k): it
 * draws the partitioning values of its requests among those the partition map routes to that instance, where the
 * application lets a client choose.
 *
 * <p>The request stream depends only on the placement, the map and the seed, not on the system it is sent to: the
 * centralized database and the read-only baseline, wrapped alike, get exactly the calls Gyro gets, so results compare
 * side by side. Drivers must open session k's channel with {@link Target#open(int)}, so that its requests enter at
 * the instance it is homed at.
 */
public final class HomedWorkload implements Workload {

    private final Workload inner;
    private final Wan.Placement placement;
    private final PartitionMap map;

    private HomedWorkload(Workload inner, Wan.Placement placement, PartitionMap map) {
        this.inner = inner;
        this.placement = placement;
        this.map = map;
    }

    /**
     * @param placement where the instances sit (the cluster's: {@code LocalCluster.wan()}, {@code GyroTarget.wan()})
     * @param map       the partition map the cluster routes by ({@code PartitionMap.uniform(n)} unless set otherwise)
     */
    public static HomedWorkload of(Workload inner, Wan.Placement placement, PartitionMap map) {
        if (map.instances() != placement.instances())
            throw new IllegalArgumentException("the partition map routes to " + map.instances()
                    + " instances but the placement places " + placement.instances());
        return new HomedWorkload(inner, placement, map);
    }

    /**
     * Homed for a cluster of {@code instances} at the paper's sites (G, J, US, B, A, G, ...) under the partition map
     * every cluster uses by default ({@link PartitionMap#uniform(int)}): what {@code Systems.gyro()} and
     * {@code Systems.readOnly()} deploy on {@link Wan#paper()}; give a centralized run the same count to send it the
     * same calls.
     */
    public static HomedWorkload of(Workload inner, int instances) {
        return of(inner, Wan.paper().place(instances), PartitionMap.uniform(instances));
    }

    /** Session {@code session}'s home: the partitions of the instance its requests enter at. */
    public Homing homing(int session) {
        int entry = placement.entryInstance(session);
        return v -> map.instanceOf(Value.of(v)) == entry;
    }

    @Override
    public String describe() {
        return inner.describe() + ", keys homed at each client's nearest of " + placement.instances() + " instances";
    }

    @Override
    public ClientSession newSession(int index, SplittableRandom random) {
        return inner.newSession(index, random, homing(index));
    }

    /** Home is where both say: the session's entry instance's partitions, narrowed by {@code homing}. */
    @Override
    public ClientSession newSession(int index, SplittableRandom random, Homing homing) {
        Homing own = homing(index);
        return inner.newSession(index, random, v -> own.owns(v) && homing.owns(v));
    }
}
