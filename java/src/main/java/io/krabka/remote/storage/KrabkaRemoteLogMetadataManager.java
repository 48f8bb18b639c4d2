/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.server.log.remote.storage.RemoteLogMetadataManager;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Apache Kafka's {@link RemoteLogMetadataManager} over krabka-remote-storage's Rust metadata
 * managers.
 *
 * <p>By default ({@code metadata.manager=store}) the metadata is <b>durable</b>: each partition's
 * history lives in the store the {@code rlmm.config.*} store keys name (the same keys as the
 * storage manager's, so both can point at one directory or bucket), as create-only records and
 * snapshots; no Kafka topic is needed, and a restarted broker reads everything back (see
 * {@code docs/metadata.md}). {@code metadata.manager=memory} keeps metadata in broker memory only,
 * for tests: {@link #configure} refuses it unless
 * {@code metadata.memory.loss.on.restart.accepted=true}, and then warns.
 *
 * <p>Follows the visibility rules of Kafka's own managers: offset lookups and
 * {@code highestOffsetForEpoch} see only {@code COPY_SEGMENT_FINISHED} segments; listings return
 * every segment not yet {@code DELETE_SEGMENT_FINISHED}, sorted by start offset. Methods declared
 * to throw {@link RemoteStorageException} turn anything else they catch into one; argument
 * contract violations are {@link IllegalArgumentException} as the interface specifies.
 */
public final class KrabkaRemoteLogMetadataManager implements RemoteLogMetadataManager {
    private static final Logger LOG = LoggerFactory.getLogger(KrabkaRemoteLogMetadataManager.class);

    static final String NOT_DURABLE_WARNING = "KrabkaRemoteLogMetadataManager runs with "
            + "metadata.manager=memory: remote log metadata lives in broker memory only, and after a "
            + "broker restart tiered data becomes unreadable. Use it for tests; leave "
            + "metadata.manager at its default (store) for durable metadata.";

    private volatile NativeResource manager;
    private volatile DeletedTopicEraser eraser;

    /** Called by the broker; {@link #configure} must follow. */
    public KrabkaRemoteLogMetadataManager() {
    }

    @Override
    public void configure(Map<String, ?> configs) {
        KrabkaRemoteLogMetadataManagerConfig config = new KrabkaRemoteLogMetadataManagerConfig(configs);
        try {
            NativeLibrary.load(config.nativeLibraryPath());
            long handle = NativeBridge.rlmmOpen(Wire.config(config.nativeEntries()));
            NativeResource previous = manager;
            manager = new NativeResource(this, "remote log metadata manager", handle,
                    NativeBridge::rlmmClose);
            if (previous != null) {
                previous.close();
            }
        } catch (ConfigException e) {
            throw e;
        } catch (RemoteStorageException e) {
            // The native side refused the configuration (its message names the key).
            throw new ConfigException("Invalid krabka remote log metadata configuration: "
                    + e.getMessage());
        } catch (Throwable t) {
            throw new KafkaException("Could not start the krabka remote log metadata manager: "
                    + t.getMessage(), t);
        }
        Map<String, Object> admin = config.adminClientConfig();
        DeletedTopicEraser previousEraser = eraser;
        if (!config.inMemory() && admin.containsKey("bootstrap.servers")) {
            eraser = DeletedTopicEraser.overAdmin(admin, this::eraseDeletedPartition);
        } else {
            eraser = null;
            if (!config.inMemory()) {
                LOG.info("remote.log.metadata.manager.listener.name is not set: the metadata "
                        + "histories of deleted topics stay in the store (krabka-tier fsck finds "
                        + "them); set it so the manager can ask the cluster which topics were "
                        + "deleted");
            }
        }
        if (previousEraser != null) {
            previousEraser.close();
        }
        if (config.inMemory()) {
            LOG.warn(NOT_DURABLE_WARNING);
        } else {
            LOG.info("Configured krabka remote log metadata manager: durable, in backend {}",
                    config.getString(ConfigKeys.BACKEND_CONFIG));
        }
    }

    @Override
    public CompletableFuture<Void> addRemoteLogSegmentMetadata(RemoteLogSegmentMetadata metadata)
            throws RemoteStorageException {
        if (metadata.state() != RemoteLogSegmentState.COPY_SEGMENT_STARTED) {
            throw new IllegalArgumentException("Given remoteLogSegmentMetadata should have state as "
                    + RemoteLogSegmentState.COPY_SEGMENT_STARTED + " but it contains state as: "
                    + metadata.state());
        }
        try {
            NativeBridge.rlmmAdd(handle(), Wire.metadata(metadata));
            return CompletableFuture.completedFuture(null);
        } catch (Throwable t) {
            throw Failures.wrap("Adding " + metadata.remoteLogSegmentId(), t);
        }
    }

    @Override
    public CompletableFuture<Void> updateRemoteLogSegmentMetadata(RemoteLogSegmentMetadataUpdate update)
            throws RemoteStorageException {
        if (update.state() == RemoteLogSegmentState.COPY_SEGMENT_STARTED) {
            throw new IllegalArgumentException("Given remoteLogSegmentMetadata should not have the state as: "
                    + RemoteLogSegmentState.COPY_SEGMENT_STARTED);
        }
        try {
            NativeBridge.rlmmUpdate(handle(), Wire.update(update));
            return CompletableFuture.completedFuture(null);
        } catch (Throwable t) {
            throw Failures.wrap("Updating " + update.remoteLogSegmentId(), t);
        }
    }

    @Override
    public Optional<RemoteLogSegmentMetadata> remoteLogSegmentMetadata(TopicIdPartition partition,
            int epochForOffset, long offset) throws RemoteStorageException {
        try {
            return Wire.optionalMetadata(NativeBridge.rlmmLookup(handle(), Wire.partition(partition),
                    epochForOffset, offset));
        } catch (Throwable t) {
            throw Failures.wrap("Looking up offset " + offset + " of " + partition, t);
        }
    }

    @Override
    public Optional<Long> highestOffsetForEpoch(TopicIdPartition partition, int leaderEpoch)
            throws RemoteStorageException {
        try {
            long offset = NativeBridge.rlmmHighestOffset(handle(), Wire.partition(partition), leaderEpoch);
            return offset == NativeBridge.NO_OFFSET ? Optional.empty() : Optional.of(offset);
        } catch (Throwable t) {
            throw Failures.wrap("Highest offset of epoch " + leaderEpoch + " of " + partition, t);
        }
    }

    @Override
    public CompletableFuture<Void> putRemotePartitionDeleteMetadata(
            RemotePartitionDeleteMetadata metadata) throws RemoteStorageException {
        try {
            NativeBridge.rlmmPutPartitionDelete(handle(), Wire.partitionDelete(metadata));
            return CompletableFuture.completedFuture(null);
        } catch (Throwable t) {
            throw Failures.wrap("Partition delete " + metadata, t);
        }
    }

    @Override
    public Iterator<RemoteLogSegmentMetadata> listRemoteLogSegments(TopicIdPartition partition)
            throws RemoteStorageException {
        try {
            return Wire.metadataList(NativeBridge.rlmmList(handle(), Wire.partition(partition)))
                    .iterator();
        } catch (Throwable t) {
            throw Failures.wrap("Listing segments of " + partition, t);
        }
    }

    @Override
    public Iterator<RemoteLogSegmentMetadata> listRemoteLogSegments(TopicIdPartition partition,
            int leaderEpoch) throws RemoteStorageException {
        try {
            return Wire.metadataList(NativeBridge.rlmmListByEpoch(handle(), Wire.partition(partition),
                    leaderEpoch)).iterator();
        } catch (Throwable t) {
            throw Failures.wrap("Listing segments of epoch " + leaderEpoch + " of " + partition, t);
        }
    }

    @Override
    public Optional<RemoteLogSegmentMetadata> nextSegmentWithTxnIndex(TopicIdPartition partition,
            int epoch, long offset) throws RemoteStorageException {
        try {
            return Wire.optionalMetadata(NativeBridge.rlmmNextWithTxnIndex(handle(),
                    Wire.partition(partition), epoch, offset));
        } catch (Throwable t) {
            throw Failures.wrap("Next segment with a transaction index after " + offset + " of "
                    + partition, t);
        }
    }

    @Override
    public long remoteLogSize(TopicIdPartition partition, int leaderEpoch)
            throws RemoteStorageException {
        try {
            return NativeBridge.rlmmRemoteLogSize(handle(), Wire.partition(partition), leaderEpoch);
        } catch (Throwable t) {
            throw Failures.wrap("Remote log size of " + partition, t);
        }
    }

    @Override
    public boolean isReady(TopicIdPartition partition) {
        try {
            return NativeBridge.rlmmIsReady(handle(), Wire.partition(partition));
        } catch (Throwable t) {
            // Not declared to throw: report not ready, which makes the broker skip and retry.
            LOG.warn("Readiness check of {} failed: {}", partition, t.toString());
            return false;
        }
    }

    @Override
    public void onPartitionLeadershipChanges(Set<TopicIdPartition> leaderPartitions,
            Set<TopicIdPartition> followerPartitions) {
        try {
            NativeBridge.rlmmLeadershipChanges(handle(), Wire.partitions(leaderPartitions),
                    Wire.partitions(followerPartitions));
        } catch (Throwable t) {
            // Runs on the broker's metadata thread, which must not see an exception from a plugin.
            LOG.warn("Leadership change notification failed: {}", t.toString());
        }
    }

    @Override
    public void onStopPartitions(Set<TopicIdPartition> partitions) {
        try {
            NativeBridge.rlmmStopPartitions(handle(), Wire.partitions(partitions));
        } catch (Throwable t) {
            LOG.warn("Stop-partitions notification failed: {}", t.toString());
        }
        DeletedTopicEraser current = eraser;
        if (current != null) {
            current.stopped(partitions);
        }
    }

    /** Erases the history of {@code partition}, whose topic was deleted; the native outcome. */
    private String eraseDeletedPartition(TopicIdPartition partition) {
        try {
            return NativeBridge.rlmmEraseDeletedPartition(handle(), Wire.partition(partition));
        } catch (Throwable t) {
            return "pending: " + t;
        }
    }

    @Override
    public void close() {
        DeletedTopicEraser currentEraser = eraser;
        if (currentEraser != null) {
            currentEraser.close();
        }
        NativeResource current = manager;
        if (current != null) {
            current.close();
        }
    }

    private long handle() {
        NativeResource current = manager;
        if (current == null) {
            throw new IllegalStateException("the remote log metadata manager is not configured");
        }
        return current.handle();
    }
}
