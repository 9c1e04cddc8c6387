package dev.gyro.cli;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.client.GyroClient;
import dev.gyro.wire.Reply;
import dev.gyro.wire.Request;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The online store's clients for the tests that kill or freeze replicas: each thread creates a cart, adds two items and
 * orders it (a global request), again and again until {@link #end}. Counts the orders acknowledged and those answered
 * UNAVAILABLE (their outcome may be unknown), keeps the acknowledged carts, and notes when each group first
 * acknowledged an order sent after a moment ({@link #since}).
 */
final class OrderLoad {
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    final AtomicLong ordersOk = new AtomicLong(), uncertain = new AtomicLong();
    final Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
    private final List<Thread> threads = new ArrayList<>();
    private volatile long since = Long.MAX_VALUE; // System.nanoTime()
    /** Per group: when it first acknowledged an order sent after {@link #since}, 0 before. */
    private final AtomicLongArray firstAck;
    private final GyroClient client;
    /** What the last order that did not succeed was answered: the first thing to read when the orders stop. */
    private final AtomicReference<String> lastRefusal = new AtomicReference<>();

    OrderLoad(GyroClient client, int clients, int groups) {
        firstAck = new AtomicLongArray(groups);
        this.client = client;
        for (int t = 0; t < clients; t++) {
            int id = t;
            Thread th = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(id);
                try {
                    for (long seq = 1; !stop.get(); seq++) {
                        long cart = (id + 1L) * 1_000_000 + seq;
                        if (!client.call("createCart", cart).ok()) continue;
                        for (int l = 0; l < 2; l++)
                            // the whole catalogue: 100 items' stock (50-100 units each) ran out after some 2,800 orders, and every
                            // later order was refused as empty
                            client.call("addItem", cart, 1L + random.nextInt(OnlineStore.ITEMS_PER_SCALE), 1 + random.nextInt(2));
                        Request order = Request.of("order", cart);
                        int group = client.routing().decide("order", order.parameters(), -1).owner();
                        long sent = System.nanoTime();
                        Reply r = client.call(order);
                        if (r.ok()) {
                            long acked = System.nanoTime();
                            acknowledged.add(cart);
                            ordersOk.incrementAndGet();
                            if (sent > since) firstAck.compareAndSet(group, 0, acked);
                        } else {
                            if (r.status() == Reply.Status.UNAVAILABLE) uncertain.incrementAndGet();
                            lastRefusal.set(r.status() + ": " + r.message());
                        }
                    }
                } catch (RuntimeException | Error e) {
                    failure.compareAndSet(null, e);
                    stop.set(true);
                }
            }, "orders-" + t);
            threads.add(th);
            th.start();
        }
    }

    /** From now on, {@link #awaitEveryGroup} counts orders sent after {@code nanos} ({@link System#nanoTime()}). */
    void since(long nanos) {
        for (int g = 0; g < firstAck.length(); g++) firstAck.set(g, 0);
        since = nanos;
    }

    /**
     * Until every group acknowledged an order sent after {@link #since}, or {@code limitNanos}: the last of those
     * acknowledgements ({@link System#nanoTime()}), or -1. Fails at once when a client thread failed.
     */
    long awaitEveryGroup(long limitNanos) throws InterruptedException {
        while (System.nanoTime() < limitNanos) {
            if (failure.get() != null) throw new AssertionError("a client failed", failure.get());
            long last = 0;
            for (int g = 0; g < firstAck.length() && last >= 0; g++)
                last = firstAck.get(g) == 0 ? -1 : Math.max(last, firstAck.get(g));
            if (last > 0) return last;
            Thread.sleep(5); // looks at what the clients saw: the replies are the events
        }
        return -1;
    }

    /** Until {@code n} orders succeeded; fails at once when a client thread failed; the deadline only ends a hang. */
    void awaitOrders(long n) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(3);
        while (ordersOk.get() < n) {
            if (failure.get() != null) throw new AssertionError("a client failed", failure.get());
            if (System.nanoTime() > deadline)
                throw new AssertionError("waited 3 minutes for " + n + " orders; " + ordersOk.get() + " succeeded, "
                        + uncertain.get() + " answered UNAVAILABLE so far, the last order not to succeed answered "
                        + lastRefusal.get() + "; the groups say: " + statuses());
            Thread.sleep(5);
        }
    }

    /** Each group's status document as its leader gives it, or why none did. */
    private String statuses() {
        StringBuilder b = new StringBuilder();
        for (int g = 0; g < firstAck.length(); g++) {
            String st;
            try {
                st = client.status(g);
            } catch (RuntimeException e) {
                st = e.toString();
            }
            b.append("\n  group ").append(g).append(": ").append(st.length() > 1500 ? st.substring(0, 1500) + " ..." : st);
        }
        return b.toString();
    }

    /** Stops the clients and waits for them. */
    void end() throws InterruptedException {
        stop.set(true);
        for (Thread th : threads) th.join();
    }
}
