/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards what the native library logs to SLF4J (see {@code docs/logging.md}).
 *
 * <p>The native side never calls into the JVM to log: it queues rendered records (bounded,
 * rate-limited per target, secrets removed). One daemon thread per loaded library,
 * {@value #THREAD_NAME}, takes them in batches with one {@link NativeBridge#logDrain} call and
 * logs each under {@code io.krabka.native.<Rust module path with "::" as ".">} at its level. The
 * same thread tells the native side which level each of those loggers has enabled (after a batch
 * that names new targets, and every {@value #LEVEL_REFRESH_MS} ms), so a level changed in the
 * broker's log4j configuration takes effect within about a second, and records of a disabled
 * level are never formatted natively.
 *
 * <p>The thread is a daemon and runs for the life of the process (it idles in the native drain,
 * which waits at most {@value #WAIT_MS} ms); it never dies of an exception.
 *
 * <p>Batch format (big-endian): {@code u32} targets the native side knows, {@code u32} record
 * count, then per record {@code u8} level (1 error … 5 trace), {@code u16} target length, target
 * (UTF-8), {@code u32} message length, message (UTF-8).
 */
final class NativeLogs {
    /** The parent of every native logger. */
    static final String LOGGER_PREFIX = "io.krabka.native";
    static final String THREAD_NAME = "krabka-native-log";
    /** Records per drain call. */
    static final int MAX_RECORDS = 512;
    /** How long a drain call waits for a first record. */
    static final long WAIT_MS = 200;
    /** How often the levels of the native loggers are read again. */
    static final long LEVEL_REFRESH_MS = 1000;
    /** Loggers of targets beyond the native table (never expected) are not cached past this. */
    private static final int MAX_CACHED_LOGGERS = 4096;

    private static final Logger LOG = LoggerFactory.getLogger(NativeLogs.class);

    private static boolean started; // guarded by NativeLogs.class

    /** Serialises drain cycles and level updates (the thread and tests). */
    private static final Object CYCLE = new Object();
    // Guarded by CYCLE:
    private static final List<String> targets = new ArrayList<>();
    private static final List<Logger> targetLoggers = new ArrayList<>();
    private static final Map<String, Logger> loggers = new HashMap<>();
    private static byte[] sentLevels = new byte[0];
    private static byte sentDefault = -1;
    private static long lastRefresh;

    private NativeLogs() {
    }

    /**
     * Installs the native side and starts the drain thread, once per loaded library. Never
     * throws: when the bridge cannot start, the broker runs on and says so once.
     */
    static synchronized void start() {
        if (started) {
            return;
        }
        started = true;
        try {
            NativeBridge.logStart();
            refreshLevels();
        } catch (Throwable t) {
            LOG.warn("The krabka native library's own log records will not reach this log: {}",
                    t.toString());
            return;
        }
        Thread thread = new Thread(NativeLogs::run, THREAD_NAME);
        thread.setDaemon(true);
        thread.start();
    }

    private static void run() {
        while (true) {
            try {
                drainOnce(WAIT_MS);
            } catch (LinkageError e) {
                LOG.warn("Stopped forwarding native log records: {}", e.toString());
                return;
            } catch (Throwable t) {
                LOG.warn("Could not forward native log records; retrying in a second", t);
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /**
     * One drain cycle: takes a batch (waiting at most {@code waitMillis} for it), logs it, and
     * sends the levels when targets are new or the refresh interval passed.
     *
     * @return the number of records logged
     */
    static int drainOnce(long waitMillis) throws Exception {
        synchronized (CYCLE) {
            ByteBuffer batch = ByteBuffer.wrap(NativeBridge.logDrain(MAX_RECORDS, waitMillis));
            int known = batch.getInt();
            int count = batch.getInt();
            for (int i = 0; i < count; i++) {
                int level = batch.get();
                String target = utf8(batch, batch.getShort() & 0xffff);
                String message = utf8(batch, batch.getInt());
                log(logger(target), level, message);
            }
            if (known > targets.size()
                    || System.nanoTime() - lastRefresh >= LEVEL_REFRESH_MS * 1_000_000L) {
                refreshLevels();
            }
            return count;
        }
    }

    /**
     * Reads the enabled level of every native logger and sends them to the native side when one
     * changed.
     */
    static void refreshLevels() throws Exception {
        synchronized (CYCLE) {
            String added = NativeBridge.logTargets(targets.size());
            if (!added.isEmpty()) {
                for (String target : added.split("\n", -1)) {
                    targets.add(target);
                    targetLoggers.add(LoggerFactory.getLogger(loggerName(target)));
                }
            }
            byte[] levels = new byte[targets.size()];
            for (int i = 0; i < levels.length; i++) {
                levels[i] = level(targetLoggers.get(i));
            }
            byte defaultLevel = level(LoggerFactory.getLogger(LOGGER_PREFIX));
            if (defaultLevel != sentDefault || !Arrays.equals(levels, sentLevels)) {
                NativeBridge.logLevels(defaultLevel, levels);
                sentLevels = levels;
                sentDefault = defaultLevel;
            }
            lastRefresh = System.nanoTime();
        }
    }

    /** The logger of a native target: {@code krabka_remote_storage::archive} → {@code
     * io.krabka.native.krabka_remote_storage.archive}. */
    static String loggerName(String target) {
        return LOGGER_PREFIX + "." + target.replace("::", ".");
    }

    /** The most verbose level {@code logger} has enabled, as a native level code. */
    static byte level(Logger logger) {
        if (logger.isTraceEnabled()) {
            return 5;
        }
        if (logger.isDebugEnabled()) {
            return 4;
        }
        if (logger.isInfoEnabled()) {
            return 3;
        }
        if (logger.isWarnEnabled()) {
            return 2;
        }
        return logger.isErrorEnabled() ? (byte) 1 : (byte) 0;
    }

    private static Logger logger(String target) {
        Logger logger = loggers.get(target);
        if (logger == null) {
            logger = LoggerFactory.getLogger(loggerName(target));
            if (loggers.size() < MAX_CACHED_LOGGERS) {
                loggers.put(target, logger);
            }
        }
        return logger;
    }

    private static void log(Logger logger, int level, String message) {
        switch (level) {
            case 1:
                logger.error(message);
                break;
            case 2:
                logger.warn(message);
                break;
            case 3:
                logger.info(message);
                break;
            case 4:
                logger.debug(message);
                break;
            default:
                logger.trace(message);
                break;
        }
    }

    private static String utf8(ByteBuffer buffer, int length) {
        String text = new String(buffer.array(), buffer.position(), length, StandardCharsets.UTF_8);
        buffer.position(buffer.position() + length);
        return text;
    }
}
