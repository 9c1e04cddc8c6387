package dev.gyro.runtime;

import dev.gyro.app.Transaction;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.app.TxContext;
import dev.gyro.protocol.Value;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The arguments a request was checked with are the ones its first attempt runs on (converted once, not again), and a
 * later attempt gets them afresh: what an attempt did to a {@code byte[]} argument does not leak into the next.
 */
class ArgumentsTest {

    /** Records the bytes it was given, then overwrites them. */
    public static final class Scribble implements Transaction {
        final List<byte[]> seen = new ArrayList<>();

        public int run(TxContext ctx, byte[] data, long n) {
            seen.add(data);
            byte[] copy = data.clone();
            data[0] = 99;
            return copy[0] + (int) n;
        }
    }

    @Test
    void theFirstAttemptRunsOnTheCheckedArgumentsALaterOneOnFreshOnes() throws Exception {
        Scribble tx = new Scribble();
        TransactionCatalog.Entry entry = new TransactionCatalog(List.of(tx)).get("scribble");
        List<Value> values = List.of(new Value.Blob(new byte[] {1}), new Value.Int(10));
        Object[] checked = entry.arguments(null, values);
        Arguments arguments = new Arguments(checked);

        assertThat(arguments.invoke(entry, null, values)).isEqualTo(11);
        assertThat(tx.seen.get(0)).as("the checked argument itself: not converted again").isSameAs(checked[1]);
        assertThat(arguments.invoke(entry, null, values)).as("the retry sees the request's bytes, not the scribble")
                .isEqualTo(11);
        assertThat(tx.seen.get(1)).isNotSameAs(checked[1]);
        assertThat(new Arguments(Arguments.NONE).invoke(entry, null, values)).isEqualTo(11);
    }
}
