package dev.gyro.replication;

import dev.gyro.protocol.Codec;
import dev.gyro.protocol.RowChange;
import dev.gyro.protocol.StateUpdate;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One entry of a group's log: everything one request changed in the leader's database, as row images
 * (docs/decisions/04-row-images.md and docs/decisions/22-group-log.md).
 *
 * <p>The row images travel as {@link Codec.Rows}, in the bytes of a {@link StateUpdate} a token carries, so there is
 * one encoding of row images: its {@code gsn} field holds the request's number and its {@code origin} the leader
 * replica; not a state update, whose ring change would have to name its origin as the ring's holder
 * (docs/decisions/44-ring-changes.md). Ahead of it, the basis, the leader's session and the entry's place in its batch.
 *
 * <p>Row images are absolute, so an entry holds only on the database it was computed on
 * (docs/decisions/42-group-commit.md): the state "log applied up to {@code basis}" for the first entry of a batch, and
 * "that, plus the batch's earlier entries" for a later one. {@link #holdsOn} is the rule every replica applies.
 *
 * @param basis    the index of the last log entry whose rows were in the leader's database when it opened the batch
 *                 (0: none)
 * @param session  the leader process's random id, so that {@code (session, number)} names one request for good
 * @param number   the request's number within its session, from 1
 * @param leader   the replica that ran the request
 * @param position the entry's place in its batch, from 1
 * @param previous the last entry whose rows the leader's database held when it ran this request: for the first entry
 *                 of a batch the one at {@code basis} ({@link RequestId#NONE} when there was none or it is not
 *                 known), for a later one the batch's entry before it; null in entries of version 1, which are
 *                 checked by their basis alone
 * @param changes  the row images, in write order (the application's, then Gyro's metadata)
 */
record GroupEntry(long basis, long session, long number, int leader, int position, RequestId previous,
                  List<RowChange> changes) {

    private static final byte VERSION_1 = 1;
    private static final byte VERSION = 2;
    /** A log entry carrying several entries of one batch, appended together (docs/decisions/42-group-commit.md). */
    private static final byte SEVERAL = 3;

    /** Names a request of a leader for good: its session and number. */
    record RequestId(long session, long number) {
        /** No entry: a database that took none, or one whose last entry's id is not recorded. */
        static final RequestId NONE = new RequestId(0, 0);
    }

    GroupEntry {
        changes = List.copyOf(changes);
        if (basis < 0) throw new IllegalArgumentException("basis must be a log index, was " + basis);
        if (number < 1) throw new IllegalArgumentException("request numbers start at 1, was " + number);
        if (position < 1) throw new IllegalArgumentException("positions in a batch start at 1, was " + position);
        if (position > 1 && previous == null)
            throw new IllegalArgumentException("entry " + position + " of a batch must name the entry before it");
    }

    /** The first entry of a batch on the state at {@code basis}, whose last entry is not named (version 1's rule). */
    GroupEntry(long basis, long session, long number, int leader, List<RowChange> changes) {
        this(basis, session, number, leader, 1, null, changes);
    }

    RequestId requestId() {
        return new RequestId(session, number);
    }

    /**
     * Whether this entry was computed on a database that stands where this one does: its last applied data entry at
     * log index {@code dataIndex}, named {@code dataEntry}. A later entry of a batch holds exactly when the batch's
     * entry before it was the last one applied; the first one when the basis is.
     */
    boolean holdsOn(long dataIndex, RequestId dataEntry) {
        if (position > 1) return previous.equals(dataEntry);
        return basis == dataIndex && (previous == null || previous.equals(dataEntry));
    }

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeLong(basis);
            out.writeLong(session);
            out.writeInt(position);
            RequestId p = previous == null ? RequestId.NONE : previous;
            out.writeLong(p.session());
            out.writeLong(p.number());
            out.write(Codec.encodeRows(new Codec.Rows(number, leader, changes)));
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
        return bytes.toByteArray();
    }

    /**
     * One log entry's bytes for {@code entries}, consecutive entries of one batch in their order: a single entry as
     * itself, several in one log entry, which every replica applies in one DBMS transaction.
     */
    static byte[] encodeAll(List<GroupEntry> entries) {
        if (entries.isEmpty()) throw new IllegalArgumentException("a log entry carries at least one group entry");
        if (entries.size() == 1) return entries.get(0).encode();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(SEVERAL);
            out.writeInt(entries.size());
            for (GroupEntry e : entries) {
                byte[] one = e.encode();
                out.writeInt(one.length);
                out.write(one);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
        return bytes.toByteArray();
    }

    /**
     * The entries one log entry carries, in order ({@link #encodeAll}).
     *
     * @throws IllegalArgumentException when {@code bytes} is not a log entry this Gyro reads
     */
    static List<GroupEntry> decodeAll(byte[] bytes) {
        if (bytes.length == 0 || bytes[0] != SEVERAL) return List.of(decode(bytes));
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            in.readByte();
            int n = in.readInt();
            if (n < 1 || n > bytes.length) throw new IllegalArgumentException("a log entry of " + n + " group entries");
            List<GroupEntry> all = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int length = in.readInt();
                if (length < 1 || length > bytes.length) throw new IOException("an entry of " + length + " bytes");
                byte[] one = new byte[length];
                in.readFully(one);
                all.add(decode(one));
            }
            return all;
        } catch (IOException e) {
            throw new IllegalArgumentException("a truncated group log entry (" + bytes.length + " bytes)", e);
        }
    }

    /**
     * @throws IllegalArgumentException when {@code bytes} is not an entry of a version this Gyro reads: a log written
     *                                  by another Gyro, or damaged
     */
    static GroupEntry decode(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            byte version = in.readByte();
            if (version != VERSION && version != VERSION_1)
                throw new IllegalArgumentException("a group log entry of version " + version + ", this Gyro reads "
                        + VERSION_1 + " and " + VERSION);
            long basis = in.readLong();
            long session = in.readLong();
            int position = 1;
            RequestId previous = null;
            int header = 1 + 8 + 8;
            if (version == VERSION) {
                position = in.readInt();
                previous = new RequestId(in.readLong(), in.readLong());
                header += 4 + 8 + 8;
            }
            Codec.Rows u = Codec.decodeRows(Arrays.copyOfRange(bytes, header, bytes.length));
            return new GroupEntry(basis, session, u.number(), u.origin(), position, previous, u.changes());
        } catch (IOException e) {
            throw new IllegalArgumentException("a truncated group log entry (" + bytes.length + " bytes)", e);
        }
    }
}
