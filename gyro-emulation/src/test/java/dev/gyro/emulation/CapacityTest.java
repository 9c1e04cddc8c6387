package dev.gyro.emulation;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The emulated server bounds concurrency and adds its service time: checked by counting who is inside at once and
 * by each slot's own timestamps (a lower bound that cannot fail on a slow machine), not by how fast anything ran.
 */
class CapacityTest {

    @Test
    void boundsConcurrencyAndSpendsTheServiceTimeInEverySlot() throws Exception {
        Capacity capacity = Capacity.of(2, 5);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        List<Long> waitedNanos = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            Thread th = new Thread(() -> {
                for (int i = 0; i < 10; i++) {
                    long before = System.nanoTime();
                    try (dev.gyro.runtime.hook.TransactionGate.Slot slot = capacity.enter()) {
                        waitedNanos.add(System.nanoTime() - before);
                        mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                        Thread.onSpinWait();
                        inside.decrementAndGet();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) th.join();
        assertThat(capacity.served()).isEqualTo(60);
        assertThat(mostInside.get()).isLessThanOrEqualTo(2);
        assertThat(capacity.mostInService()).isEqualTo(2); // 6 threads: both slots were busy at some point
        // every transaction spent at least the service time in its slot before it could run
        assertThat(waitedNanos).hasSize(60).allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(5_000_000L));
        // and the slot time it counts holds at least every service time
        assertThat(capacity.busyNanos()).isGreaterThanOrEqualTo(60 * 5_000_000L);
    }

    @Test
    void plainModeEmulatesNothingAndEachInstanceGetsItsOwnServer() throws Exception {
        try (dev.gyro.runtime.hook.TransactionGate.Slot slot = Capacity.PLAIN.enter()) {
            assertThat(Capacity.PLAIN.emulated()).isFalse();
        }
        assertThat(Capacity.PLAIN.served()).isZero();
        Capacity one = Capacity.of(3, 7);
        try (dev.gyro.runtime.hook.TransactionGate.Slot slot = one.enter()) {
            assertThat(one.served()).isEqualTo(1);
        }
        Capacity two = one.copy();
        assertThat(two).isNotSameAs(one);
        assertThat(two.served()).isZero();
        assertThat(two.concurrency()).isEqualTo(3);
        assertThat(two.describe()).contains("3 transaction(s) at a time", "7 ms");
        assertThatThrownBy(() -> Capacity.of(0, 5)).isInstanceOf(IllegalArgumentException.class);
    }

    /** A thread that takes a slot (ahead or not), notes its name in {@code order}, and frees it at once. */
    private static Thread waiter(Capacity capacity, String name, boolean ahead, List<String> order) throws Exception {
        Thread t = new Thread(() -> {
            try (dev.gyro.runtime.hook.TransactionGate.Slot slot = ahead ? capacity.enterAhead() : capacity.enter()) {
                order.add(name);
            } catch (InterruptedException e) {
                order.add(name + " interrupted");
            }
        }, name);
        t.start();
        // in line before the next one starts: its place in the queue is its arrival
        while (t.getState() != Thread.State.WAITING) {
            assertThat(t.isAlive()).as(name + " waits for the held slot").isTrue();
            Thread.sleep(1);
        }
        return t;
    }

    @Test
    void theTokenHoldersGlobalsGoAheadOfWaitingLocalsAndEachLaneIsServedInArrivalOrder() throws Exception {
        Capacity capacity = Capacity.of(1, 0);
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        try (dev.gyro.runtime.hook.TransactionGate.Slot held = capacity.enter()) {
            threads.add(waiter(capacity, "local-1", false, order));
            threads.add(waiter(capacity, "local-2", false, order));
            threads.add(waiter(capacity, "global-1", true, order));
            threads.add(waiter(capacity, "local-3", false, order));
            threads.add(waiter(capacity, "global-2", true, order));
        }
        for (Thread t : threads) t.join(10_000);
        assertThat(order).containsExactly("global-1", "global-2", "local-1", "local-2", "local-3");
    }

    @Test
    void anInterruptedWaiterLeavesItsPlaceToTheNext() throws Exception {
        Capacity capacity = Capacity.of(1, 0);
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        Thread first, second, ahead;
        try (dev.gyro.runtime.hook.TransactionGate.Slot held = capacity.enter()) {
            first = waiter(capacity, "first", false, order);
            second = waiter(capacity, "second", false, order);
            ahead = waiter(capacity, "ahead", true, order);
            first.interrupt();
            first.join(10_000);
            ahead.interrupt();
            ahead.join(10_000);
            assertThat(order).containsExactly("first interrupted", "ahead interrupted");
        }
        second.join(10_000);
        assertThat(order).containsExactly("first interrupted", "ahead interrupted", "second");
        assertThat(capacity.served()).isEqualTo(2); // the held slot and second's
        try (dev.gyro.runtime.hook.TransactionGate.Slot again = capacity.enter()) {
            assertThat(capacity.served()).as("every slot came back").isEqualTo(3);
        }
    }

    @Test
    void aHoldKeepsLocalsOutOfFreeSlotsWhileGlobalsGoInAndLetsThemInWhenClosed() throws Exception {
        Capacity capacity = Capacity.of(1, 0);
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        dev.gyro.runtime.hook.TransactionGate.Hold hold = capacity.holdLocals();
        // the slot is free, yet the local waits: without the hold it would have gone in at once
        Thread local = waiter(capacity, "local", false, order);
        assertThat(order).isEmpty();
        try (dev.gyro.runtime.hook.TransactionGate.Slot global = capacity.enterAhead()) {
            order.add("global");
        }
        assertThat(local.isAlive()).as("the slot the global freed stays free while the hold is open").isTrue();
        hold.close();
        hold.close(); // a second close does nothing (the count of holds would go below zero)
        local.join(10_000);
        assertThat(order).containsExactly("global", "local");
        try (dev.gyro.runtime.hook.TransactionGate.Hold none = Capacity.PLAIN.holdLocals();
             dev.gyro.runtime.hook.TransactionGate.Slot plain = Capacity.PLAIN.enter()) {
            assertThat(Capacity.PLAIN.served()).as("plain mode holds and counts nothing").isZero();
        }
        Thread next = new Thread(() -> {
            try (dev.gyro.runtime.hook.TransactionGate.Slot slot = capacity.enter()) {
                order.add("next");
            } catch (InterruptedException e) {
                order.add("next interrupted");
            }
        });
        next.start();
        next.join(10_000);
        assertThat(order).as("no hold is left open").endsWith("next");
    }

    @Test
    void aSlotServesTheNextGlobalOfItsClassBeforeAWaitingLocalAndChargesItsServiceTime() throws Exception {
        Capacity capacity = Capacity.of(1, 1);
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        Thread local;
        try (dev.gyro.runtime.hook.TransactionGate.Slot chain = capacity.enterAhead()) {
            order.add("global-1");
            local = waiter(capacity, "local", false, order);
            long busyBefore = capacity.busyNanos();
            chain.serveNext();
            order.add("global-2");
            assertThat(local.isAlive()).as("the local still waits: the slot was never free").isTrue();
            assertThat(capacity.served()).as("each global is a transaction served").isEqualTo(2);
            assertThat(capacity.busyNanos()).as("counted when the slot is let go").isEqualTo(busyBefore);
            chain.close();
            assertThatThrownBy(chain::serveNext).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("let go");
        }
        local.join(10_000);
        assertThat(order).containsExactly("global-1", "global-2", "local");
        assertThat(capacity.served()).isEqualTo(3);
        assertThat(capacity.busyNanos()).as("both globals' service time, one after the other in one slot")
                .isGreaterThanOrEqualTo(2_000_000L);
        dev.gyro.runtime.hook.TransactionGate.Slot.NOTHING.serveNext(); // the runtime's own gate: nothing to do
    }
}
