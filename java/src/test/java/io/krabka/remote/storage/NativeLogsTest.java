/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.After;
import org.junit.Before;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * What the native side logs reaches SLF4J (bound to java.util.logging in the tests) under
 * {@code io.krabka.native.<module>} at its level, a level changed on the Java side takes effect
 * natively, a flood is rate-limited and reported, and secrets never arrive. Uses the entry points
 * of the test build (cargo feature {@code panic-injection}).
 */
public class NativeLogsTest {
    private static final String HOOKS = "io.krabka.native.krabka_jni.exports.test_hooks";
    private static final String LOG_CRATE = "io.krabka.native.jni.krabka_test";

    // Strong references: java.util.logging forgets the level of a logger nobody holds.
    private static final Logger ROOT = Logger.getLogger(NativeLogs.LOGGER_PREFIX);
    private static final Logger HOOKS_LOGGER = Logger.getLogger(HOOKS);

    private static final List<LogRecord> RECORDS = new ArrayList<>();
    private static final Handler CAPTURE = new Handler() {
        @Override
        public void publish(LogRecord record) {
            synchronized (RECORDS) {
                RECORDS.add(record);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeClass
    public static void load() {
        NativeLibrary.load(null);
    }

    @Before
    public void capture() throws Exception {
        ROOT.setLevel(Level.ALL);
        ROOT.setUseParentHandlers(false);
        ROOT.addHandler(CAPTURE);
        HOOKS_LOGGER.setLevel(null);
        NativeLogs.refreshLevels();
        // Whatever earlier tests queued is not this test's.
        while (NativeLogs.drainOnce(0) > 0) {
            // drained
        }
        synchronized (RECORDS) {
            RECORDS.clear();
        }
    }

    @After
    public void release() {
        ROOT.removeHandler(CAPTURE);
        ROOT.setUseParentHandlers(true);
        ROOT.setLevel(null);
        HOOKS_LOGGER.setLevel(null);
    }

    @Test
    public void recordsArriveUnderTheirModulesLoggerAtTheirLevelWithPartitionAndSegment()
            throws Exception {
        NativeBridge.testLog(2, "native warning", 1);
        NativeBridge.testLog(5, "native trace", 1);
        NativeBridge.testLogViaLog(4, "a log-crate debug record");

        LogRecord warn = await(r -> r.getMessage().contains("native warning"));
        assertEquals(HOOKS, warn.getLoggerName());
        assertEquals(Level.WARNING, warn.getLevel());
        assertEquals("segment{op=test partition=krabka-test-7 segment=seg-1}: native warning "
                + "attempt=0", warn.getMessage());

        LogRecord trace = await(r -> r.getMessage().contains("native trace"));
        assertEquals(HOOKS, trace.getLoggerName());
        assertEquals(Level.FINEST, trace.getLevel());

        LogRecord debug = await(r -> r.getMessage().contains("a log-crate debug record"));
        assertEquals(LOG_CRATE, debug.getLoggerName());
        assertEquals(Level.FINE, debug.getLevel());
    }

    @Test
    public void aLevelChangedInJavaFiltersNativelyAndCanBeUndone() throws Exception {
        // The native side learns the target when it first logs.
        NativeBridge.testLog(2, "target known", 1);
        await(r -> r.getMessage().contains("target known"));

        HOOKS_LOGGER.setLevel(Level.WARNING);
        NativeLogs.refreshLevels();
        long queued = NativeBridge.logStats()[0];
        NativeBridge.testLog(3, "filtered info", 5);
        NativeBridge.testLog(4, "filtered debug", 5);
        assertEquals("disabled records are not even queued", queued, NativeBridge.logStats()[0]);
        NativeBridge.testLog(2, "still a warning", 1);
        await(r -> r.getMessage().contains("still a warning"));

        HOOKS_LOGGER.setLevel(Level.INFO);
        NativeLogs.refreshLevels();
        NativeBridge.testLog(3, "info again", 1);
        LogRecord info = await(r -> r.getMessage().contains("info again"));
        assertEquals(Level.INFO, info.getLevel());
        assertFalse(seen(r -> r.getMessage().contains("filtered")));
    }

    @Test
    public void aFloodIsRateLimitedAndTheSuppressedCountReported() throws Exception {
        long suppressed = NativeBridge.logStats()[2];
        NativeBridge.testLogFlood(1000);
        long now = NativeBridge.logStats()[2];
        assertTrue("suppressed " + (now - suppressed), now - suppressed >= 700);
        LogRecord report = await(r -> r.getMessage().contains("suppressed by the rate limit"));
        assertEquals(HOOKS + ".flood", report.getLoggerName());
        assertEquals(Level.WARNING, report.getLevel());
    }

    @Test
    public void aWarningRetriedManyTimesIsLoggedOnce() throws Exception {
        // Five WARNs of one kind (one call site, one message; only their attempt field differs),
        // as a retry loop writes them during an outage.
        NativeBridge.testLog(2, "retried failure", 5);
        NativeBridge.testLog(2, "after the retries", 1);
        await(r -> r.getMessage().contains("after the retries"));
        int copies = 0;
        synchronized (RECORDS) {
            for (LogRecord record : RECORDS) {
                if (record.getMessage().contains("retried failure")) {
                    copies++;
                }
            }
        }
        assertEquals("records of the retried failure", 1, copies);
    }

    @Test
    public void secretsNeverReachTheLog() throws Exception {
        String secret = "s3cr3t-" + System.nanoTime();
        NativeBridge.testLogSecrets(secret);
        await(r -> r.getLoggerName().equals(HOOKS) && r.getMessage().startsWith("secrets test"));
        await(r -> r.getLoggerName().equals(LOG_CRATE) && r.getMessage().startsWith("secrets test"));
        synchronized (RECORDS) {
            for (LogRecord record : RECORDS) {
                assertFalse(record.getMessage(), record.getMessage().contains(secret));
            }
        }
    }

    @Test
    public void loggerNamesFollowTheRustModulePath() {
        assertEquals("io.krabka.native.krabka_remote_storage.archive.archiver",
                NativeLogs.loggerName("krabka_remote_storage::archive::archiver"));
    }

    /** Drains until a record matches, for up to ten seconds. */
    private static LogRecord await(Predicate<LogRecord> match) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            synchronized (RECORDS) {
                for (LogRecord record : RECORDS) {
                    if (match.test(record)) {
                        return record;
                    }
                }
            }
            NativeLogs.drainOnce(50);
        }
        synchronized (RECORDS) {
            fail("no such record among " + RECORDS.size());
        }
        return null;
    }

    private static boolean seen(Predicate<LogRecord> match) {
        synchronized (RECORDS) {
            return RECORDS.stream().anyMatch(match);
        }
    }
}
