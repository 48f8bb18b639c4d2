/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata.CustomMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Apache Kafka's {@link RemoteStorageManager} over krabka-remote-storage's Rust tiers: the
 * filesystem tier ({@code LocalTieredStorage}), S3 and GCS, chosen by {@code rsm.config.backend}
 * (see {@link KrabkaRemoteStorageManagerConfig}).
 *
 * <p>Safe for the broker's concurrency: copier, expiration, reader, follower and metadata threads
 * may call at once, and {@link #close()} may race with late calls (they fail with
 * {@link RemoteStorageException}; state in use stays alive until they return). Every method turns
 * whatever it catches, {@link Error}s and Rust panics included, into a
 * {@link RemoteStorageException}; missing segments and indexes (the transaction index too) are
 * {@code RemoteResourceNotFoundException}, and on Kafka 4.2+ transient backend faults are
 * {@code RetriableRemoteStorageException}.
 *
 * <p>A copy whose thread is interrupted (the broker cancels copies of a partition whose
 * leadership moved) returns within {@value #CANCEL_POLL_MS} ms with a
 * {@link RemoteStorageException}; the native copy then removes what it wrote.
 *
 * <p>In write-once archive mode ({@code rsm.config.worm.enabled=true}) the tier refuses every
 * delete. {@link #deleteLogSegmentData} then logs one WARN per segment (starting with
 * {@value RetainedSegmentLog#PREFIX}) and returns normally, so Kafka records the segment as
 * deleted, stops referencing it and retention advances; the objects stay in the bucket until its
 * retention expires.
 *
 * <p>Its metrics (docs/metrics.md) are published through a JMX reporter of its own, under the
 * domain {@value PluginMetricsSet#JMX_DOMAIN}, on every Kafka 4.x. On Kafka 4.1+ configure
 * {@link KrabkaMonitorableRemoteStorageManager} instead to have them in the broker's own metrics
 * (KIP-877); it is this class plus {@code Monitorable}, which Kafka 4.0 lacks.
 */
public class KrabkaRemoteStorageManager implements RemoteStorageManager {
    /** How often a waiting copy checks its thread's interrupt flag. */
    static final long CANCEL_POLL_MS = 50;

    /** {@code NativeBridge.delete}: the segment's objects are gone (or never were there). */
    static final int DELETE_DELETED = 0;
    /** {@code NativeBridge.delete}: the write-once archive refused the delete and keeps them. */
    static final int DELETE_RETAINED_BY_ARCHIVE = 1;

    private static final Logger LOG = LoggerFactory.getLogger(KrabkaRemoteStorageManager.class);

    private final RetainedSegmentLog retained;

    private volatile NativeResource storage;

    private final PluginMetricsSet metrics = new PluginMetricsSet(this::handle);

    /** Called by the broker; {@link #configure} must follow. */
    public KrabkaRemoteStorageManager() {
        this(LOG::warn, LOG::info);
    }

    /**
     * With the WORM retention warnings sent to {@code warn} and the per-segment lines to {@code
     * info} instead of the logger (tests).
     */
    KrabkaRemoteStorageManager(Consumer<String> warn, Consumer<String> info) {
        retained = new RetainedSegmentLog(RetainedSegmentLog.DEFAULT_CAPACITY, warn, info);
    }

    @Override
    public void configure(Map<String, ?> configs) {
        KrabkaRemoteStorageManagerConfig config = new KrabkaRemoteStorageManagerConfig(configs);
        try {
            NativeLibrary.load(config.nativeLibraryPath());
            long handle = NativeBridge.rsmOpen(Wire.config(config.nativeEntries()));
            NativeResource previous = storage;
            storage = new NativeResource(this, "remote storage manager", handle,
                    NativeBridge::rsmClose);
            if (previous != null) {
                previous.close();
            }
            metrics.publishOwn();
            LOG.info("Configured krabka remote storage manager with backend {}{}",
                    config.getString(ConfigKeys.BACKEND_CONFIG),
                    config.wormEnabled() ? ", write-once archive mode on (key id "
                            + config.getString(ConfigKeys.WORM_KEY_ID_CONFIG)
                            + (config.getBoolean(ConfigKeys.WORM_WRITE_ONLY_CONFIG)
                                    ? ", write-only)" : ")")
                            : "");
        } catch (ConfigException e) {
            throw e;
        } catch (RemoteStorageException e) {
            // The native side refused the configuration (its message names the key).
            throw new ConfigException("Invalid krabka remote storage configuration: " + e.getMessage());
        } catch (Throwable t) {
            throw new KafkaException("Could not start the krabka remote storage manager: " + t.getMessage(), t);
        }
    }

    @Override
    public Optional<CustomMetadata> copyLogSegmentData(RemoteLogSegmentMetadata metadata,
            LogSegmentData data) throws RemoteStorageException {
        try {
            if (Thread.currentThread().isInterrupted()) {
                throw new RemoteStorageException("Copy of " + metadata.remoteLogSegmentId()
                        + " not started: the thread is interrupted", new InterruptedException());
            }
            long op = NativeBridge.copyStart(handle(), Wire.metadata(metadata), path(data.logSegment()),
                    path(data.offsetIndex()), path(data.timeIndex()),
                    data.transactionIndex().map(KrabkaRemoteStorageManager::path).orElse(null),
                    data.producerSnapshotIndex() == null ? null : path(data.producerSnapshotIndex()),
                    bytes(data.leaderEpochIndex()));
            try {
                while (!NativeBridge.copyAwait(op, CANCEL_POLL_MS)) {
                    if (Thread.interrupted()) {
                        Thread.currentThread().interrupt();
                        throw new RemoteStorageException("Copy of " + metadata.remoteLogSegmentId()
                                + " was interrupted; the partial copy is being removed",
                                new InterruptedException());
                    }
                }
                byte[] custom = NativeBridge.copyResult(op);
                return custom == null ? Optional.empty() : Optional.of(new CustomMetadata(custom));
            } finally {
                NativeBridge.copyRelease(op);
            }
        } catch (Throwable t) {
            throw Failures.wrap("Copy of " + metadata.remoteLogSegmentId(), t);
        }
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata metadata, int startPosition)
            throws RemoteStorageException {
        return open(metadata, startPosition, -1);
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata metadata, int startPosition,
            int endPosition) throws RemoteStorageException {
        if (endPosition < 0) {
            throw new RemoteStorageException("endPosition " + endPosition + " is negative");
        }
        return open(metadata, startPosition, endPosition);
    }

    private InputStream open(RemoteLogSegmentMetadata metadata, long start, long end)
            throws RemoteStorageException {
        try {
            if (start < 0) {
                throw new RemoteStorageException("startPosition " + start + " is negative");
            }
            return new NativeSegmentInputStream(
                    NativeBridge.fetchOpen(handle(), Wire.metadata(metadata), start, end));
        } catch (Throwable t) {
            throw Failures.wrap("Fetch of " + metadata.remoteLogSegmentId(), t);
        }
    }

    @Override
    public InputStream fetchIndex(RemoteLogSegmentMetadata metadata, IndexType indexType)
            throws RemoteStorageException {
        try {
            return new ByteArrayInputStream(
                    NativeBridge.fetchIndex(handle(), Wire.metadata(metadata), indexCode(indexType)));
        } catch (Throwable t) {
            throw Failures.wrap("Fetch of the " + indexType + " index of "
                    + metadata.remoteLogSegmentId(), t);
        }
    }

    /**
     * Deletes the segment's objects; returns normally when they are already gone. In write-once
     * archive mode the objects stay: this logs one WARN for the first such segment of a partition
     * and an INFO line for each later one (none for a repeat), and returns normally, so that Kafka
     * finishes the delete instead of retrying it forever (also when tiered storage is turned off
     * for a topic with {@code remote.log.delete.on.disable=true}, KIP-950).
     */
    @Override
    public void deleteLogSegmentData(RemoteLogSegmentMetadata metadata) throws RemoteStorageException {
        try {
            deleted(metadata, NativeBridge.delete(handle(), Wire.metadata(metadata)));
        } catch (Throwable t) {
            throw Failures.wrap("Delete of " + metadata.remoteLogSegmentId(), t);
        }
    }

    /** Acts on the outcome code of {@code NativeBridge.delete} for {@code metadata}. */
    void deleted(RemoteLogSegmentMetadata metadata, int outcome) throws RemoteStorageException {
        switch (outcome) {
            case DELETE_DELETED:
                return;
            case DELETE_RETAINED_BY_ARCHIVE:
                retained.report(metadata);
                return;
            default:
                throw new RemoteStorageException("Delete of " + metadata.remoteLogSegmentId()
                        + ": unknown outcome code " + outcome + " from the native library");
        }
    }

    @Override
    public void close() {
        metrics.close();
        NativeResource current = storage;
        if (current != null) {
            current.close();
        }
    }

    /** The metrics of this storage manager, for the Kafka 4.1+ subclass. */
    final PluginMetricsSet metrics() {
        return metrics;
    }

    private long handle() {
        NativeResource current = storage;
        if (current == null) {
            throw new IllegalStateException("the remote storage manager is not configured");
        }
        return current.handle();
    }

    private static int indexCode(IndexType type) {
        switch (type) {
            case OFFSET:
                return 0;
            case TIMESTAMP:
                return 1;
            case PRODUCER_SNAPSHOT:
                return 2;
            case TRANSACTION:
                return 3;
            case LEADER_EPOCH:
                return 4;
            default:
                throw new IllegalArgumentException("unknown index type " + type);
        }
    }

    private static String path(Path path) {
        return path.toAbsolutePath().toString();
    }

    private static byte[] bytes(ByteBuffer buffer) {
        if (buffer == null) {
            return new byte[0];
        }
        ByteBuffer view = buffer.duplicate();
        byte[] bytes = new byte[view.remaining()];
        view.get(bytes);
        return bytes;
    }
}
