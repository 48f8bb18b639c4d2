/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteMetadata;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteState;
import org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class KrabkaRemoteLogMetadataManagerTest {
    @Rule
    public final TemporaryFolder tmp = new TemporaryFolder();

    private KrabkaRemoteLogMetadataManager rlmm;
    private TopicIdPartition tp;
    private Map<String, Object> config;

    @Before
    public void setUp() throws Exception {
        config = new HashMap<>();
        config.put("broker.id", 1);
        config.put("log.dir", "/tmp/kafka-logs");
        config.put("cluster.id", "abc");
        config.put("filesystem.root", tmp.newFolder("tier").toString());
        rlmm = new KrabkaRemoteLogMetadataManager();
        rlmm.configure(config);
        tp = Segments.partition("orders", 0);
    }

    @After
    public void tearDown() {
        rlmm.close();
    }

    private static RemoteLogSegmentMetadataUpdate update(RemoteLogSegmentMetadata md,
            RemoteLogSegmentState state) {
        return new RemoteLogSegmentMetadataUpdate(md.remoteLogSegmentId(), 5L, Optional.empty(), state, 1);
    }

    private static <T> List<T> list(Iterator<T> iterator) {
        List<T> out = new ArrayList<>();
        iterator.forEachRemaining(out::add);
        return out;
    }

    private RemoteLogSegmentMetadata finished(long start, long end, Map<Integer, Long> epochs,
            boolean txnIdxEmpty) throws RemoteStorageException {
        RemoteLogSegmentMetadata md = Segments.metadata(tp, start, end, 100,
                RemoteLogSegmentState.COPY_SEGMENT_STARTED, epochs, txnIdxEmpty);
        rlmm.addRemoteLogSegmentMetadata(md).join();
        rlmm.updateRemoteLogSegmentMetadata(update(md, RemoteLogSegmentState.COPY_SEGMENT_FINISHED)).join();
        return md;
    }

    @Test
    public void segmentsBecomeVisibleToLookupsOnlyWhenFinished() throws Exception {
        RemoteLogSegmentMetadata md = Segments.started(tp, 0, 99, 1000);
        rlmm.addRemoteLogSegmentMetadata(md).join();
        assertFalse(rlmm.remoteLogSegmentMetadata(tp, 0, 50).isPresent());
        assertFalse(rlmm.highestOffsetForEpoch(tp, 0).isPresent());
        assertEquals(1, list(rlmm.listRemoteLogSegments(tp)).size());

        rlmm.updateRemoteLogSegmentMetadata(update(md, RemoteLogSegmentState.COPY_SEGMENT_FINISHED)).join();
        RemoteLogSegmentMetadata found = rlmm.remoteLogSegmentMetadata(tp, 0, 50).orElseThrow();
        assertEquals(md.remoteLogSegmentId(), found.remoteLogSegmentId());
        assertEquals(RemoteLogSegmentState.COPY_SEGMENT_FINISHED, found.state());
        assertEquals(Optional.of(99L), rlmm.highestOffsetForEpoch(tp, 0));
        assertFalse(rlmm.remoteLogSegmentMetadata(tp, 0, 100).isPresent());
        assertEquals(1000L, rlmm.remoteLogSize(tp, 0));

        rlmm.updateRemoteLogSegmentMetadata(update(md, RemoteLogSegmentState.DELETE_SEGMENT_STARTED)).join();
        assertFalse(rlmm.remoteLogSegmentMetadata(tp, 0, 50).isPresent());
        assertEquals(1, list(rlmm.listRemoteLogSegments(tp, 0)).size());
        rlmm.updateRemoteLogSegmentMetadata(update(md, RemoteLogSegmentState.DELETE_SEGMENT_FINISHED)).join();
        assertTrue(list(rlmm.listRemoteLogSegments(tp)).isEmpty());
    }

    @Test
    public void listingsAreSortedByStartOffsetAndFilteredByEpoch() throws Exception {
        Map<Integer, Long> later = new TreeMap<>();
        later.put(1, 200L);
        finished(200, 299, later, true);
        Map<Integer, Long> both = new TreeMap<>();
        both.put(0, 100L);
        both.put(1, 150L);
        finished(100, 199, both, true);
        Map<Integer, Long> first = new TreeMap<>();
        first.put(0, 0L);
        finished(0, 99, first, true);

        List<RemoteLogSegmentMetadata> all = list(rlmm.listRemoteLogSegments(tp));
        assertEquals(3, all.size());
        assertEquals(0L, all.get(0).startOffset());
        assertEquals(100L, all.get(1).startOffset());
        assertEquals(200L, all.get(2).startOffset());
        List<RemoteLogSegmentMetadata> epoch1 = list(rlmm.listRemoteLogSegments(tp, 1));
        assertEquals(2, epoch1.size());
        assertEquals(100L, epoch1.get(0).startOffset());
        assertEquals(Optional.of(149L), rlmm.highestOffsetForEpoch(tp, 0));
        assertEquals(Optional.of(299L), rlmm.highestOffsetForEpoch(tp, 1));
        assertEquals(new TreeMap<>(both), new TreeMap<>(all.get(1).segmentLeaderEpochs()));
    }

    @Test
    public void nextSegmentWithTxnIndexSkipsSegmentsWithoutAbortedTransactions() throws Exception {
        Map<Integer, Long> e0 = new TreeMap<>();
        e0.put(0, 0L);
        finished(0, 99, e0, true);
        Map<Integer, Long> e1 = new TreeMap<>();
        e1.put(0, 100L);
        RemoteLogSegmentMetadata withTxn = finished(100, 199, e1, false);
        Optional<RemoteLogSegmentMetadata> next = rlmm.nextSegmentWithTxnIndex(tp, 0, 0);
        assertEquals(withTxn.remoteLogSegmentId(), next.orElseThrow().remoteLogSegmentId());
        assertFalse(next.get().isTxnIdxEmpty());
        assertFalse(rlmm.nextSegmentWithTxnIndex(tp, 0, 200).isPresent());
    }

    @Test
    public void contractViolationsAreRefused() throws Exception {
        RemoteLogSegmentMetadata md = Segments.started(tp, 0, 9, 10);
        RemoteLogSegmentMetadata finishedState = md.createWithUpdates(
                update(md, RemoteLogSegmentState.COPY_SEGMENT_FINISHED));
        assertThrows(IllegalArgumentException.class, () -> rlmm.addRemoteLogSegmentMetadata(finishedState));
        assertThrows(RemoteResourceNotFoundException.class, () -> rlmm.updateRemoteLogSegmentMetadata(
                update(md, RemoteLogSegmentState.COPY_SEGMENT_FINISHED)));
        rlmm.addRemoteLogSegmentMetadata(md).join();
        assertThrows(IllegalArgumentException.class, () -> rlmm.updateRemoteLogSegmentMetadata(
                update(md, RemoteLogSegmentState.COPY_SEGMENT_STARTED)));
        // Backwards: DELETE_SEGMENT_FINISHED straight from COPY_SEGMENT_STARTED is refused.
        RemoteStorageException invalid = assertThrows(RemoteStorageException.class,
                () -> rlmm.updateRemoteLogSegmentMetadata(update(md, RemoteLogSegmentState.DELETE_SEGMENT_FINISHED)));
        assertFalse(invalid instanceof RemoteResourceNotFoundException);
        // Self-transitions are harmless retries.
        rlmm.updateRemoteLogSegmentMetadata(update(md, RemoteLogSegmentState.COPY_SEGMENT_FINISHED)).join();
        rlmm.updateRemoteLogSegmentMetadata(update(md, RemoteLogSegmentState.COPY_SEGMENT_FINISHED)).join();
    }

    @Test
    public void partitionDeletesNotificationsAndReadiness() throws Exception {
        rlmm.putRemotePartitionDeleteMetadata(new RemotePartitionDeleteMetadata(tp,
                RemotePartitionDeleteState.DELETE_PARTITION_MARKED, 1L, 1)).join();
        rlmm.putRemotePartitionDeleteMetadata(new RemotePartitionDeleteMetadata(tp,
                RemotePartitionDeleteState.DELETE_PARTITION_STARTED, 2L, 1)).join();
        assertThrows(RemoteStorageException.class, () -> rlmm.putRemotePartitionDeleteMetadata(
                new RemotePartitionDeleteMetadata(tp, RemotePartitionDeleteState.DELETE_PARTITION_MARKED, 3L, 1)));
        rlmm.onPartitionLeadershipChanges(Collections.singleton(tp), Collections.emptySet());
        rlmm.onStopPartitions(Collections.singleton(tp));
        // The leadership change loads the partition on a background thread; while that holds it,
        // isReady answers false and the broker asks again. So does this test, for a bounded time.
        assertTrue(readyWithin(tp, 10_000));
    }

    /** Whether {@code partition} turns ready within {@code millis}, asked every 10 ms. */
    private boolean readyWithin(TopicIdPartition partition, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (!rlmm.isReady(partition)) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    @Test
    public void aRestartedManagerReadsEverythingBack() throws Exception {
        RemoteLogSegmentMetadata md = Segments.started(tp, 0, 99, 1000);
        rlmm.addRemoteLogSegmentMetadata(md).join();
        rlmm.updateRemoteLogSegmentMetadata(update(md, RemoteLogSegmentState.COPY_SEGMENT_FINISHED)).join();
        rlmm.close();
        KrabkaRemoteLogMetadataManager restarted = new KrabkaRemoteLogMetadataManager();
        restarted.configure(config);
        try {
            assertTrue(restarted.isReady(tp));
            assertEquals(md.remoteLogSegmentId(),
                    restarted.remoteLogSegmentMetadata(tp, 0, 50).orElseThrow().remoteLogSegmentId());
            assertEquals(Optional.of(99L), restarted.highestOffsetForEpoch(tp, 0));
        } finally {
            restarted.close();
        }
    }

    @Test
    public void theInMemoryManagerNeedsItsLossAccepted() throws Exception {
        Map<String, Object> memory = new HashMap<>();
        memory.put("broker.id", 1);
        memory.put("metadata.manager", "memory");
        ConfigException refused = assertThrows(ConfigException.class,
                () -> new KrabkaRemoteLogMetadataManager().configure(memory));
        assertTrue(refused.getMessage(),
                refused.getMessage().contains("metadata.memory.loss.on.restart.accepted"));
        memory.put("metadata.memory.loss.on.restart.accepted", "true");
        KrabkaRemoteLogMetadataManager inMemory = new KrabkaRemoteLogMetadataManager();
        inMemory.configure(memory);
        try {
            inMemory.addRemoteLogSegmentMetadata(Segments.started(tp, 0, 9, 10)).join();
            assertEquals(1, list(inMemory.listRemoteLogSegments(tp)).size());
        } finally {
            inMemory.close();
        }
    }

    @Test
    public void callsAfterCloseFailCleanly() throws Exception {
        rlmm.close();
        rlmm.close();
        RemoteStorageException closed = assertThrows(RemoteStorageException.class,
                () -> rlmm.listRemoteLogSegments(tp));
        assertTrue(closed.getCause() instanceof IllegalStateException);
        assertFalse(rlmm.isReady(tp));
        rlmm.onStopPartitions(Collections.singleton(tp));
    }
}
