/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;

/** Local segment files and their metadata, for the adapter tests. */
final class Segments {
    private Segments() {
    }

    /** A local segment: its files and the bytes written to them. */
    static final class Local {
        final LogSegmentData data;
        final byte[] log;
        final byte[] offsetIndex;
        final byte[] timeIndex;
        final byte[] txnIndex;
        final byte[] snapshot;
        final byte[] leaderEpoch;

        Local(LogSegmentData data, byte[] log, byte[] offsetIndex, byte[] timeIndex, byte[] txnIndex,
                byte[] snapshot, byte[] leaderEpoch) {
            this.data = data;
            this.log = log;
            this.offsetIndex = offsetIndex;
            this.timeIndex = timeIndex;
            this.txnIndex = txnIndex;
            this.snapshot = snapshot;
            this.leaderEpoch = leaderEpoch;
        }
    }

    static TopicIdPartition partition(String topic, int partition) {
        return new TopicIdPartition(Uuid.randomUuid(), partition, topic);
    }

    static RemoteLogSegmentMetadata metadata(TopicIdPartition partition, long start, long end,
            int size, RemoteLogSegmentState state, Map<Integer, Long> epochs, boolean txnIdxEmpty) {
        return new RemoteLogSegmentMetadata(new RemoteLogSegmentId(partition, Uuid.randomUuid()),
                start, end, 1_700_000_000_000L, 1, 1_700_000_000_001L, size, Optional.empty(), state,
                epochs, txnIdxEmpty);
    }

    static RemoteLogSegmentMetadata started(TopicIdPartition partition, long start, long end, int size) {
        Map<Integer, Long> epochs = new TreeMap<>();
        epochs.put(0, start);
        return metadata(partition, start, end, size, RemoteLogSegmentState.COPY_SEGMENT_STARTED,
                epochs, false);
    }

    /** Writes a segment of {@code size} random bytes and its indexes under {@code dir}. */
    static Local write(Path dir, long baseOffset, int size, boolean withTxnIndex, long seed)
            throws IOException {
        Files.createDirectories(dir);
        Random random = new Random(seed);
        String stem = String.format("%020d", baseOffset);
        byte[] log = bytes(random, size);
        byte[] offsetIndex = bytes(random, 8 * 16);
        byte[] timeIndex = bytes(random, 12 * 16);
        byte[] txnIndex = withTxnIndex ? bytes(random, 40 * 2) : null;
        byte[] snapshot = bytes(random, 100);
        byte[] leaderEpoch = ("0\n1\n0 " + baseOffset + "\n").getBytes(StandardCharsets.UTF_8);
        Path logPath = Files.write(dir.resolve(stem + ".log"), log);
        Path offsetPath = Files.write(dir.resolve(stem + ".index"), offsetIndex);
        Path timePath = Files.write(dir.resolve(stem + ".timeindex"), timeIndex);
        Optional<Path> txnPath = withTxnIndex
                ? Optional.of(Files.write(dir.resolve(stem + ".txnindex"), txnIndex))
                : Optional.empty();
        Path snapshotPath = Files.write(dir.resolve(stem + ".snapshot"), snapshot);
        LogSegmentData data = new LogSegmentData(logPath, offsetPath, timePath, txnPath, snapshotPath,
                ByteBuffer.wrap(leaderEpoch));
        return new Local(data, log, offsetIndex, timeIndex, txnIndex, snapshot, leaderEpoch);
    }

    static byte[] bytes(Random random, int size) {
        byte[] bytes = new byte[size];
        random.nextBytes(bytes);
        return bytes;
    }

    static byte[] readAll(InputStream in) throws IOException {
        try (InputStream stream = in) {
            return stream.readAllBytes();
        }
    }
}
