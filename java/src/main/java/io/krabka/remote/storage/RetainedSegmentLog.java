/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;

/**
 * Reports segments that Kafka deleted but the write-once (WORM) archive keeps: one warning per
 * segment id, without a stack trace.
 *
 * <p>In archive mode every delete is refused by the bucket's design, and the adapter returns
 * normally so that Kafka records {@code DELETE_SEGMENT_FINISHED} and retention advances. Kafka
 * may ask again for the same segment (a retried expiration, a topic deletion after a failed
 * copy); the last {@code capacity} segment ids reported are remembered, and a repeat within them
 * logs nothing. Safe for concurrent callers.
 */
final class RetainedSegmentLog {
    /** Segment ids remembered by the adapter's log: a few hundred KiB at most. */
    static final int DEFAULT_CAPACITY = 4096;

    /** What every warning starts with, so operators can search broker logs for it. */
    static final String PREFIX = "WORM archive retains segment ";

    private final Consumer<String> warn;
    private final Map<Uuid, Boolean> seen;

    /**
     * @param capacity how many segment ids to remember (at least 1)
     * @param warn where each warning goes ({@code Logger::warn} in the adapter)
     */
    RetainedSegmentLog(int capacity, Consumer<String> warn) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity + " is less than 1");
        }
        this.warn = warn;
        // Access order: a segment reported again stays remembered; the least recent one goes.
        this.seen = new LinkedHashMap<Uuid, Boolean>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<Uuid, Boolean> eldest) {
                return size() > capacity;
            }
        };
    }

    /**
     * Warns about {@code metadata}'s segment unless it was reported recently.
     *
     * @return whether a warning was written
     */
    boolean report(RemoteLogSegmentMetadata metadata) {
        Uuid id = metadata.remoteLogSegmentId().id();
        synchronized (seen) {
            if (seen.put(id, Boolean.TRUE) != null) {
                return false;
            }
        }
        warn.accept(message(metadata));
        return true;
    }

    /** The warning for {@code metadata}'s segment. */
    static String message(RemoteLogSegmentMetadata metadata) {
        TopicPartition partition = metadata.topicIdPartition().topicPartition();
        return PREFIX + metadata.remoteLogSegmentId().id() + " of " + partition
                + " (offsets " + metadata.startOffset() + "-" + metadata.endOffset()
                + "): the write-once archive refuses deletes, so its objects stay in the bucket "
                + "until their retention expires; Kafka no longer references the segment";
    }
}
