/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage.tools;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.server.log.remote.metadata.storage.serialization.RemoteLogMetadataSerde;
import org.apache.kafka.server.log.remote.storage.RemoteLogMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteMetadata;

/**
 * The partitions of Kafka's {@code __remote_log_metadata} topic as a stopped broker left them in
 * its log directories, decoded with Kafka's own {@code RemoteLogMetadataSerde}.
 *
 * <p>A partition's directory is {@code <log dir>/__remote_log_metadata-<n>}; directories of a
 * replica being deleted ({@code ...-delete}) or moved between log directories ({@code ...-future})
 * are not read. When several of the given log directories hold the same partition (the log
 * directories of several brokers), the replica with the highest last offset is read.
 */
final class MetadataTopicLog {
    /** Kafka's topic of {@code TopicBasedRemoteLogMetadataManager}. */
    static final String TOPIC = "__remote_log_metadata";

    private static final Pattern PARTITION_DIR = Pattern.compile(
            Pattern.quote(TOPIC) + "-(0|[1-9][0-9]{0,8})");
    private static final Pattern SEGMENT_FILE = Pattern.compile("([0-9]{20})\\.log");

    private MetadataTopicLog() {
    }

    /** One replica of one partition of the topic. */
    static final class Replica {
        final int partition;
        final Path dir;
        /** Its last offset, -1 when it holds no record. */
        final long lastOffset;

        Replica(int partition, Path dir, long lastOffset) {
            this.partition = partition;
            this.dir = dir;
            this.lastOffset = lastOffset;
        }

        @Override
        public String toString() {
            return dir.toString();
        }
    }

    /** One event of the topic and where it was read. */
    static final class Event {
        final RemoteLogMetadata metadata;
        final int partition;
        final long offset;

        Event(RemoteLogMetadata metadata, int partition, long offset) {
            this.metadata = metadata;
            this.partition = partition;
            this.offset = offset;
        }

        /** {@code __remote_log_metadata-<n> offset <o>}. */
        String where() {
            return TOPIC + "-" + partition + " offset " + offset;
        }
    }

    /**
     * The replica to read of every partition {@code 0..partitions-1}: the one with the highest
     * last offset among {@code logDirs}.
     *
     * @throws ImportException when a partition is missing from every log directory, a log
     *     directory holds a partition beyond {@code partitions}, or a replica cannot be read
     */
    static List<Replica> replicas(List<Path> logDirs, int partitions, KafkaLogFiles files)
            throws ImportException {
        Map<Integer, Replica> chosen = new TreeMap<>();
        for (Path logDir : logDirs) {
            for (Path dir : partitionDirs(logDir)) {
                Matcher matcher = PARTITION_DIR.matcher(dir.getFileName().toString());
                if (!matcher.matches()) {
                    continue;
                }
                int partition = Integer.parseInt(matcher.group(1));
                if (partition >= partitions) {
                    throw new ImportException(dir + " is partition " + partition + " of " + TOPIC
                            + ", but --metadata-partitions is " + partitions
                            + " (give the topic's partition count, rlmm.config."
                            + "remote.log.metadata.topic.num.partitions of the old configuration)");
                }
                Replica replica = new Replica(partition, dir, lastOffset(dir, files));
                Replica known = chosen.get(partition);
                if (known == null || replica.lastOffset > known.lastOffset) {
                    chosen.put(partition, replica);
                }
            }
        }
        List<Integer> missing = new ArrayList<>();
        for (int partition = 0; partition < partitions; partition++) {
            if (!chosen.containsKey(partition)) {
                missing.add(partition);
            }
        }
        if (!missing.isEmpty()) {
            throw new ImportException("no log directory given holds partition(s) " + missing + " of "
                    + TOPIC + " (of " + partitions + "): give the log directories of every broker "
                    + "that hosts a replica (--log-dir, repeatable), or the right --metadata-partitions");
        }
        return new ArrayList<>(chosen.values());
    }

    /**
     * Every event of {@code replica}, in offset order; {@code warn} hears about an incomplete
     * batch at the end of the last segment (what a broker crash leaves, and Kafka's own recovery
     * drops).
     *
     * @throws ImportException on a batch that fails its CRC, offsets that do not increase, an
     *     incomplete batch inside the log, or a record that does not decode as an event
     */
    static List<Event> read(Replica replica, KafkaLogFiles files, Consumer<String> warn)
            throws ImportException {
        RemoteLogMetadataSerde serde = new RemoteLogMetadataSerde();
        List<Event> events = new ArrayList<>();
        List<File> segments = segments(replica.dir);
        long[] previous = {-1};
        for (int i = 0; i < segments.size(); i++) {
            File file = segments.get(i);
            try (KafkaLogFiles.Segment segment = files.open(file)) {
                int whole = segment.read(record -> {
                    if (record.offset <= previous[0]) {
                        throw new ImportException(file + ": offset " + record.offset + " follows offset "
                                + previous[0] + "; the log is corrupt");
                    }
                    previous[0] = record.offset;
                    events.add(decode(serde, replica.partition, record));
                });
                int size = segment.size();
                if (whole < size) {
                    String incomplete = file + " ends in an incomplete batch (" + (size - whole)
                            + " bytes after byte " + whole + ")";
                    if (i + 1 < segments.size()) {
                        throw new ImportException(incomplete + ", and a later segment follows: "
                                + "the log is corrupt");
                    }
                    warn.accept(incomplete + ": not read, as Kafka's recovery drops it");
                }
            } catch (IOException e) {
                throw new ImportException("cannot read " + file + ": " + e.getMessage(), e);
            }
        }
        return events;
    }

    private static Event decode(RemoteLogMetadataSerde serde, int partition,
            KafkaLogFiles.LogRecord record) throws ImportException {
        String where = TOPIC + "-" + partition + " offset " + record.offset;
        if (record.value == null) {
            throw new ImportException(where + " has no value: not an event of "
                    + "TopicBasedRemoteLogMetadataManager");
        }
        RemoteLogMetadata metadata;
        try {
            metadata = serde.deserialize(record.value);
        } catch (RuntimeException e) {
            throw new ImportException(where + " does not decode as an event of "
                    + "TopicBasedRemoteLogMetadataManager: " + e, e);
        }
        if (!(metadata instanceof RemoteLogSegmentMetadata
                || metadata instanceof RemoteLogSegmentMetadataUpdate
                || metadata instanceof RemotePartitionDeleteMetadata)) {
            throw new ImportException(where + " holds a " + metadata.getClass().getName()
                    + ", not a segment or partition-deletion event: the import knows no such event");
        }
        return new Event(metadata, partition, record.offset);
    }

    /** The last offset of the replica in {@code dir}, reading batch headers only. */
    private static long lastOffset(Path dir, KafkaLogFiles files) throws ImportException {
        long last = -1;
        for (File file : segments(dir)) {
            try (KafkaLogFiles.Segment segment = files.open(file)) {
                last = Math.max(last, segment.lastOffset());
            } catch (IOException e) {
                throw new ImportException("cannot read " + file + ": " + e.getMessage(), e);
            }
        }
        return last;
    }

    private static List<Path> partitionDirs(Path logDir) throws ImportException {
        if (!Files.isDirectory(logDir)) {
            throw new ImportException("log directory " + logDir + " does not exist");
        }
        try (Stream<Path> children = Files.list(logDir)) {
            List<Path> dirs = new ArrayList<>();
            children.filter(Files::isDirectory).sorted().forEach(dirs::add);
            return dirs;
        } catch (IOException e) {
            throw new ImportException("cannot list log directory " + logDir + ": " + e.getMessage(), e);
        }
    }

    /** The {@code .log} files of a partition directory, by base offset. */
    private static List<File> segments(Path dir) throws ImportException {
        try (Stream<Path> children = Files.list(dir)) {
            List<File> files = new ArrayList<>();
            children.filter(p -> SEGMENT_FILE.matcher(p.getFileName().toString()).matches())
                    .sorted().forEach(p -> files.add(p.toFile()));
            return files;
        } catch (IOException e) {
            throw new ImportException("cannot list " + dir + ": " + e.getMessage(), e);
        }
    }
}
