/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage.tools;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.kafka.server.log.remote.metadata.storage.serialization.RemoteLogMetadataSerde;
import org.apache.kafka.server.log.remote.storage.RemoteLogMetadata;

/**
 * Writes partitions of {@code __remote_log_metadata} as a broker leaves them on disk: segment files
 * of Kafka's record batch format v2 (uncompressed, CRC-32C), each record's value the event
 * serialized by Kafka's own {@code RemoteLogMetadataSerde}. The format is written here, not with
 * Kafka's record builders, because their package differs between Kafka 4.0 and 4.4 and the tests
 * run against both.
 */
final class MetadataLogFixture {
    private static final RemoteLogMetadataSerde SERDE = new RemoteLogMetadataSerde();

    private MetadataLogFixture() {
    }

    /**
     * Writes {@code events} as partition {@code partition} under {@code logDir}, in segment files
     * of {@code perSegment} events, batches of up to {@code perBatch} records.
     *
     * @return the partition directory
     */
    static Path writePartition(Path logDir, int partition, List<? extends RemoteLogMetadata> events,
            int perSegment, int perBatch) throws IOException {
        Path dir = Files.createDirectories(logDir.resolve("__remote_log_metadata-" + partition));
        if (events.isEmpty()) {
            Files.write(dir.resolve(String.format("%020d.log", 0)), new byte[0]);
        }
        for (int start = 0; start < events.size(); start += perSegment) {
            ByteArrayOutputStream segment = new ByteArrayOutputStream();
            int end = Math.min(events.size(), start + perSegment);
            for (int batch = start; batch < end; batch += perBatch) {
                segment.write(batch(batch, events.subList(batch, Math.min(end, batch + perBatch))));
            }
            Files.write(dir.resolve(String.format("%020d.log", start)), segment.toByteArray());
        }
        return dir;
    }

    /** One record batch holding {@code events} from offset {@code baseOffset}. */
    static byte[] batch(long baseOffset, List<? extends RemoteLogMetadata> events) {
        List<byte[]> values = new ArrayList<>();
        for (RemoteLogMetadata event : events) {
            values.add(SERDE.serialize(event));
        }
        return batchOfValues(baseOffset, values);
    }

    /** One record batch holding records with {@code values} from offset {@code baseOffset}. */
    static byte[] batchOfValues(long baseOffset, List<byte[]> values) {
        ByteArrayOutputStream records = new ByteArrayOutputStream();
        for (int i = 0; i < values.size(); i++) {
            byte[] record = record(i, values.get(i));
            records.write(record, 0, record.length);
        }
        byte[] body = records.toByteArray();
        long timestamp = 1_700_000_000_000L;
        // From attributes to the end: what the CRC covers.
        ByteBuffer covered = ByteBuffer.allocate(2 + 4 + 8 + 8 + 8 + 2 + 4 + 4 + body.length);
        covered.putShort((short) 0).putInt(values.size() - 1).putLong(timestamp).putLong(timestamp)
                .putLong(-1L).putShort((short) -1).putInt(-1).putInt(values.size()).put(body);
        CRC32C crc = new CRC32C();
        crc.update(covered.array());
        ByteBuffer batch = ByteBuffer.allocate(8 + 4 + 4 + 1 + 4 + covered.capacity());
        batch.putLong(baseOffset).putInt(4 + 1 + 4 + covered.capacity()).putInt(0).put((byte) 2)
                .putInt((int) crc.getValue()).put(covered.array());
        return batch.array();
    }

    private static byte[] record(int offsetDelta, byte[] value) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(0); // attributes
        varint(body, 0); // timestamp delta
        varint(body, offsetDelta);
        varint(body, -1); // no key
        varint(body, value.length);
        body.write(value, 0, value.length);
        varint(body, 0); // no headers
        ByteArrayOutputStream record = new ByteArrayOutputStream();
        varint(record, body.size());
        byte[] bytes = body.toByteArray();
        record.write(bytes, 0, bytes.length);
        return record.toByteArray();
    }

    /** Kafka's zig-zag varint. */
    private static void varint(ByteArrayOutputStream out, int value) {
        int v = (value << 1) ^ (value >> 31);
        while ((v & ~0x7f) != 0) {
            out.write((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        out.write(v);
    }
}
