package dev.gyro.emulation.wan;

import dev.gyro.runtime.hook.LinkDelay;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Each link's messages leave after its one-way delay, in the order given, from one scheduler thread. */
class WanLinksTest {

    static final Wan.Placement EIGHT = Wan.paper().place(8); // G J US B A G J US

    @Test
    void offIsTheSameNoOpEverywhereAndRunsOnTheCallersThread() {
        assertThat(WanLinks.of(0, Wan.OFF.place(3))).isSameAs(LinkDelay.NONE);
        Thread caller = Thread.currentThread();
        List<Thread> ranOn = new ArrayList<>();
        LinkDelay.NONE.send(1, () -> ranOn.add(Thread.currentThread()));
        LinkDelay.NONE.receive(2, () -> ranOn.add(Thread.currentThread()));
        assertThat(ranOn).containsExactly(caller, caller);
        assertThat(WanLinks.delayed(LinkDelay.NONE)).isZero();
    }

    @Test
    void messagesOfALinkLeaveAfterItsDelayInTheOrderGiven() throws Exception {
        // Instance 7 sits in US east: to instance 1 (Japan) 76.5 ms, to instance 0 (Germany) 46 ms.
        assertThat(EIGHT.siteOf(7)).isEqualTo(Site.US_EAST);
        int n = 200;
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        long[] handedOver = new long[n], ran = new long[n];
        CountDownLatch done = new CountDownLatch(n + 1);
        try (LinkDelay links = WanLinks.of(7, EIGHT)) {
            assertThat(links).isNotSameAs(LinkDelay.NONE);
            for (int i = 0; i < n; i++) {
                int m = i;
                handedOver[m] = System.nanoTime();
                links.send(1, () -> {
                    ran[m] = System.nanoTime();
                    order.add("J" + m);
                    done.countDown();
                });
            }
            links.send(0, () -> { // handed over last, but its link is shorter
                order.add("G");
                done.countDown();
            });
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(WanLinks.delayed(links)).isEqualTo(n + 1);
            assertThat(wanThreads(7)).as("one scheduler thread, not one per message").isEqualTo(1);
        }
        List<String> toJapan = new ArrayList<>(order);
        toJapan.remove("G");
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < n; i++) expected.add("J" + i);
        assertThat(toJapan).containsExactlyElementsOf(expected); // FIFO per link
        assertThat(order.get(0)).isEqualTo("G"); // 46 ms < 76.5 ms: the Germany message overtook them all
        long oneWay = EIGHT.oneWay(7, 1).toNanos();
        for (int i = 0; i < n; i++) assertThat(ran[i] - handedOver[i]).as("message " + i).isGreaterThanOrEqualTo(oneWay);
    }

    @Test
    void closingRunsWhatIsUnderWayAtOnceSoNobodyWaitsForever() throws Exception {
        CountDownLatch delivered = new CountDownLatch(1);
        LinkDelay links = WanLinks.of(0, EIGHT);
        links.receive(4, delivered::countDown); // Australia to Germany: 157 ms
        links.close();
        assertThat(delivered.getCount()).isZero();
        CountDownLatch after = new CountDownLatch(1);
        links.send(4, after::countDown);
        assertThat(after.getCount()).isZero();
    }

    static long wanThreads(int self) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().equals("gyro-" + self + "-wan")).count();
    }
}
