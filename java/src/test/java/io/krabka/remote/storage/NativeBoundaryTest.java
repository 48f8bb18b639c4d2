/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Rust panics and each error class reach Java as the right Kafka exception. Uses the entry points
 * of the test build (cargo feature {@code panic-injection}).
 */
public class NativeBoundaryTest {
    private static final String RETRIABLE =
            "org.apache.kafka.server.log.remote.storage.RetriableRemoteStorageException";

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @BeforeClass
    public static void load() {
        NativeLibrary.load(null);
    }

    @Test
    public void panicsWithLiteralAndFormattedMessagesAreRemoteStorageExceptions() {
        RemoteStorageException literal = assertThrows(RemoteStorageException.class,
                () -> NativeBridge.testPanic("unused", false));
        assertEquals(RemoteStorageException.class, literal.getClass());
        assertTrue(literal.getMessage(), literal.getMessage().contains("native panic: injected panic"));

        RemoteStorageException formatted = assertThrows(RemoteStorageException.class,
                () -> NativeBridge.testPanic("offset 42 is out of range", true));
        assertTrue(formatted.getMessage(),
                formatted.getMessage().contains("native panic: offset 42 is out of range"));
        // The library keeps working after a panic.
        assertThrows(RemoteStorageException.class, () -> NativeBridge.testPanic("again", true));
    }

    @Test
    public void errorClassesMapToKafkaExceptions() throws Exception {
        assertThrows(RemoteResourceNotFoundException.class, () -> NativeBridge.testFail(0));
        RemoteStorageException corrupt = assertThrows(RemoteStorageException.class,
                () -> NativeBridge.testFail(2));
        assertEquals(RemoteStorageException.class, corrupt.getClass());

        RemoteStorageException transient_ = assertThrows(RemoteStorageException.class,
                () -> NativeBridge.testFail(1));
        Class<?> retriable = retriableClass();
        String kafka = System.getProperty("krabka.test.kafka.version", "");
        if (retriable != null) {
            assertTrue("Kafka " + kafka + " has " + RETRIABLE, retriable.isInstance(transient_));
        } else {
            assertTrue("Kafka " + kafka + " predates 4.2", kafka.startsWith("4.0") || kafka.startsWith("4.1"));
            assertEquals(RemoteStorageException.class, transient_.getClass());
        }
        // A condition of the store carries no frames (Kafka logs it at every retry); a fault does.
        assertEquals(0, transient_.getStackTrace().length);
        assertTrue(corrupt.getStackTrace().length > 0);
    }

    @Test
    public void aPanicInOneCopyDoesNotStopOtherCopies() throws Exception {
        Path tier = tmp.newFolder("tier").toPath();
        KrabkaRemoteStorageManager rsm = KrabkaRemoteStorageManagerTest.configured(tier);
        try {
            Segments.Local segment = Segments.write(tmp.newFolder("local").toPath(), 0, 5000, false, 1);
            TopicIdPartition doomed = Segments.partition("krabka-inject-panic-orders", 0);
            RemoteLogSegmentMetadata bad = Segments.started(doomed, 0, 9, segment.log.length);
            RemoteStorageException panic = assertThrows(RemoteStorageException.class,
                    () -> rsm.copyLogSegmentData(bad, segment.data));
            assertTrue(panic.getMessage(), panic.getMessage().contains("native panic: injected panic copying"));

            TopicIdPartition healthy = Segments.partition("orders", 0);
            RemoteLogSegmentMetadata good = Segments.started(healthy, 0, 9, segment.log.length);
            rsm.copyLogSegmentData(good, segment.data);
            assertArrayEquals(segment.log, Segments.readAll(rsm.fetchLogSegment(good, 0)));
        } finally {
            rsm.close();
        }
    }

    @Test
    public void staleHandlesAreRemoteStorageExceptionsNotCrashes() {
        RemoteStorageException stale = assertThrows(RemoteStorageException.class,
                () -> NativeBridge.streamRead(Long.MAX_VALUE, new byte[10], 0, 10));
        assertTrue(stale.getMessage(), stale.getMessage().contains("closed or was never opened"));
        assertThrows(RemoteStorageException.class, () -> NativeBridge.rlmmLookup(-5, new byte[0], 0, 0));
        // Malformed bytes from Java are typed errors too.
        assertThrows(RemoteStorageException.class, () -> NativeBridge.rsmOpen(new byte[] {0, 0, 0, 9}));
    }

    static Class<?> retriableClass() {
        try {
            return Class.forName(RETRIABLE);
        } catch (ClassNotFoundException e) {
            return null;
        }
    }
}
