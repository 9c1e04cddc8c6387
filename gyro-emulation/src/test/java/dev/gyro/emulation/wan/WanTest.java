package dev.gyro.emulation.wan;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static dev.gyro.emulation.wan.Site.AUSTRALIA;
import static dev.gyro.emulation.wan.Site.BRAZIL;
import static dev.gyro.emulation.wan.Site.GERMANY;
import static dev.gyro.emulation.wan.Site.JAPAN;
import static dev.gyro.emulation.wan.Site.US_EAST;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The paper's Table II, its sites in order, and which instance a client at each site uses (Section VII-A). */
class WanTest {

    final Wan wan = Wan.paper();

    @Test
    void roundTripsAreTableII() {
        assertThat(wan.roundTripMillis(GERMANY, JAPAN)).isEqualTo(253);
        assertThat(wan.roundTripMillis(GERMANY, US_EAST)).isEqualTo(92);
        assertThat(wan.roundTripMillis(GERMANY, BRAZIL)).isEqualTo(193);
        assertThat(wan.roundTripMillis(GERMANY, AUSTRALIA)).isEqualTo(314);
        assertThat(wan.roundTripMillis(JAPAN, US_EAST)).isEqualTo(153);
        assertThat(wan.roundTripMillis(JAPAN, BRAZIL)).isEqualTo(282);
        assertThat(wan.roundTripMillis(JAPAN, AUSTRALIA)).isEqualTo(188);
        assertThat(wan.roundTripMillis(US_EAST, BRAZIL)).isEqualTo(145);
        assertThat(wan.roundTripMillis(US_EAST, AUSTRALIA)).isEqualTo(229);
        assertThat(wan.roundTripMillis(BRAZIL, AUSTRALIA)).isEqualTo(322);
    }

    @Test
    void theMatrixIsSymmetricAndEverySiteIsClosestToItself() {
        for (Site a : Site.values()) {
            assertThat(wan.roundTripMillis(a, a)).isEqualTo(Wan.PAPER_INTRA_SITE_ROUND_TRIP_MILLIS);
            for (Site b : Site.values()) {
                assertThat(wan.roundTripMillis(a, b)).as(a + "-" + b).isEqualTo(wan.roundTripMillis(b, a));
                if (a != b) assertThat(wan.roundTripMillis(a, b)).isGreaterThan(wan.roundTripMillis(a, a));
            }
        }
    }

    @Test
    void aMessageTakesHalfTheRoundTrip() {
        assertThat(wan.oneWay(GERMANY, JAPAN)).isEqualTo(Duration.ofMillis(126).plusNanos(500_000));
        assertThat(wan.oneWay(GERMANY, US_EAST)).isEqualTo(Duration.ofMillis(46));
        assertThat(wan.oneWay(BRAZIL, BRAZIL)).isEqualTo(Duration.ofMillis(10));
        assertThat(wan.withIntraSiteRoundTripMillis(0).oneWay(BRAZIL, BRAZIL)).isZero();
        assertThat(wan.withIntraSiteRoundTripMillis(0).oneWay(BRAZIL, JAPAN)).isEqualTo(Duration.ofMillis(141));
    }

    @Test
    void offDelaysNothing() {
        assertThat(Wan.OFF.emulated()).isFalse();
        for (Site a : Site.values())
            for (Site b : Site.values()) assertThat(Wan.OFF.oneWay(a, b)).isZero();
        assertThat(Wan.OFF.place(3).tokenRound()).isZero();
        assertThatThrownBy(() -> Wan.OFF.withIntraSiteRoundTripMillis(20)).hasMessageContaining("WAN emulation is off");
        assertThatThrownBy(() -> wan.withIntraSiteRoundTripMillis(-1)).hasMessageContaining("must not be negative");
    }

    @Test
    void instancesTakeTheSitesInThePapersOrderThenStartAgain() {
        assertThat(wan.place(3).sites()).containsExactly(GERMANY, JAPAN, US_EAST);
        assertThat(wan.place(5).sites()).containsExactly(GERMANY, JAPAN, US_EAST, BRAZIL, AUSTRALIA);
        assertThat(wan.place(7).sites()).containsExactly(GERMANY, JAPAN, US_EAST, BRAZIL, AUSTRALIA, GERMANY, JAPAN);
        // two instances at one site are the intra-site latency apart; an instance is no distance from itself
        assertThat(wan.place(6).oneWay(0, 5)).isEqualTo(Duration.ofMillis(10));
        assertThat(wan.place(6).oneWay(5, 5)).isZero();
        assertThat(Site.byAbbreviation("us")).isEqualTo(US_EAST);
        assertThatThrownBy(() -> Site.byAbbreviation("F")).hasMessageContaining("no site is abbreviated 'F'");
        assertThatThrownBy(() -> wan.place(0)).hasMessageContaining("at least one instance");
        assertThatThrownBy(() -> wan.place(3).siteOf(3)).hasMessageContaining("instance 3 is not one of the 3");
    }

    @Test
    void aTokenRoundOverGermanyJapanUsIsHalfTheirThreeRoundTrips() {
        // G -> J -> US -> G: (253 + 153 + 92) / 2
        assertThat(wan.place(3).tokenRound()).isEqualTo(Duration.ofMillis(249));
        assertThat(wan.place(1).tokenRound()).isZero();
    }

    @Test
    void clientsGoRoundTheFiveSites() {
        for (int k = 0; k < 12; k++) assertThat(Wan.Placement.clientSite(k)).isEqualTo(Site.values()[k % 5]);
    }

    @Test
    void everyClientUsesTheNearestInstanceByTableII() {
        Wan.Placement three = wan.place(3); // G, J, US
        assertThat(three.nearestInstance(GERMANY)).isZero();
        assertThat(three.nearestInstance(JAPAN)).isEqualTo(1);
        assertThat(three.nearestInstance(US_EAST)).isEqualTo(2);
        assertThat(three.nearestInstance(BRAZIL)).isEqualTo(2); // US 145 < G 193 < J 282
        assertThat(three.nearestInstance(AUSTRALIA)).isEqualTo(1); // J 188 < US 229 < G 314

        Wan.Placement two = wan.place(2); // G, J
        assertThat(two.nearestInstance(US_EAST)).isZero(); // G 92 < J 153
        assertThat(two.nearestInstance(BRAZIL)).isZero(); // G 193 < J 282
        assertThat(two.nearestInstance(AUSTRALIA)).isEqualTo(1); // J 188 < G 314

        Wan.Placement four = wan.place(4); // G, J, US, B
        assertThat(four.nearestInstance(AUSTRALIA)).isEqualTo(1); // J 188 < US 229 < G 314 < B 322
        for (Site s : Site.values()) assertThat(wan.place(1).nearestInstance(s)).isZero();
        for (Site s : Site.values()) assertThat(wan.place(5).nearestInstance(s)).isEqualTo(s.ordinal());
    }

    @Test
    void theOwnSiteWinsWhateverTheIntraSiteLatency() {
        Wan slowInside = wan.withIntraSiteRoundTripMillis(500);
        assertThat(slowInside.place(3).nearestInstance(US_EAST)).isEqualTo(2);
    }

    @Test
    void sessionsOfASiteTakeItsInstancesInTurn() {
        Wan.Placement six = wan.place(6); // G, J, US, B, A, G
        assertThat(six.nearestInstances(GERMANY)).containsExactly(0, 5);
        assertThat(List.of(six.entryInstance(0), six.entryInstance(5), six.entryInstance(10), six.entryInstance(15)))
                .containsExactly(0, 5, 0, 5);
        assertThat(six.entryInstance(1)).isEqualTo(1);
        Wan.Placement three = wan.place(3);
        assertThat(List.of(three.entryInstance(0), three.entryInstance(1), three.entryInstance(2),
                three.entryInstance(3), three.entryInstance(4))).containsExactly(0, 1, 2, 2, 1);
        assertThat(three.clientOneWay(BRAZIL, 2)).isEqualTo(Duration.ofMillis(72).plusNanos(500_000));
        assertThat(three.clientOneWay(GERMANY, 0)).isEqualTo(Duration.ofMillis(10));
    }
}
