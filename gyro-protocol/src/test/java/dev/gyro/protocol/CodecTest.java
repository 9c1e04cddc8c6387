package dev.gyro.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The one binary encoding (Codec): everything valid round-trips exactly, and anything else (truncated,
 * corrupted, trailing bytes, absurd counts, bad UTF-8) fails with a {@link MalformedMessageException}, never with
 * another exception and never by allocating what a hostile count asks for.
 */
class CodecTest {

    // ---------------------------------------------------------------- round trips

    @Test
    void everyMessageKindRoundTrips() {
        List<Message> messages = List.of(
                new Message.Want(3),
                new Message.TokenAck(1, 0),
                new Message.TokenAck(2, Long.MAX_VALUE),
                new Message.TokenPass(0, new Token(0, List.of())),
                new Message.TokenPass(4, sampleToken()),
                new Message.UpdateAhead(2, sampleToken().updates().get(0)));
        for (Message m : messages) {
            assertThat(Codec.decodeMessage(Codec.encodeMessage(m))).isEqualTo(m);
        }
    }

    @Test
    void tokensUpdatesAndValuesRoundTrip() {
        Token token = sampleToken();
        assertThat(Codec.decodeToken(Codec.encodeToken(token))).isEqualTo(token);
        for (StateUpdate u : token.updates()) assertThat(Codec.decodeUpdate(Codec.encodeUpdate(u))).isEqualTo(u);
        List<Value> values = allKindsOfValues();
        assertThat(Codec.decodeValues(Codec.encodeValues(values))).isEqualTo(values);
        assertThat(Codec.decodeValues(Codec.encodeValues(List.of()))).isEmpty();
    }

    @Test
    void everyValueKindRoundTripsExactly() {
        for (Value v : allKindsOfValues()) {
            List<Value> back = Codec.decodeValues(Codec.encodeValues(List.of(v)));
            assertThat(back).as("round trip of %s", v).containsExactly(v);
            assertThat(back.get(0).getClass()).isEqualTo(v.getClass());
        }
        // -0.0 keeps its sign; a NaN stays a NaN
        Value.Real negZero = (Value.Real) Codec.decodeValues(Codec.encodeValues(List.of(new Value.Real(-0.0)))).get(0);
        assertThat(Double.doubleToRawLongBits(negZero.value())).isEqualTo(Double.doubleToRawLongBits(-0.0));
        Value.Real nan = (Value.Real) Codec.decodeValues(Codec.encodeValues(List.of(new Value.Real(Double.NaN)))).get(0);
        assertThat(nan.value()).isNaN();
    }

    @Test
    void updatesWithoutChangesRoundTripInsideATokenToo() {
        // The smallest valid update (no row changes) is 16 bytes; a token full of them must still decode.
        Token token = new Token(7, List.of(new StateUpdate(1, 0, List.of()), new StateUpdate(2, 1, List.of()),
                new StateUpdate(3, 2, List.of())));
        assertThat(Codec.decodeToken(Codec.encodeToken(token))).isEqualTo(token);
        Message pass = new Message.TokenPass(1, token);
        assertThat(Codec.decodeMessage(Codec.encodeMessage(pass))).isEqualTo(pass);
    }

    @Test
    void randomValidDataRoundTrips() {
        Random random = new Random(20240607L);
        for (int i = 0; i < 500; i++) {
            Token token = randomToken(random);
            assertThat(Codec.decodeToken(Codec.encodeToken(token))).isEqualTo(token);
            Message m = new Message.TokenPass(random.nextInt(8), token);
            assertThat(Codec.decodeMessage(Codec.encodeMessage(m))).isEqualTo(m);
        }
    }

    @Test
    void encodingIsStable() {
        // Tokens and outboxes are stored in the metadata tables: the bytes must not change between releases.
        byte[] bytes = Codec.encodeMessage(new Message.TokenAck(2, 5));
        assertThat(bytes).containsExactly(1, 2, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 5);
        assertThat(Codec.encodeMessage(new Message.Want(1))).containsExactly(1, 3, 0, 0, 0, 1);
        assertThat(Codec.encodeValues(List.of(Value.NULL, new Value.Int(1), new Value.Text("é"))))
                .containsExactly(1, 0, 0, 0, 3, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 3, 0, 0, 0, 2, 0xc3 - 256, 0xa9 - 256);
    }

    // ---------------------------------------------------------------- rejection

    @Test
    void nullAndEmptyInputAreRejected() {
        assertMalformed(null, Codec::decodeMessage);
        assertMalformed(new byte[0], Codec::decodeMessage);
        assertMalformed(new byte[0], Codec::decodeToken);
        assertMalformed(new byte[0], Codec::decodeUpdate);
        assertMalformed(new byte[0], Codec::decodeValues);
    }

    @Test
    void everyTruncationIsRejected() {
        byte[] full = Codec.encodeMessage(new Message.TokenPass(1, sampleToken()));
        for (int len = 0; len < full.length; len++) {
            byte[] cut = Arrays.copyOf(full, len);
            assertThatThrownBy(() -> Codec.decodeMessage(cut)).as("truncated to %d of %d bytes", len, full.length)
                    .isInstanceOf(MalformedMessageException.class);
        }
        byte[] values = Codec.encodeValues(allKindsOfValues());
        for (int len = 0; len < values.length; len++) assertMalformed(Arrays.copyOf(values, len), Codec::decodeValues);
    }

    @Test
    void trailingBytesAreRejected() {
        byte[] ack = Codec.encodeMessage(new Message.TokenAck(1, 9));
        assertThatThrownBy(() -> Codec.decodeMessage(Arrays.copyOf(ack, ack.length + 1)))
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("trailing");
        byte[] token = Codec.encodeToken(sampleToken());
        assertMalformed(Arrays.copyOf(token, token.length + 3), Codec::decodeToken);
    }

    @Test
    void unknownVersionKindAndTagsAreRejected() {
        byte[] want = Codec.encodeMessage(new Message.Want(1));
        byte[] badVersion = want.clone();
        badVersion[0] = 2;
        assertThatThrownBy(() -> Codec.decodeMessage(badVersion)).isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("version");
        byte[] badKind = want.clone();
        badKind[1] = 9;
        assertThatThrownBy(() -> Codec.decodeMessage(badKind)).isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("kind");
        byte[] value = Codec.encodeValues(List.of(new Value.Int(3)));
        value[5] = 42; // the tag
        assertThatThrownBy(() -> Codec.decodeValues(value)).isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("tag");
        byte[] update = Codec.encodeUpdate(sampleUpdate(1, 0));
        int kindAt = 1 + 8 + 4 + 4 + 4 + "kv".length();
        update[kindAt] = 7;
        assertThatThrownBy(() -> Codec.decodeUpdate(update)).isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("row change kind");
    }

    @Test
    void hugeAndNegativeCountsAreRejectedWithoutAllocating() {
        for (int count : new int[] {Integer.MAX_VALUE, Integer.MAX_VALUE / 2, 1 << 28, -1, Integer.MIN_VALUE}) {
            // a value list claiming `count` values
            ByteBuffer values = ByteBuffer.allocate(5).put((byte) 1).putInt(count);
            assertThatThrownBy(() -> Codec.decodeValues(values.array())).isInstanceOf(MalformedMessageException.class)
                    .hasMessageContaining("count");
            // a token claiming `count` updates
            ByteBuffer token = ByteBuffer.allocate(13).put((byte) 1).putLong(3).putInt(count);
            assertMalformed(token.array(), Codec::decodeToken);
            // a text value claiming `count` bytes
            ByteBuffer text = ByteBuffer.allocate(10).put((byte) 1).putInt(1).put((byte) 3).putInt(count);
            assertMalformed(text.array(), Codec::decodeValues);
            // a blob value claiming `count` bytes
            ByteBuffer blob = ByteBuffer.allocate(10).put((byte) 1).putInt(1).put((byte) 4).putInt(count);
            assertMalformed(blob.array(), Codec::decodeValues);
        }
    }

    @Test
    void invalidUtf8IsRejected() {
        byte[][] bad = {
                {(byte) 0xc3}, // truncated two-byte sequence
                {(byte) 0xff}, // never valid
                {(byte) 0xc0, (byte) 0x80}, // overlong NUL
                {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, // an encoded surrogate
                {'a', (byte) 0x80, 'b'}, // stray continuation byte
        };
        for (byte[] raw : bad) {
            ByteBuffer b = ByteBuffer.allocate(10 + raw.length).put((byte) 1).putInt(1).put((byte) 3)
                    .putInt(raw.length).put(raw);
            assertThatThrownBy(() -> Codec.decodeValues(b.array())).as("bytes %s", Arrays.toString(raw))
                    .isInstanceOf(MalformedMessageException.class).hasMessageContaining("UTF-8");
        }
    }

    @Test
    void structurallyInvalidContentIsRejected() {
        // A token whose updates are out of gsn order decodes to bytes the model refuses.
        byte[] a = Codec.encodeUpdate(sampleUpdate(2, 0));
        byte[] b = Codec.encodeUpdate(sampleUpdate(1, 1));
        ByteBuffer token = ByteBuffer.allocate(1 + 8 + 4 + a.length - 1 + b.length - 1)
                .put((byte) 1).putLong(4).putInt(2).put(a, 1, a.length - 1).put(b, 1, b.length - 1);
        assertThatThrownBy(() -> Codec.decodeToken(token.array())).isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("gsn order");
        // An update with gsn 0.
        byte[] zero = Codec.encodeUpdate(sampleUpdate(1, 0));
        ByteBuffer.wrap(zero).putLong(1, 0);
        assertThatThrownBy(() -> Codec.decodeUpdate(zero)).isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("gsn must be positive");
        // A negative hop.
        byte[] ack = Codec.encodeToken(new Token(1, List.of()));
        ByteBuffer.wrap(ack).putLong(1, -5);
        assertMalformed(ack, Codec::decodeToken);
    }

    /**
     * Seeded fuzzing: flip, insert, delete and overwrite bytes of valid encodings. Every outcome is either a
     * successful decode (of something that re-encodes to exactly the bytes given) or a MalformedMessageException.
     */
    @Test
    void fuzzedBytesDecodeOrFailCleanly() {
        Random random = new Random(0x6779726fL);
        int decoded = 0, rejected = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] valid = switch (i % 4) {
                case 0 -> Codec.encodeMessage(new Message.TokenPass(random.nextInt(5), randomToken(random)));
                case 1 -> Codec.encodeToken(randomToken(random));
                case 2 -> Codec.encodeUpdate(randomUpdate(random, 1 + random.nextInt(100), random.nextInt(5)));
                default -> Codec.encodeValues(randomValues(random));
            };
            byte[] bytes = mutate(random, valid);
            try {
                Object value = decoderFor(i % 4).apply(bytes);
                // a successful decode yields a valid object that survives its own round trip
                assertThat(decoderFor(i % 4).apply(encoderFor(i % 4).apply(value))).as("iteration %d", i)
                        .isEqualTo(value);
                decoded++;
            } catch (MalformedMessageException expected) {
                rejected++;
            } catch (RuntimeException | OutOfMemoryError e) {
                fail("iteration " + i + ": decoding " + Arrays.toString(bytes) + " threw " + e, e);
            }
        }
        assertThat(rejected).isGreaterThan(10_000);
        assertThat(decoded).isGreaterThan(0);
    }

    @Test
    void randomGarbageIsRejected() {
        Random random = new Random(42);
        for (int i = 0; i < 5_000; i++) {
            byte[] bytes = new byte[random.nextInt(64)];
            random.nextBytes(bytes);
            if (bytes.length > 0 && random.nextBoolean()) bytes[0] = 1; // get past the version byte half the time
            for (Function<byte[], ?> decoder : List.<Function<byte[], ?>>of(Codec::decodeMessage, Codec::decodeToken,
                    Codec::decodeUpdate, Codec::decodeValues)) {
                try {
                    decoder.apply(bytes);
                } catch (MalformedMessageException expected) {
                    // fine
                } catch (RuntimeException e) {
                    fail("garbage " + Arrays.toString(bytes) + " threw " + e, e);
                }
            }
        }
    }

    // ---------------------------------------------------------------- helpers

    private static Function<byte[], Object> decoderFor(int kind) {
        return switch (kind) {
            case 0 -> Codec::decodeMessage;
            case 1 -> Codec::decodeToken;
            case 2 -> Codec::decodeUpdate;
            default -> Codec::decodeValues;
        };
    }

    @SuppressWarnings("unchecked")
    private static Function<Object, byte[]> encoderFor(int kind) {
        return switch (kind) {
            case 0 -> o -> Codec.encodeMessage((Message) o);
            case 1 -> o -> Codec.encodeToken((Token) o);
            case 2 -> o -> Codec.encodeUpdate((StateUpdate) o);
            default -> o -> Codec.encodeValues((List<Value>) o);
        };
    }

    private static void assertMalformed(byte[] bytes, Function<byte[], ?> decoder) {
        assertThatThrownBy(() -> decoder.apply(bytes)).isInstanceOf(MalformedMessageException.class);
    }

    private static byte[] mutate(Random random, byte[] valid) {
        byte[] b = valid.clone();
        int edits = 1 + random.nextInt(3);
        for (int e = 0; e < edits; e++) {
            switch (random.nextInt(6)) {
                case 0 -> { if (b.length > 0) b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8)); }
                case 1 -> { if (b.length > 0) b[random.nextInt(b.length)] = (byte) random.nextInt(256); }
                case 2 -> b = Arrays.copyOf(b, random.nextInt(b.length + 1)); // truncate
                case 3 -> { // insert a byte
                    int at = random.nextInt(b.length + 1);
                    byte[] c = new byte[b.length + 1];
                    System.arraycopy(b, 0, c, 0, at);
                    c[at] = (byte) random.nextInt(256);
                    System.arraycopy(b, at, c, at + 1, b.length - at);
                    b = c;
                }
                case 4 -> { // delete a byte
                    if (b.length > 0) {
                        int at = random.nextInt(b.length);
                        byte[] c = new byte[b.length - 1];
                        System.arraycopy(b, 0, c, 0, at);
                        System.arraycopy(b, at + 1, c, at, b.length - at - 1);
                        b = c;
                    }
                }
                default -> { // overwrite four bytes with a huge or negative count
                    if (b.length >= 4) {
                        int at = random.nextInt(b.length - 3);
                        int v = random.nextBoolean() ? Integer.MAX_VALUE - random.nextInt(10) : -1 - random.nextInt(10);
                        ByteBuffer.wrap(b).putInt(at, v);
                    }
                }
            }
        }
        return b;
    }

    static Token sampleToken() {
        return new Token(12, List.of(sampleUpdate(3, 1), sampleUpdate(4, 2),
                new StateUpdate(5, 0, List.of(
                        new RowChange("stock", RowChange.Kind.DELETE, List.of("item", "shop"),
                                List.of(new Value.Int(7), new Value.Text("bärlin")), List.of("item", "shop")),
                        new RowChange("orders", RowChange.Kind.UPSERT, List.of("id", "note", "price", "photo", "gone"),
                                List.of(new Value.Int(-1), new Value.Text("𝄞 and ✓"), new Value.Real(2.5),
                                        new Value.Blob(new byte[] {0, -1, 127}), Value.NULL),
                                List.of("id")),
                        new RowChange("history", RowChange.Kind.APPEND, List.of("who", "what"),
                                List.of(new Value.Int(7), new Value.Text("paid")), List.of())))));
    }

    static StateUpdate sampleUpdate(long gsn, int origin) {
        return new StateUpdate(gsn, origin, List.of(new RowChange("kv", RowChange.Kind.UPSERT, List.of("k", "v"),
                List.of(new Value.Int(gsn), new Value.Int(gsn * 10)), List.of("k"))));
    }

    private static List<Value> allKindsOfValues() {
        return List.of(Value.NULL, new Value.Int(0), new Value.Int(Long.MIN_VALUE), new Value.Int(Long.MAX_VALUE),
                new Value.Real(0.0), new Value.Real(-1.5e300), new Value.Real(Double.POSITIVE_INFINITY),
                new Value.Real(Double.MIN_VALUE), new Value.Text(""), new Value.Text("plain"),
                new Value.Text("ünïcødé 日本 🎉"), new Value.Text("nul\u0000inside"),
                new Value.Blob(new byte[0]), new Value.Blob(new byte[] {1, 2, 3, (byte) 0xff}));
    }

    private static Token randomToken(Random random) {
        int n = random.nextInt(5);
        List<StateUpdate> updates = new ArrayList<>();
        long gsn = random.nextInt(1000);
        for (int i = 0; i < n; i++) {
            gsn += 1 + random.nextInt(3);
            updates.add(randomUpdate(random, gsn, random.nextInt(5)));
        }
        return new Token(random.nextInt(10_000), updates);
    }

    private static StateUpdate randomUpdate(Random random, long gsn, int origin) {
        int n = random.nextInt(4);
        List<RowChange> changes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int cols = 1 + random.nextInt(3);
            List<String> columns = new ArrayList<>();
            List<Value> values = new ArrayList<>();
            for (int c = 0; c < cols; c++) {
                columns.add(randomString(random, 1 + random.nextInt(6)) + c);
                values.add(randomValue(random));
            }
            RowChange.Kind kind = random.nextBoolean() ? RowChange.Kind.UPSERT : RowChange.Kind.DELETE;
            changes.add(new RowChange("t" + randomString(random, random.nextInt(5)), kind, columns, values,
                    columns.subList(0, 1 + random.nextInt(cols))));
        }
        return new StateUpdate(gsn, origin, changes);
    }

    private static List<Value> randomValues(Random random) {
        List<Value> values = new ArrayList<>();
        int n = random.nextInt(6);
        for (int i = 0; i < n; i++) values.add(randomValue(random));
        return values;
    }

    private static Value randomValue(Random random) {
        return switch (random.nextInt(5)) {
            case 0 -> Value.NULL;
            case 1 -> new Value.Int(random.nextLong());
            case 2 -> new Value.Real(random.nextGaussian() * 1e6);
            case 3 -> new Value.Text(randomString(random, random.nextInt(8)));
            default -> {
                byte[] b = new byte[random.nextInt(8)];
                random.nextBytes(b);
                yield new Value.Blob(b);
            }
        };
    }

    /** Valid strings only: ASCII, two- and three-byte characters and supplementary code points (never lone surrogates). */
    private static String randomString(Random random, int length) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < length; i++) {
            switch (random.nextInt(4)) {
                case 0 -> s.append((char) ('a' + random.nextInt(26)));
                case 1 -> s.append((char) (0xa0 + random.nextInt(0x700)));
                case 2 -> s.append((char) (0x3040 + random.nextInt(0x100)));
                default -> s.appendCodePoint(0x1f300 + random.nextInt(0x200));
            }
        }
        String out = s.toString();
        assertThat(new String(out.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8)).isEqualTo(out);
        return out;
    }
}
