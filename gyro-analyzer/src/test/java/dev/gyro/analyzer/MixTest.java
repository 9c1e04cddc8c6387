package dev.gyro.analyzer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MixTest {

    @Test
    void readsNamesAndWeightsInEveryAcceptedForm(@TempDir Path dir) throws Exception {
        Path file = Fixtures.write(dir, "mix.txt", """
                # the shopping mix
                createCart 10

                addItem = 60%   # most requests
                order: 30.5
                """);
        Mix mix = Mix.parse(file);
        assertThat(mix.weights()).containsExactly(
                java.util.Map.entry("createCart", 10.0), java.util.Map.entry("addItem", 60.0),
                java.util.Map.entry("order", 30.5));
    }

    @Test
    void aMalformedLineIsReportedWithItsFileAndLine(@TempDir Path dir) {
        Path file = Fixtures.write(dir, "mix.txt", "createCart 10\naddItem lots\n");
        assertThatThrownBy(() -> Mix.parse(file)).isInstanceOf(Mix.MixException.class)
                .hasMessage(file + ":2: expected \"TRANSACTION WEIGHT\" (a name and a non-negative number, "
                        + "optionally with %), got \"addItem lots\"");
    }

    @Test
    void negativeWeightsDuplicatesAndEmptyFilesAreRejected(@TempDir Path dir) {
        assertThatThrownBy(() -> Mix.parse(Fixtures.write(dir, "a.txt", "order -1\n"))).hasMessageContaining("a.txt:1:");
        assertThatThrownBy(() -> Mix.parse(Fixtures.write(dir, "b.txt", "order 1\norder 2\n")))
                .hasMessageContaining("b.txt:2: transaction order is listed twice");
        assertThatThrownBy(() -> Mix.parse(Fixtures.write(dir, "c.txt", "# nothing\n"))).hasMessageContaining("lists no transaction");
        assertThatThrownBy(() -> Mix.parse(dir.resolve("missing.txt"))).hasMessageContaining("cannot read mix file");
    }
}
