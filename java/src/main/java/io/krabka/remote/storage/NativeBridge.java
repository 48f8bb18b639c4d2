/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import org.apache.kafka.server.log.remote.storage.RemoteStorageException;

/**
 * The native methods implemented by {@code rust/krabka-jni}. Metadata crosses as {@link Wire}
 * bytes; native state is named by {@code long} handles that stay valid until released (a
 * released handle is reported as a {@link RemoteStorageException}, never a crash). Every method
 * throws {@link RemoteStorageException} or a subclass on failure, including Rust panics.
 * {@link NativeLibrary#load} must have succeeded before any call.
 */
final class NativeBridge {
    /** Handle kinds of {@link #liveHandles}. */
    static final int STORAGE_MANAGERS = 0;
    static final int METADATA_MANAGERS = 1;
    static final int STREAMS = 2;
    static final int COPIES = 3;

    /** What {@link #rlmmHighestOffset} returns when there is no offset. */
    static final long NO_OFFSET = Long.MIN_VALUE;

    private NativeBridge() {
    }

    // Storage manager.
    static native long rsmOpen(byte[] config) throws RemoteStorageException;

    static native void rsmClose(long rsm) throws RemoteStorageException;

    static native long copyStart(long rsm, byte[] metadata, String logSegment, String offsetIndex,
            String timeIndex, String transactionIndex, String producerSnapshot,
            byte[] leaderEpochIndex) throws RemoteStorageException;

    static native boolean copyAwait(long op, long timeoutMillis) throws RemoteStorageException;

    static native byte[] copyResult(long op) throws RemoteStorageException;

    static native void copyRelease(long op) throws RemoteStorageException;

    static native long fetchOpen(long rsm, byte[] metadata, long start, long end)
            throws RemoteStorageException;

    static native int streamRead(long stream, byte[] dst, int off, int len)
            throws RemoteStorageException;

    static native void streamClose(long stream) throws RemoteStorageException;

    static native byte[] fetchIndex(long rsm, byte[] metadata, int indexType)
            throws RemoteStorageException;

    /**
     * Returns {@link KrabkaRemoteStorageManager#DELETE_DELETED} or
     * {@link KrabkaRemoteStorageManager#DELETE_RETAINED_BY_ARCHIVE}.
     */
    static native int delete(long rsm, byte[] metadata) throws RemoteStorageException;

    // Metadata manager.
    static native long rlmmOpen(byte[] config) throws RemoteStorageException;

    static native void rlmmClose(long rlmm) throws RemoteStorageException;

    static native void rlmmAdd(long rlmm, byte[] metadata) throws RemoteStorageException;

    static native void rlmmUpdate(long rlmm, byte[] update) throws RemoteStorageException;

    static native void rlmmPutPartitionDelete(long rlmm, byte[] delete)
            throws RemoteStorageException;

    static native byte[] rlmmLookup(long rlmm, byte[] partition, int epoch, long offset)
            throws RemoteStorageException;

    static native byte[] rlmmNextWithTxnIndex(long rlmm, byte[] partition, int epoch, long offset)
            throws RemoteStorageException;

    static native long rlmmHighestOffset(long rlmm, byte[] partition, int epoch)
            throws RemoteStorageException;

    static native byte[] rlmmList(long rlmm, byte[] partition) throws RemoteStorageException;

    static native byte[] rlmmListByEpoch(long rlmm, byte[] partition, int epoch)
            throws RemoteStorageException;

    static native long rlmmRemoteLogSize(long rlmm, byte[] partition, int epoch)
            throws RemoteStorageException;

    static native boolean rlmmIsReady(long rlmm, byte[] partition) throws RemoteStorageException;

    static native void rlmmLeadershipChanges(long rlmm, byte[] leaders, byte[] followers)
            throws RemoteStorageException;

    static native void rlmmStopPartitions(long rlmm, byte[] partitions)
            throws RemoteStorageException;

    /**
     * Erases the history of a partition whose topic was deleted; the outcome, starting with
     * {@code erased:}, {@code absent:}, {@code pending:} or {@code kept:}.
     */
    static native String rlmmEraseDeletedPartition(long rlmm, byte[] partition)
            throws RemoteStorageException;

    // Diagnostics.
    static native String nativeVersion() throws RemoteStorageException;

    static native int liveHandles(int kind) throws RemoteStorageException;

    /**
     * The configuration key table the library was built with: one line per plugin and key,
     * tab-separated (prefix, name, type, default, validator, importance, native or loader, doc),
     * as {@code ConfigTableTest} compares it with the {@code ConfigDef}s.
     */
    static native String configTable() throws RemoteStorageException;

    // Native logs (NativeLogs).

    /**
     * The plugin's metrics, one per line: tab-separated name, tag key, tag value (both empty
     * without a tag), kind ({@code counter} or {@code gauge}) and description.
     */
    static native String metricsCatalog() throws RemoteStorageException;

    /** Every metric's value for storage manager {@code rsm}, in catalog order. */
    static native double[] metricsSnapshot(long rsm) throws RemoteStorageException;

    /** Installs the native log bridge (once per process; later calls do nothing). */
    static native void logStart() throws RemoteStorageException;

    /** The native log targets from index {@code from} on, one per line. */
    static native String logTargets(int from) throws RemoteStorageException;

    /**
     * The most verbose enabled level (0 off, 1 error, 2 warn, 3 info, 4 debug, 5 trace) of targets
     * not seen yet and of each known target, in the order of {@link #logTargets}; true when one
     * changed.
     */
    static native boolean logLevels(byte defaultLevel, byte[] levels) throws RemoteStorageException;

    /**
     * Up to {@code maxRecords} queued native log records, waiting at most {@code waitMillis} (at
     * most one second) for the first; see {@link NativeLogs} for the format.
     */
    static native byte[] logDrain(int maxRecords, long waitMillis) throws RemoteStorageException;

    /** Native log records queued, dropped (queue full) and suppressed (rate limit) so far. */
    static native long[] logStats() throws RemoteStorageException;

    // Present only in libraries built with the `panic-injection` feature (tests).
    static native void testPanic(String message, boolean formatted) throws RemoteStorageException;

    static native void testFail(int code) throws RemoteStorageException;

    static native int testDeleteOutcome(boolean worm, int code) throws RemoteStorageException;

    static native void testLog(int level, String message, int count) throws RemoteStorageException;

    static native void testLogViaLog(int level, String message) throws RemoteStorageException;

    static native void testLogSecrets(String secret) throws RemoteStorageException;

    static native void testLogFlood(int count) throws RemoteStorageException;
}
