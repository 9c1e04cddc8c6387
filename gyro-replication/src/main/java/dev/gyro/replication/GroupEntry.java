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
import java.util.Arrays;
import java.util.List;

/**
 * One entry of a group's log: everything one request changed in the leader's database, as row images
 * (docs/decisions/04-row-images.md and docs/decisions/22-group-log.md).
 *
 * <p>The row images travel in the {@link Codec} encoding of a {@link StateUpdate}, the same bytes a token carries, so
 * there is one encoding of row images: its {@code gsn} field holds the request's number and its {@code origin} the
 * leader replica. Ahead of it, the basis and the leader's session.
 *
 * @param basis   the index of the last log entry whose rows were in the leader's database when it ran the request
 *                (0: none); every replica applies the entry only if that is still its last applied data entry, so an
 *                entry computed on a database another leader's entries have overtaken changes nothing anywhere
 * @param session the leader process's random id, so that {@code (session, number)} names one request for good
 * @param number  the request's number within its session, from 1
 * @param leader  the replica that ran the request
 * @param changes the row images, in write order (the application's, then Gyro's metadata)
 */
record GroupEntry(long basis, long session, long number, int leader, List<RowChange> changes) {

    private static final byte VERSION = 1;

    /** Names a request of a leader for good: its session and number. */
    record RequestId(long session, long number) {}

    GroupEntry {
        changes = List.copyOf(changes);
        if (basis < 0) throw new IllegalArgumentException("basis must be a log index, was " + basis);
        if (number < 1) throw new IllegalArgumentException("request numbers start at 1, was " + number);
    }

    RequestId requestId() {
        return new RequestId(session, number);
    }

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeLong(basis);
            out.writeLong(session);
            out.write(Codec.encodeUpdate(new StateUpdate(number, leader, changes)));
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
        return bytes.toByteArray();
    }

    /**
     * @throws IllegalArgumentException when {@code bytes} is not an entry of this version: a log written by another
     *                                  Gyro, or damaged
     */
    static GroupEntry decode(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            byte version = in.readByte();
            if (version != VERSION)
                throw new IllegalArgumentException("a group log entry of version " + version + ", this Gyro reads "
                        + VERSION);
            long basis = in.readLong();
            long session = in.readLong();
            StateUpdate u = Codec.decodeUpdate(Arrays.copyOfRange(bytes, 1 + 8 + 8, bytes.length));
            return new GroupEntry(basis, session, u.gsn(), u.origin(), u.changes());
        } catch (IOException e) {
            throw new IllegalArgumentException("a truncated group log entry (" + bytes.length + " bytes)", e);
        }
    }
}
