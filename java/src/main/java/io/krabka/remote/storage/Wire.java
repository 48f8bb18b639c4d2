/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata.CustomMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteMetadata;

/**
 * The byte format that carries Kafka's metadata objects to and from the native library: one
 * {@code byte[]} per call instead of a JNI call per field. Big-endian integers, strings as an
 * {@code int} length and UTF-8, absent optionals as length {@code -1}. The Rust side
 * ({@code rust/krabka-jni/src/wire.rs}) documents the grammar; both sides pin the same golden
 * encoding in their tests.
 */
final class Wire {
    private Wire() {
    }

    /** Encodes one segment's metadata. */
    static byte[] metadata(RemoteLogSegmentMetadata metadata) {
        Out out = new Out();
        out.metadata(metadata);
        return out.bytes();
    }

    /** Encodes a metadata update. */
    static byte[] update(RemoteLogSegmentMetadataUpdate update) {
        Out out = new Out();
        out.segmentId(update.remoteLogSegmentId());
        out.i64(update.eventTimestampMs());
        out.optionalBytes(update.customMetadata().map(CustomMetadata::value).orElse(null));
        out.u8(update.state().id());
        out.i32(update.brokerId());
        return out.bytes();
    }

    /** Encodes a partition-delete record. */
    static byte[] partitionDelete(RemotePartitionDeleteMetadata delete) {
        Out out = new Out();
        out.partition(delete.topicIdPartition());
        out.u8(delete.state().id());
        out.i64(delete.eventTimestampMs());
        out.i32(delete.brokerId());
        return out.bytes();
    }

    /** Encodes one partition. */
    static byte[] partition(TopicIdPartition partition) {
        Out out = new Out();
        out.partition(partition);
        return out.bytes();
    }

    /** Encodes a set of partitions. */
    static byte[] partitions(Collection<TopicIdPartition> partitions) {
        Out out = new Out();
        out.i32(partitions.size());
        for (TopicIdPartition partition : partitions) {
            out.partition(partition);
        }
        return out.bytes();
    }

    /** Encodes configuration entries (keys and values as strings). */
    static byte[] config(Map<String, String> entries) {
        Out out = new Out();
        out.i32(entries.size());
        for (Map.Entry<String, String> entry : entries.entrySet()) {
            out.string(entry.getKey());
            out.string(entry.getValue());
        }
        return out.bytes();
    }

    /** Decodes a presence byte and, if present, one metadata. */
    static Optional<RemoteLogSegmentMetadata> optionalMetadata(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        try {
            Optional<RemoteLogSegmentMetadata> result =
                    presence(in.get()) ? Optional.of(readMetadata(in)) : Optional.empty();
            finish(in);
            return result;
        } catch (BufferUnderflowException e) {
            throw new IllegalStateException("truncated metadata from the native library", e);
        }
    }

    /** Decodes a count and that many metadata. */
    static List<RemoteLogSegmentMetadata> metadataList(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        try {
            int count = count(in, 1);
            List<RemoteLogSegmentMetadata> list = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                list.add(readMetadata(in));
            }
            finish(in);
            return list;
        } catch (BufferUnderflowException e) {
            throw new IllegalStateException("truncated metadata list from the native library", e);
        }
    }

    private static RemoteLogSegmentMetadata readMetadata(ByteBuffer in) {
        TopicIdPartition partition = readPartition(in);
        RemoteLogSegmentId id = new RemoteLogSegmentId(partition, readUuid(in));
        long startOffset = in.getLong();
        long endOffset = in.getLong();
        long maxTimestampMs = in.getLong();
        int brokerId = in.getInt();
        long eventTimestampMs = in.getLong();
        int size = in.getInt();
        RemoteLogSegmentState state = RemoteLogSegmentState.forId(in.get());
        boolean txnIdxEmpty = presence(in.get());
        Optional<CustomMetadata> custom = Optional.empty();
        int customLength = in.getInt();
        if (customLength != -1) {
            custom = Optional.of(new CustomMetadata(take(in, customLength)));
        }
        int epochCount = count(in, 12);
        Map<Integer, Long> epochs = new TreeMap<>();
        for (int i = 0; i < epochCount; i++) {
            int epoch = in.getInt();
            epochs.put(epoch, in.getLong());
        }
        return new RemoteLogSegmentMetadata(id, startOffset, endOffset, maxTimestampMs, brokerId,
                eventTimestampMs, size, custom, state, epochs, txnIdxEmpty);
    }

    private static TopicIdPartition readPartition(ByteBuffer in) {
        Uuid topicId = readUuid(in);
        int nameLength = count(in, 1);
        String topic = new String(take(in, nameLength), StandardCharsets.UTF_8);
        return new TopicIdPartition(topicId, in.getInt(), topic);
    }

    private static Uuid readUuid(ByteBuffer in) {
        long most = in.getLong();
        return new Uuid(most, in.getLong());
    }

    private static int count(ByteBuffer in, int minItem) {
        int count = in.getInt();
        if (count < 0 || (long) count * minItem > in.remaining()) {
            throw new IllegalStateException("invalid count " + count + " from the native library");
        }
        return count;
    }

    private static byte[] take(ByteBuffer in, int length) {
        if (length < 0 || length > in.remaining()) {
            throw new IllegalStateException("invalid length " + length + " from the native library");
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return bytes;
    }

    private static boolean presence(byte flag) {
        if (flag != 0 && flag != 1) {
            throw new IllegalStateException("invalid flag " + flag + " from the native library");
        }
        return flag == 1;
    }

    private static void finish(ByteBuffer in) {
        if (in.hasRemaining()) {
            throw new IllegalStateException(in.remaining() + " trailing bytes from the native library");
        }
    }

    /** A growing big-endian buffer. */
    private static final class Out {
        private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(128);
        private final DataOutputStream out = new DataOutputStream(buffer);

        byte[] bytes() {
            return buffer.toByteArray();
        }

        void u8(int value) {
            try {
                out.writeByte(value);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void i32(int value) {
            try {
                out.writeInt(value);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void i64(long value) {
            try {
                out.writeLong(value);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void raw(byte[] bytes) {
            buffer.write(bytes, 0, bytes.length);
        }

        void string(String value) {
            byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
            i32(utf8.length);
            raw(utf8);
        }

        void optionalBytes(byte[] bytes) {
            if (bytes == null) {
                i32(-1);
            } else {
                i32(bytes.length);
                raw(bytes);
            }
        }

        void uuid(Uuid uuid) {
            i64(uuid.getMostSignificantBits());
            i64(uuid.getLeastSignificantBits());
        }

        void partition(TopicIdPartition partition) {
            uuid(partition.topicId());
            string(partition.topic() == null ? "" : partition.topic());
            i32(partition.partition());
        }

        void segmentId(RemoteLogSegmentId id) {
            partition(id.topicIdPartition());
            uuid(id.id());
        }

        void metadata(RemoteLogSegmentMetadata metadata) {
            segmentId(metadata.remoteLogSegmentId());
            i64(metadata.startOffset());
            i64(metadata.endOffset());
            i64(metadata.maxTimestampMs());
            i32(metadata.brokerId());
            i64(metadata.eventTimestampMs());
            i32(metadata.segmentSizeInBytes());
            u8(metadata.state().id());
            u8(metadata.isTxnIdxEmpty() ? 1 : 0);
            optionalBytes(metadata.customMetadata().map(CustomMetadata::value).orElse(null));
            Map<Integer, Long> epochs = metadata.segmentLeaderEpochs();
            i32(epochs.size());
            for (Map.Entry<Integer, Long> entry : epochs.entrySet()) {
                i32(entry.getKey());
                i64(entry.getValue());
            }
        }
    }
}
