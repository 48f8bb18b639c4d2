/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;

/**
 * Reports segments that Kafka deleted but the write-once (WORM) archive keeps: one warning per
 * partition, then one info line per segment, nothing for a repeat.
 *
 * <p>In archive mode every delete is refused by the bucket's design, and the adapter returns
 * normally so that Kafka records {@code DELETE_SEGMENT_FINISHED} and retention advances. Kafka
 * deletes many segments of a partition at once when tiered storage is turned off for a topic with
 * {@code remote.log.delete.on.disable=true} (KIP-950), or when a topic is deleted: that is one
 * warning for the partition, not one per segment. Kafka may also ask again for the same segment (a
 * retried expiration); the last {@code capacity} segment ids and partitions reported are
 * remembered. Safe for concurrent callers.
 */
final class RetainedSegmentLog {
    /** Segment ids and partitions remembered: a few hundred KiB at most. */
    static final int DEFAULT_CAPACITY = 4096;

    /** What every warning starts with, so operators can search broker logs for it. */
    static final String PREFIX = "WORM archive retains the segments Kafka deletes of ";

    /** What every per-segment line starts with. */
    static final String SEGMENT_PREFIX = "WORM archive retains segment ";

    /** What {@link #report} did. */
    enum Reported {
        /** The first retained segment of its partition: a warning. */
        WARNED,
        /** Another segment of a partition warned about: an info line. */
        NOTED,
        /** A segment reported recently: nothing. */
        REPEAT
    }

    private final Consumer<String> warn;
    private final Consumer<String> info;
    private final Map<Uuid, Boolean> segments;
    private final Map<TopicIdPartition, Boolean> partitions;

    /**
     * @param capacity how many segment ids and partitions to remember (at least 1)
     * @param warn where each partition's warning goes ({@code Logger::warn} in the adapter)
     * @param info where each later segment's line goes ({@code Logger::info} in the adapter)
     */
    RetainedSegmentLog(int capacity, Consumer<String> warn, Consumer<String> info) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity + " is less than 1");
        }
        this.warn = warn;
        this.info = info;
        this.segments = bounded(capacity);
        this.partitions = bounded(capacity);
    }

    /** An access-ordered map that forgets its least recent key beyond {@code capacity}. */
    private static <K> Map<K, Boolean> bounded(int capacity) {
        return new LinkedHashMap<K, Boolean>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<K, Boolean> eldest) {
                return size() > capacity;
            }
        };
    }

    /** Reports {@code metadata}'s segment as retained; returns what was logged. */
    Reported report(RemoteLogSegmentMetadata metadata) {
        Uuid id = metadata.remoteLogSegmentId().id();
        TopicIdPartition partition = metadata.topicIdPartition();
        boolean first;
        synchronized (this) {
            if (segments.put(id, Boolean.TRUE) != null) {
                return Reported.REPEAT;
            }
            first = partitions.put(partition, Boolean.TRUE) == null;
        }
        if (first) {
            warn.accept(warning(metadata));
            return Reported.WARNED;
        }
        info.accept(line(metadata));
        return Reported.NOTED;
    }

    /** The warning for the first retained segment of {@code metadata}'s partition. */
    static String warning(RemoteLogSegmentMetadata metadata) {
        TopicPartition partition = metadata.topicIdPartition().topicPartition();
        return PREFIX + partition + " (first: segment " + metadata.remoteLogSegmentId().id()
                + ", offsets " + metadata.startOffset() + "-" + metadata.endOffset()
                + "): the write-once archive refuses deletes, so their objects stay in the bucket "
                + "until their retention expires, and Kafka no longer references them. Later "
                + "segments of this partition are logged at INFO.";
    }

    /** The info line for a later retained segment. */
    static String line(RemoteLogSegmentMetadata metadata) {
        TopicPartition partition = metadata.topicIdPartition().topicPartition();
        return SEGMENT_PREFIX + metadata.remoteLogSegmentId().id() + " of " + partition
                + " (offsets " + metadata.startOffset() + "-" + metadata.endOffset() + ")";
    }
}
