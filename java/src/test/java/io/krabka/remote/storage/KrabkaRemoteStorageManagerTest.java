/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata.CustomMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager.IndexType;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class KrabkaRemoteStorageManagerTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private Path tier;
    private Path local;
    private KrabkaRemoteStorageManager rsm;

    @Before
    public void setUp() throws IOException {
        tier = tmp.newFolder("tier").toPath();
        local = tmp.newFolder("local").toPath();
        rsm = configured(tier);
    }

    @After
    public void tearDown() {
        rsm.close();
    }

    static KrabkaRemoteStorageManager configured(Path root) {
        KrabkaRemoteStorageManager rsm = new KrabkaRemoteStorageManager();
        Map<String, Object> config = new HashMap<>();
        config.put("filesystem.root", root.toString());
        config.put("broker.id", 1);
        rsm.configure(config);
        return rsm;
    }

    /**
     * The regular files under {@code dir}. A file or directory that vanishes while the walk reads it
     * (an abandoned copy deleting its files meanwhile) makes the walk start again.
     */
    private static long filesUnder(Path dir) throws IOException {
        while (true) {
            try (Stream<Path> files = Files.walk(dir)) {
                return files.filter(Files::isRegularFile).count();
            } catch (java.io.UncheckedIOException e) {
                if (!(e.getCause() instanceof java.nio.file.NoSuchFileException)) {
                    throw e;
                }
            }
        }
    }

    @Test
    public void copiedSegmentsAndIndexesReadBackByteForByte() throws Exception {
        TopicIdPartition tp = Segments.partition("orders", 0);
        Segments.Local segment = Segments.write(local, 100, 300_000, true, 1);
        RemoteLogSegmentMetadata md = Segments.started(tp, 100, 199, segment.log.length);

        Optional<CustomMetadata> custom = rsm.copyLogSegmentData(md, segment.data);
        assertNotNull(custom);

        assertArrayEquals(segment.log, Segments.readAll(rsm.fetchLogSegment(md, 0)));
        assertArrayEquals(Arrays.copyOfRange(segment.log, 1000, segment.log.length),
                Segments.readAll(rsm.fetchLogSegment(md, 1000)));
        // endPosition is inclusive.
        assertArrayEquals(Arrays.copyOfRange(segment.log, 10, 100),
                Segments.readAll(rsm.fetchLogSegment(md, 10, 99)));
        // ... and clamped to the last byte.
        assertArrayEquals(Arrays.copyOfRange(segment.log, 299_990, 300_000),
                Segments.readAll(rsm.fetchLogSegment(md, 299_990, 400_000)));
        assertEquals(0, Segments.readAll(rsm.fetchLogSegment(md, 300_000)).length);

        assertArrayEquals(segment.offsetIndex, Segments.readAll(rsm.fetchIndex(md, IndexType.OFFSET)));
        assertArrayEquals(segment.timeIndex, Segments.readAll(rsm.fetchIndex(md, IndexType.TIMESTAMP)));
        assertArrayEquals(segment.txnIndex, Segments.readAll(rsm.fetchIndex(md, IndexType.TRANSACTION)));
        assertArrayEquals(segment.snapshot,
                Segments.readAll(rsm.fetchIndex(md, IndexType.PRODUCER_SNAPSHOT)));
        assertArrayEquals(segment.leaderEpoch,
                Segments.readAll(rsm.fetchIndex(md, IndexType.LEADER_EPOCH)));
        // The copy leaves the broker's leader-epoch buffer where it was.
        assertEquals(0, segment.data.leaderEpochIndex().position());
    }

    @Test
    public void smallAndLargeReadsCrossInBulk() throws Exception {
        TopicIdPartition tp = Segments.partition("orders", 1);
        Segments.Local segment = Segments.write(local, 0, 3 * 1024 * 1024, false, 2);
        RemoteLogSegmentMetadata md = Segments.started(tp, 0, 99, segment.log.length);
        rsm.copyLogSegmentData(md, segment.data);
        try (InputStream in = rsm.fetchLogSegment(md, 0)) {
            assertEquals(segment.log[0] & 0xff, in.read());
            byte[] header = new byte[11];
            assertEquals(11, in.read(header));
            assertArrayEquals(Arrays.copyOfRange(segment.log, 1, 12), header);
            // The rest of the 64 KiB buffer is already on the Java side.
            assertEquals(NativeSegmentInputStream.BUFFER_SIZE - 12, in.available());
            byte[] drain = new byte[in.available()];
            assertEquals(drain.length, in.read(drain));
            // A large read goes to the native side in one chunk of up to 1 MiB.
            byte[] big = new byte[2 * 1024 * 1024];
            assertEquals(1024 * 1024, in.read(big, 0, big.length));
            assertArrayEquals(Arrays.copyOfRange(segment.log, NativeSegmentInputStream.BUFFER_SIZE,
                    NativeSegmentInputStream.BUFFER_SIZE + 1024 * 1024), Arrays.copyOf(big, 1024 * 1024));
        }
    }

    @Test
    public void missingTransactionIndexIsResourceNotFound() throws Exception {
        TopicIdPartition tp = Segments.partition("orders", 2);
        Segments.Local segment = Segments.write(local, 0, 1000, false, 3);
        RemoteLogSegmentMetadata md = Segments.started(tp, 0, 9, segment.log.length);
        rsm.copyLogSegmentData(md, segment.data);
        assertThrows(RemoteResourceNotFoundException.class, () -> rsm.fetchIndex(md, IndexType.TRANSACTION));
        assertArrayEquals(segment.offsetIndex, Segments.readAll(rsm.fetchIndex(md, IndexType.OFFSET)));
    }

    @Test
    public void missingSegmentsAreResourceNotFound() {
        RemoteLogSegmentMetadata md = Segments.started(Segments.partition("orders", 3), 0, 9, 10);
        assertThrows(RemoteResourceNotFoundException.class, () -> rsm.fetchLogSegment(md, 0));
        assertThrows(RemoteResourceNotFoundException.class, () -> rsm.fetchIndex(md, IndexType.OFFSET));
    }

    @Test
    public void deleteIsIdempotentAndRemovesEverything() throws Exception {
        TopicIdPartition tp = Segments.partition("orders", 4);
        Segments.Local segment = Segments.write(local, 0, 1000, true, 4);
        RemoteLogSegmentMetadata md = Segments.started(tp, 0, 9, segment.log.length);
        rsm.copyLogSegmentData(md, segment.data);
        // A copy of the same segment again overwrites (Kafka's idempotency contract).
        rsm.copyLogSegmentData(md, segment.data);
        assertTrue(filesUnder(tier) >= 5);
        rsm.deleteLogSegmentData(md);
        rsm.deleteLogSegmentData(md);
        assertEquals(0, filesUnder(tier));
        assertThrows(RemoteResourceNotFoundException.class, () -> rsm.fetchLogSegment(md, 0));
        // Deleting what was never copied succeeds too.
        rsm.deleteLogSegmentData(Segments.started(tp, 10, 19, 10));
    }

    @Test
    public void invalidPositionsAreRemoteStorageExceptions() throws Exception {
        TopicIdPartition tp = Segments.partition("orders", 5);
        Segments.Local segment = Segments.write(local, 0, 1000, false, 5);
        RemoteLogSegmentMetadata md = Segments.started(tp, 0, 9, segment.log.length);
        rsm.copyLogSegmentData(md, segment.data);
        assertThrows(RemoteStorageException.class, () -> rsm.fetchLogSegment(md, -1));
        assertThrows(RemoteStorageException.class, () -> rsm.fetchLogSegment(md, 5, 4));
        assertThrows(RemoteStorageException.class, () -> rsm.fetchLogSegment(md, 1001));
    }

    @Test
    public void anInterruptedCopyReturnsPromptlyAndLeavesNothingBehind() throws Exception {
        TopicIdPartition tp = Segments.partition("orders", 6);
        Segments.Local segment = Segments.write(local, 0, 1000, false, 6);
        // A FIFO as the log file: the native copy blocks opening it until a writer appears.
        Path fifo = local.resolve("blocked.log");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertEquals(0, mkfifo.waitFor());
        org.apache.kafka.server.log.remote.storage.LogSegmentData blocked =
                new org.apache.kafka.server.log.remote.storage.LogSegmentData(fifo,
                        segment.data.offsetIndex(), segment.data.timeIndex(), Optional.empty(),
                        segment.data.producerSnapshotIndex(), segment.data.leaderEpochIndex());
        RemoteLogSegmentMetadata md = Segments.started(tp, 0, 9, 4);

        AtomicReference<Throwable> thrown = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread copier = new Thread(() -> {
            started.countDown();
            try {
                rsm.copyLogSegmentData(md, blocked);
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        copier.start();
        started.await();
        Thread.sleep(300);
        assertTrue("the copy should be blocked on the FIFO", copier.isAlive());
        copier.interrupt();
        copier.join(30_000);
        // Promptly, without a wall-clock bound (the machine may be loaded): the native copy cannot
        // finish before the FIFO below gets a writer, so a call that waited for it would never
        // return here.
        assertFalse("the copy did not return after the interrupt", copier.isAlive());
        assertTrue(String.valueOf(thrown.get()), thrown.get() instanceof RemoteStorageException);
        assertTrue(thrown.get().getCause() instanceof InterruptedException);

        // Unblock the native copy: it finishes, sees it was cancelled, and deletes its files.
        // Opening the FIFO is enough: the copy may check its cancel flag and close its end before
        // the write below, which then fails with a broken pipe (that is no failure of the test).
        try (OutputStream out = Files.newOutputStream(fifo)) {
            out.write(new byte[] {1, 2, 3, 4});
        } catch (java.io.IOException brokenPipe) {
            // The reader was gone already.
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((filesUnder(tier) > 0 || NativeBridge.liveHandles(NativeBridge.COPIES) > 0)
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals("files of the abandoned copy", 0, filesUnder(tier));
        assertThrows(RemoteResourceNotFoundException.class, () -> rsm.fetchLogSegment(md, 0));
    }

    @Test
    public void closingAStreamFreesItAndLaterReadsFail() throws Exception {
        TopicIdPartition tp = Segments.partition("orders", 7);
        Segments.Local segment = Segments.write(local, 0, 200_000, false, 7);
        RemoteLogSegmentMetadata md = Segments.started(tp, 0, 9, segment.log.length);
        rsm.copyLogSegmentData(md, segment.data);
        int before = NativeBridge.liveHandles(NativeBridge.STREAMS);
        InputStream in = rsm.fetchLogSegment(md, 0);
        assertEquals(before + 1, NativeBridge.liveHandles(NativeBridge.STREAMS));
        assertTrue(in.read() >= 0);
        in.close();
        in.close();
        assertEquals(before, NativeBridge.liveHandles(NativeBridge.STREAMS));
        assertThrows(IOException.class, () -> in.read(new byte[100_000]));
    }

    @Test
    public void aCleanerFreesStreamsNobodyClosed() throws Exception {
        TopicIdPartition tp = Segments.partition("orders", 8);
        Segments.Local segment = Segments.write(local, 0, 10_000, false, 8);
        RemoteLogSegmentMetadata md = Segments.started(tp, 0, 9, segment.log.length);
        rsm.copyLogSegmentData(md, segment.data);
        // Streams earlier tests dropped are freed first, so that a collection during this test
        // (any thread allocating can cause one) frees only this test's streams.
        int before = NativeBridge.liveHandles(NativeBridge.STREAMS);
        for (int quiet = 0; quiet < 3; ) {
            System.gc();
            Thread.sleep(50);
            int now = NativeBridge.liveHandles(NativeBridge.STREAMS);
            quiet = now == before ? quiet + 1 : 0;
            before = now;
        }
        List<InputStream> streams = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            InputStream stream = rsm.fetchLogSegment(md, 0);
            assertTrue(stream.read() >= 0);
            streams.add(stream);
        }
        assertTrue(NativeBridge.liveHandles(NativeBridge.STREAMS) >= before + 20);
        // Nobody closes them.
        streams.clear();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (NativeBridge.liveHandles(NativeBridge.STREAMS) > before && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(50);
        }
        assertEquals(before, NativeBridge.liveHandles(NativeBridge.STREAMS));
    }

    @Test
    public void closeUnderConcurrentCallsNeverCrashesAndLateCallsFailCleanly() throws Exception {
        KrabkaRemoteStorageManager shared = configured(tier);
        TopicIdPartition tp = Segments.partition("orders", 9);
        Segments.Local segment = Segments.write(local, 0, 512 * 1024, true, 9);
        RemoteLogSegmentMetadata md = Segments.started(tp, 0, 9, segment.log.length);
        shared.copyLogSegmentData(md, segment.data);
        int managersBefore = NativeBridge.liveHandles(NativeBridge.STORAGE_MANAGERS);

        ExecutorService pool = Executors.newFixedThreadPool(8);
        CountDownLatch running = new CountDownLatch(8);
        List<Future<Integer>> workers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            final int worker = t;
            workers.add(pool.submit(() -> {
                running.countDown();
                int ok = 0;
                for (int i = 0; i < 10_000; i++) {
                    try {
                        if (worker % 2 == 0) {
                            byte[] all = Segments.readAll(shared.fetchLogSegment(md, 0));
                            if (!Arrays.equals(segment.log, all)) {
                                throw new AssertionError("a stream returned wrong bytes");
                            }
                        } else {
                            shared.fetchIndex(md, IndexType.OFFSET).close();
                        }
                        ok++;
                    } catch (RemoteStorageException | IOException expectedAfterClose) {
                        return ok;
                    }
                }
                return ok;
            }));
        }
        running.await();
        Thread.sleep(200);
        shared.close();
        shared.close();
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        for (Future<Integer> worker : workers) {
            assertTrue("every worker made progress before the close", worker.get() > 0);
        }
        assertEquals(managersBefore - 1, NativeBridge.liveHandles(NativeBridge.STORAGE_MANAGERS));
        RemoteStorageException late = assertThrows(RemoteStorageException.class,
                () -> shared.fetchLogSegment(md, 0));
        assertTrue(late.getCause() instanceof IllegalStateException);
        // The other manager over the same directory is unaffected.
        assertArrayEquals(segment.log, Segments.readAll(rsm.fetchLogSegment(md, 0)));
    }

    @Test
    public void callsBeforeConfigureAreRemoteStorageExceptions() {
        KrabkaRemoteStorageManager fresh = new KrabkaRemoteStorageManager();
        RemoteLogSegmentMetadata md = Segments.started(Segments.partition("t", 0), 0, 1, 1);
        assertThrows(RemoteStorageException.class, () -> fresh.fetchLogSegment(md, 0));
        assertThrows(RemoteStorageException.class, () -> fresh.deleteLogSegmentData(md));
        fresh.close();
    }

    @Test
    public void invalidTopicNamesAreRefusedNotWrittenOutsideTheTier() throws Exception {
        Segments.Local segment = Segments.write(local, 0, 100, false, 10);
        RemoteLogSegmentMetadata md = Segments.started(Segments.partition("../escape", 0), 0, 9, 100);
        try {
            rsm.copyLogSegmentData(md, segment.data);
            fail("a topic name with '/' must be refused");
        } catch (RemoteStorageException expected) {
            assertFalse(expected instanceof RemoteResourceNotFoundException);
        }
        assertEquals(0, filesUnder(tier));
    }
}
