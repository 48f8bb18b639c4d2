/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata.CustomMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.junit.Test;

public class WireTest {
    /** The same encoding is pinned in rust/krabka-jni/src/wire/tests.rs. */
    static final String GOLDEN_METADATA_HEX = "0102030405060708090a0b0c0d0e0f10" + "0000000174"
            + "00000003" + "00000000000000000000000000000002" + "000000000000000a"
            + "0000000000000014" + "000000000000001e" + "00000001" + "0000000000000028" + "00000032"
            + "01" + "01" + "000000020908" + "00000002" + "00000000000000000000000a"
            + "00000002000000000000000f";

    static RemoteLogSegmentMetadata golden() {
        TopicIdPartition tp = new TopicIdPartition(new Uuid(0x0102030405060708L, 0x090a0b0c0d0e0f10L), 3, "t");
        Map<Integer, Long> epochs = new TreeMap<>();
        epochs.put(0, 10L);
        epochs.put(2, 15L);
        return new RemoteLogSegmentMetadata(new RemoteLogSegmentId(tp, new Uuid(0, 2)), 10, 20, 30, 1, 40,
                50, Optional.of(new CustomMetadata(new byte[] {9, 8})),
                RemoteLogSegmentState.COPY_SEGMENT_FINISHED, epochs, true);
    }

    static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) {
            out.append(String.format("%02x", b));
        }
        return out.toString();
    }

    @Test
    public void theGoldenEncodingMatchesTheRustSide() {
        assertEquals(GOLDEN_METADATA_HEX, hex(Wire.metadata(golden())));
    }

    @Test
    public void listsAndOptionalsDecodeWhatTheEncoderWrote() {
        byte[] one = Wire.metadata(golden());
        byte[] optional = new byte[one.length + 1];
        optional[0] = 1;
        System.arraycopy(one, 0, optional, 1, one.length);
        RemoteLogSegmentMetadata decoded = Wire.optionalMetadata(optional).orElseThrow();
        assertEquals(golden(), decoded);
        assertEquals(golden().topicIdPartition().topic(), decoded.topicIdPartition().topic());
        assertEquals(true, decoded.isTxnIdxEmpty());
        assertFalse(Wire.optionalMetadata(new byte[] {0}).isPresent());

        byte[] list = new byte[4 + 2 * one.length];
        list[3] = 2;
        System.arraycopy(one, 0, list, 4, one.length);
        System.arraycopy(one, 0, list, 4 + one.length, one.length);
        List<RemoteLogSegmentMetadata> decodedList = Wire.metadataList(list);
        assertEquals(Arrays.asList(golden(), golden()), decodedList);
    }

    @Test
    public void malformedBytesAreRefused() {
        byte[] one = Wire.metadata(golden());
        assertThrows(IllegalStateException.class,
                () -> Wire.optionalMetadata(Arrays.copyOf(new byte[] {1}, 10)));
        byte[] trailing = new byte[one.length + 2];
        trailing[0] = 1;
        System.arraycopy(one, 0, trailing, 1, one.length);
        assertThrows(IllegalStateException.class, () -> Wire.optionalMetadata(trailing));
        assertThrows(IllegalStateException.class, () -> Wire.metadataList(new byte[] {0x7f, 0, 0, 0}));
    }
}
