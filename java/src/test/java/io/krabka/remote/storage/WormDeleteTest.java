/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.junit.After;
import org.junit.Before;
import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Deletes in write-once archive mode: the native side decides that an archive kept the segment
 * (seam: {@code testDeleteOutcome} of the test build runs the same Rust mapping as
 * {@code delete}), and the adapter warns once per partition, notes each later segment at INFO,
 * and returns normally. A WORM-mode tier
 * itself needs a locked S3 bucket; the broker end-to-end run covers that.
 */
public class WormDeleteTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private final List<String> warnings = Collections.synchronizedList(new ArrayList<>());
    private final List<String> infos = Collections.synchronizedList(new ArrayList<>());
    private KrabkaRemoteStorageManager rsm;

    @BeforeClass
    public static void load() {
        NativeLibrary.load(null);
    }

    @Before
    public void setUp() throws Exception {
        rsm = new KrabkaRemoteStorageManager(warnings::add, infos::add);
        Map<String, Object> config = new HashMap<>();
        config.put("filesystem.root", tmp.newFolder("tier").toString());
        config.put("broker.id", 1);
        rsm.configure(config);
    }

    @After
    public void tearDown() {
        rsm.close();
    }

    @Test
    public void theNativeSideReportsAnArchiveRefusalAsRetainedAndNothingElse() throws Exception {
        assertEquals(KrabkaRemoteStorageManager.DELETE_RETAINED_BY_ARCHIVE,
                NativeBridge.testDeleteOutcome(true, 1));
        assertEquals(KrabkaRemoteStorageManager.DELETE_DELETED, NativeBridge.testDeleteOutcome(true, 0));
        assertEquals(KrabkaRemoteStorageManager.DELETE_DELETED, NativeBridge.testDeleteOutcome(false, 0));
        // A refusal from a tier that is not an archive, and other failures of an archive, throw.
        assertThrows(RemoteStorageException.class, () -> NativeBridge.testDeleteOutcome(false, 1));
        assertThrows(RemoteStorageException.class, () -> NativeBridge.testDeleteOutcome(true, 2));
    }

    @Test
    public void aPartitionWarnsOnceAndTheDeleteReturnsNormally() throws Exception {
        TopicIdPartition orders = Segments.partition("orders", 3);
        RemoteLogSegmentMetadata first = Segments.started(orders, 100, 199, 10);
        RemoteLogSegmentMetadata second = Segments.started(orders, 200, 299, 10);
        int retained = NativeBridge.testDeleteOutcome(true, 1);

        rsm.deleted(first, retained);
        rsm.deleted(first, retained);
        rsm.deleted(first, retained);
        assertEquals(warnings.toString(), 1, warnings.size());
        String warning = warnings.get(0);
        assertTrue(warning, warning.startsWith(RetainedSegmentLog.PREFIX));
        assertTrue(warning, warning.contains(first.remoteLogSegmentId().id().toString()));
        assertTrue(warning, warning.contains("orders-3"));
        assertTrue(warning, warning.contains("offsets 100-199"));
        assertTrue(infos.toString(), infos.isEmpty());

        rsm.deleted(second, retained);
        assertEquals(warnings.toString(), 1, warnings.size());
        assertEquals(infos.toString(), 1, infos.size());
        assertTrue(infos.get(0), infos.get(0).startsWith(RetainedSegmentLog.SEGMENT_PREFIX));
        assertTrue(infos.get(0), infos.get(0).contains(second.remoteLogSegmentId().id().toString()));
    }

    @Test
    public void turningTieringOffWithDeletionWarnsOncePerPartition() throws Exception {
        // KIP-950: Kafka deletes every remote segment of each partition at once.
        int retained = NativeBridge.testDeleteOutcome(true, 1);
        for (int partition = 0; partition < 2; partition++) {
            TopicIdPartition tp = Segments.partition("audit", partition);
            for (long start = 0; start < 500; start += 100) {
                rsm.deleted(Segments.started(tp, start, start + 99, 10), retained);
            }
        }
        assertEquals(warnings.toString(), 2, warnings.size());
        assertTrue(warnings.get(0), warnings.get(0).contains("audit-0"));
        assertTrue(warnings.get(1), warnings.get(1).contains("audit-1"));
        assertEquals(infos.toString(), 8, infos.size());
    }

    @Test
    public void realDeletesWarnNothingAndUnknownOutcomesThrow() throws Exception {
        RemoteLogSegmentMetadata md = Segments.started(Segments.partition("orders", 0), 0, 9, 10);
        rsm.deleteLogSegmentData(md);
        rsm.deleted(md, KrabkaRemoteStorageManager.DELETE_DELETED);
        assertTrue(warnings.toString(), warnings.isEmpty());
        assertThrows(RemoteStorageException.class, () -> rsm.deleted(md, 7));
    }

    @Test
    public void theDedupeIsBoundedAndForgetsTheLeastRecentSegment() {
        List<String> out = new ArrayList<>();
        RetainedSegmentLog log = new RetainedSegmentLog(2, out::add, out::add);
        TopicIdPartition tp = Segments.partition("orders", 0);
        RemoteLogSegmentMetadata a = Segments.started(tp, 0, 9, 10);
        RemoteLogSegmentMetadata b = Segments.started(tp, 10, 19, 10);
        RemoteLogSegmentMetadata c = Segments.started(tp, 20, 29, 10);
        assertEquals(RetainedSegmentLog.Reported.WARNED, log.report(a));
        assertEquals(RetainedSegmentLog.Reported.NOTED, log.report(b));
        assertEquals(RetainedSegmentLog.Reported.REPEAT, log.report(a)); // a is now the most recent
        assertEquals(RetainedSegmentLog.Reported.NOTED, log.report(c)); // evicts b
        assertEquals(RetainedSegmentLog.Reported.REPEAT, log.report(a));
        assertEquals(RetainedSegmentLog.Reported.NOTED, log.report(b)); // forgotten, so reported again
        assertEquals(4, out.size());
        // Partitions are bounded too: a forgotten partition warns again.
        RetainedSegmentLog one = new RetainedSegmentLog(1, out::add, out::add);
        TopicIdPartition other = Segments.partition("orders", 1);
        assertEquals(RetainedSegmentLog.Reported.WARNED, one.report(a));
        assertEquals(RetainedSegmentLog.Reported.WARNED, one.report(Segments.started(other, 0, 9, 10)));
        assertEquals(RetainedSegmentLog.Reported.WARNED, one.report(b));
        assertThrows(IllegalArgumentException.class, () -> new RetainedSegmentLog(0, out::add, out::add));
    }
}
