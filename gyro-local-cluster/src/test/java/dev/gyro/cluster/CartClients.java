package dev.gyro.cluster;

import dev.gyro.apps.store.OnlineStore;
import dev.gyro.client.GyroClient;
import dev.gyro.wire.Reply;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Clients of the online store for the tests that change a running cluster under load: each creates carts, adds two
 * items (spread over the catalogue, so that orders do not empty the stock of a few) and orders. What they saw is kept
 * for the checks: the lines of each cart they saw filled, the orders that succeeded, every failed request in words (an
 * out-of-stock abort is none: its cart is left unordered).
 */
final class CartClients implements AutoCloseable {

    final AtomicLong ordersOk = new AtomicLong();
    final Map<Long, Integer> filled = new ConcurrentHashMap<>();
    final List<String> errors = Collections.synchronizedList(new ArrayList<>());
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();

    /** Starts {@code n} clients on {@code client}. */
    CartClients(GyroClient client, int n) {
        for (int t = 0; t < n; t++) {
            int id = t;
            Thread th = new Thread(() -> {
                for (long seq = 1; !stop.get(); seq++) {
                    long cart = (id + 1L) * 1_000_000 + seq;
                    int lines = 0;
                    Reply r = client.call("createCart", cart);
                    for (long k = 0; r.ok() && k < 2; k++) {
                        long item = 1 + Math.floorMod(seq * 31 + id * 7 + k * 13, OnlineStore.ITEMS_PER_SCALE - 1);
                        r = client.call("addItem", cart, item, 1);
                        if (r.ok()) lines++;
                    }
                    if (r.status() == Reply.Status.ABORTED) continue; // out of stock: the cart is left unordered
                    if (!r.ok()) {
                        errors.add(r.status() + ": " + r.message());
                        continue;
                    }
                    filled.put(cart, lines);
                    Reply o = client.call("order", cart);
                    if (o.ok()) ordersOk.incrementAndGet();
                    else if (o.status() != Reply.Status.ABORTED) errors.add(o.status() + ": " + o.message());
                }
            }, "cart-client-" + t);
            threads.add(th);
            th.start();
        }
    }

    /** Waits until {@code more} orders beyond those seen so far have succeeded. */
    void awaitOrders(String what, int more) throws InterruptedException {
        long before = ordersOk.get();
        Await.until(what, () -> ordersOk.get() >= before + more);
    }

    /** Stops the clients and waits for them. */
    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        for (Thread th : threads) th.join(120_000);
    }
}
