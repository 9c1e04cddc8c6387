package dev.gyro.replication;

import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.segmented.LogSegment;
import org.apache.ratis.server.raftlog.segmented.LogSegmentPath;
import org.apache.ratis.util.SizeInBytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A replica's group log on disk before its Ratis server starts, set against where its database stands
 * (docs/decisions/45-database-as-snapshot.md): the database is the log's snapshot, and the server resumes after it.
 * Three cases: the log reaches the database's index (every restart): the snapshot is the database's position; the log
 * ends before it (the database is a copy of a live replica's, made to rebuild this one): the snapshot is the log's last
 * entry, so that the log stays whole (its leader counts on the entries this replica acknowledged) and the entries after
 * it that the copy holds are skipped as held already; or the log starts after it (the database is older than what its
 * own log purged): refused, the replica is to be rebuilt.
 */
final class ReplicaLog {

    private static final Logger log = LoggerFactory.getLogger(ReplicaLog.class);

    private static final Pattern SEGMENT = Pattern.compile("log_(?:inprogress_(\\d+)|(\\d+)-(\\d+))");
    private static final SizeInBytes MAX_ENTRY = SizeInBytes.valueOf("64MB");

    private ReplicaLog() {}

    /** A segment file: its first index, and its last one for a closed segment (else -1). */
    private record Segment(Path file, long start, long end) {}

    /**
     * The snapshot a replica whose database stands at {@code stored} resumes after, given its log under
     * {@code groupDir} ({@code LOGDIR/<group id>}): null for none (an empty database).
     *
     * @throws IOException when the log starts after {@code stored} + 1 (entries the database lacks are gone), or
     *                     cannot be read
     */
    static TermIndex snapshot(Path groupDir, ReplicaProgress.Position stored, String name) throws IOException {
        TermIndex db = stored.appliedIndex() > 0 ? TermIndex.valueOf(stored.appliedTerm(), stored.appliedIndex()) : null;
        Path current = groupDir.resolve("current");
        if (!Files.isDirectory(current)) return db;
        List<Segment> segments = segments(current);
        if (segments.isEmpty()) return db;
        long first = segments.get(0).start();
        if (first > stored.appliedIndex() + 1)
            throw new IOException(name + "'s database holds its log up to index " + stored.appliedIndex() + " and its log"
                    + " starts at " + first + " (purged before it): rebuild it from a copy of a live replica's database"
                    + " (gyro cluster replace, in a cluster that gyro cluster start runs; gyro instance --replica R"
                    + " --rebuild --copy-from SOURCE, for a replica run as a process of its own)");
        TermIndex last = lastEntry(segments);
        if (last == null || last.getIndex() >= stored.appliedIndex()) return db;
        log.info("{}: its log ends at index {} and its database (a copy) holds {}: it resumes after the log's end and"
                + " skips what the copy holds", name, last.getIndex(), stored.appliedIndex());
        return last;
    }

    private static List<Segment> segments(Path current) throws IOException {
        List<Segment> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(current)) {
            for (Path f : files.toList()) {
                Matcher m = SEGMENT.matcher(f.getFileName().toString());
                if (!m.matches()) continue;
                if (m.group(1) != null) out.add(new Segment(f, Long.parseLong(m.group(1)), -1));
                else out.add(new Segment(f, Long.parseLong(m.group(2)), Long.parseLong(m.group(3))));
            }
        }
        out.sort(Comparator.comparingLong(Segment::start));
        return out;
    }

    /** The log's last entry, null when its segments hold none. */
    private static TermIndex lastEntry(List<Segment> segments) throws IOException {
        for (int i = segments.size() - 1; i >= 0; i--) {
            Segment s = segments.get(i);
            if (Files.size(s.file()) == 0) continue;
            LogSegmentPath path = LogSegmentPath.matchLogSegment(s.file());
            if (path == null) continue;
            TermIndex[] last = {null};
            LogSegment.readSegmentFile(s.file().toFile(), path.getStartEnd(), MAX_ENTRY,
                    RaftServerConfigKeys.Log.CorruptionPolicy.WARN_AND_RETURN, null,
                    (LogEntryProto e) -> last[0] = TermIndex.valueOf(e.getTerm(), e.getIndex()));
            if (last[0] != null) return last[0];
        }
        return null;
    }
}
