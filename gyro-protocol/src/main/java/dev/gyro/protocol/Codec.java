package dev.gyro.protocol;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The one binary encoding of Gyro's data, used on the wire between instances and for the token and outbox in
 * the metadata tables. Decoding checks every length against the bytes that remain and every tag against the
 * known ones, so a truncated, corrupted or hostile message fails with a {@link MalformedMessageException}
 * that says what was wrong, before anything is applied.
 */
public final class Codec {

    private static final byte VERSION = 1;
    private static final byte MSG_TOKEN = 1, MSG_ACK = 2, MSG_WANT = 3, MSG_AHEAD = 4, MSG_APPLIED = 5;
    private static final byte V_NULL = 0, V_INT = 1, V_REAL = 2, V_TEXT = 3, V_BLOB = 4;

    private Codec() {}

    // ---------------------------------------------------------------- public entry points

    public static byte[] encodeMessage(Message m) {
        return write(out -> {
            out.writeByte(VERSION);
            if (m instanceof Message.TokenPass t) {
                out.writeByte(MSG_TOKEN);
                out.writeInt(t.from());
                writeToken(out, t.token());
            } else if (m instanceof Message.TokenAck a) {
                out.writeByte(MSG_ACK);
                out.writeInt(a.from());
                out.writeLong(a.hop());
            } else if (m instanceof Message.UpdateAhead a) {
                out.writeByte(MSG_AHEAD);
                out.writeInt(a.from());
                writeUpdate(out, a.update());
            } else if (m instanceof Message.AppliedAhead a) {
                out.writeByte(MSG_APPLIED);
                out.writeInt(a.from());
                out.writeLong(a.gsn());
            } else {
                out.writeByte(MSG_WANT);
                out.writeInt(m.from());
            }
        });
    }

    public static Message decodeMessage(byte[] bytes) {
        return read(bytes, "message", in -> {
            version(in);
            byte kind = in.get();
            int from = in.getInt();
            return switch (kind) {
                case MSG_TOKEN -> new Message.TokenPass(from, readToken(in));
                case MSG_ACK -> new Message.TokenAck(from, in.getLong());
                case MSG_WANT -> new Message.Want(from);
                case MSG_AHEAD -> new Message.UpdateAhead(from, readUpdate(in));
                case MSG_APPLIED -> new Message.AppliedAhead(from, in.getLong());
                default -> throw new MalformedMessageException("unknown message kind " + kind);
            };
        });
    }

    public static byte[] encodeToken(Token token) {
        return write(out -> {
            out.writeByte(VERSION);
            writeToken(out, token);
        });
    }

    public static Token decodeToken(byte[] bytes) {
        return read(bytes, "token", in -> {
            version(in);
            return readToken(in);
        });
    }

    public static byte[] encodeUpdate(StateUpdate update) {
        return write(out -> {
            out.writeByte(VERSION);
            writeUpdate(out, update);
        });
    }

    public static StateUpdate decodeUpdate(byte[] bytes) {
        return read(bytes, "state update", in -> {
            version(in);
            return readUpdate(in);
        });
    }

    /**
     * Row changes under a number and an origin, in a state update's encoding but not one: a replicated group's log entry
     * (its request number and leader replica), whose rows may hold a ring change that a state update would check against
     * its origin.
     */
    public record Rows(long number, int origin, List<RowChange> changes) {}

    public static byte[] encodeRows(Rows rows) {
        return write(out -> {
            out.writeByte(VERSION);
            writeRows(out, rows.number(), rows.origin(), rows.changes());
        });
    }

    public static Rows decodeRows(byte[] bytes) {
        return read(bytes, "rows", in -> {
            version(in);
            return readRows(in);
        });
    }

    public static byte[] encodeValues(List<Value> values) {
        return write(out -> {
            out.writeByte(VERSION);
            writeValues(out, values);
        });
    }

    public static List<Value> decodeValues(byte[] bytes) {
        return read(bytes, "value list", in -> {
            version(in);
            return readValues(in);
        });
    }

    // ---------------------------------------------------------------- writers

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private static byte[] write(Writer w) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
            DataOutputStream out = new DataOutputStream(bytes);
            w.write(out);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // cannot happen on a byte array
        }
    }

    private static void writeToken(DataOutputStream out, Token t) throws IOException {
        out.writeLong(t.hop());
        out.writeInt(t.updates().size());
        for (StateUpdate u : t.updates()) writeUpdate(out, u);
    }

    private static void writeUpdate(DataOutputStream out, StateUpdate u) throws IOException {
        writeRows(out, u.gsn(), u.origin(), u.changes());
    }

    private static void writeRows(DataOutputStream out, long number, int origin, List<RowChange> changes)
            throws IOException {
        out.writeLong(number);
        out.writeInt(origin);
        out.writeInt(changes.size());
        for (RowChange c : changes) {
            writeString(out, c.table());
            out.writeByte(c.kind().ordinal());
            out.writeInt(c.columns().size());
            for (String col : c.columns()) writeString(out, col);
            writeValues(out, c.values());
            out.writeInt(c.keyColumns().size());
            for (String k : c.keyColumns()) writeString(out, k);
        }
    }

    private static void writeValues(DataOutputStream out, List<Value> values) throws IOException {
        out.writeInt(values.size());
        for (Value v : values) {
            if (v instanceof Value.Int i) {
                out.writeByte(V_INT);
                out.writeLong(i.value());
            } else if (v instanceof Value.Real r) {
                out.writeByte(V_REAL);
                out.writeDouble(r.value());
            } else if (v instanceof Value.Text t) {
                out.writeByte(V_TEXT);
                writeString(out, t.value());
            } else if (v instanceof Value.Blob b) {
                out.writeByte(V_BLOB);
                byte[] raw = (byte[]) b.toJava();
                out.writeInt(raw.length);
                out.write(raw);
            } else {
                out.writeByte(V_NULL);
            }
        }
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] raw = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(raw.length);
        out.write(raw);
    }

    // ---------------------------------------------------------------- readers

    private interface Reader<T> {
        T read(ByteBuffer in);
    }

    private static <T> T read(byte[] bytes, String what, Reader<T> r) {
        if (bytes == null) throw new MalformedMessageException(what + ": no bytes");
        ByteBuffer in = ByteBuffer.wrap(bytes);
        T result;
        try {
            result = r.read(in);
        } catch (BufferUnderflowException e) {
            throw new MalformedMessageException(what + ": truncated after " + in.position() + " of " + bytes.length
                    + " bytes");
        } catch (IllegalArgumentException e) {
            throw new MalformedMessageException(what + ": " + e.getMessage(), e);
        }
        if (in.hasRemaining())
            throw new MalformedMessageException(what + ": " + in.remaining() + " unexpected trailing bytes");
        return result;
    }

    private static void version(ByteBuffer in) {
        byte v = in.get();
        if (v != VERSION) throw new MalformedMessageException("unsupported encoding version " + v);
    }

    private static Token readToken(ByteBuffer in) {
        long hop = in.getLong();
        int n = count(in, 16); // an update is at least gsn (8) + origin (4) + change count (4) bytes
        List<StateUpdate> updates = new ArrayList<>(n);
        for (int i = 0; i < n; i++) updates.add(readUpdate(in));
        return new Token(hop, updates);
    }

    private static StateUpdate readUpdate(ByteBuffer in) {
        Rows r = readRows(in);
        return new StateUpdate(r.number(), r.origin(), r.changes());
    }

    private static Rows readRows(ByteBuffer in) {
        long gsn = in.getLong();
        int origin = in.getInt();
        int n = count(in, 13);
        List<RowChange> changes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String table = readString(in);
            byte kind = in.get();
            if (kind < 0 || kind >= RowChange.Kind.values().length)
                throw new MalformedMessageException("unknown row change kind " + kind);
            int nc = count(in, 4);
            List<String> columns = new ArrayList<>(nc);
            for (int c = 0; c < nc; c++) columns.add(readString(in));
            List<Value> values = readValues(in);
            int nk = count(in, 4);
            List<String> keys = new ArrayList<>(nk);
            for (int k = 0; k < nk; k++) keys.add(readString(in));
            changes.add(new RowChange(table, RowChange.Kind.values()[kind], columns, values, keys));
        }
        return new Rows(gsn, origin, changes);
    }

    private static List<Value> readValues(ByteBuffer in) {
        int n = count(in, 1);
        List<Value> values = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte tag = in.get();
            values.add(switch (tag) {
                case V_NULL -> Value.NULL;
                case V_INT -> new Value.Int(in.getLong());
                case V_REAL -> new Value.Real(in.getDouble());
                case V_TEXT -> new Value.Text(readString(in));
                case V_BLOB -> {
                    byte[] raw = new byte[count(in, 1)];
                    in.get(raw);
                    yield new Value.Blob(raw);
                }
                default -> throw new MalformedMessageException("unknown value tag " + tag);
            });
        }
        return values;
    }

    private static String readString(ByteBuffer in) {
        byte[] raw = new byte[count(in, 1)];
        in.get(raw);
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(raw)).toString();
        } catch (CharacterCodingException e) {
            throw new MalformedMessageException("string is not valid UTF-8");
        }
    }

    /** A count of elements each at least {@code minBytes} long: must fit in what remains. */
    private static int count(ByteBuffer in, int minBytes) {
        int n = in.getInt();
        if (n < 0 || (long) n * minBytes > in.remaining())
            throw new MalformedMessageException("count " + n + " exceeds the " + in.remaining() + " bytes that remain");
        return n;
    }
}
