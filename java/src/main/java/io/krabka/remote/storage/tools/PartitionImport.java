/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage.tools;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.storage.RemoteLogMetadataManager;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteMetadata;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteState;

/**
 * Brings one partition's history in a {@link RemoteLogMetadataManager} up to what
 * {@code __remote_log_metadata} says, replaying the partition's events in their order, then checks
 * the result with a second manager that reads the store afresh.
 *
 * <p>What is written, and why a rerun writes nothing new:
 * <ul>
 *   <li>A partition whose remote deletion finished ({@code DELETE_PARTITION_FINISHED}) is not
 *       imported: Kafka's own manager forgets such a partition too.
 *   <li>A segment whose last event is {@code DELETE_SEGMENT_FINISHED} is not imported when the
 *       store does not hold it: it is gone from the tier, and no query of a manager sees it.
 *   <li>An event of a segment is skipped when the store already holds the segment in that state
 *       or a later one ({@code COPY_SEGMENT_STARTED < COPY_SEGMENT_FINISHED <
 *       DELETE_SEGMENT_STARTED < DELETE_SEGMENT_FINISHED}); every other event is written, through
 *       the manager's own checks of Kafka's transition rules.
 *   <li>The steps of a partition's deletion ({@code DELETE_PARTITION_MARKED}, {@code STARTED})
 *       are put in order; a step the store refuses because it is already past it is skipped, but
 *       the last step must be accepted (a repeated step is a harmless retry).
 * </ul>
 * A store that holds a segment the topic does not know means brokers already ran with the durable
 * manager: the partition is refused, since the topic's history is no longer the whole story.
 */
final class PartitionImport {
    private final TopicIdPartition partition;
    private final List<MetadataTopicLog.Event> events;
    /** Each segment's last state in the topic. */
    private final Map<Uuid, RemoteLogSegmentState> finalStates = new HashMap<>();
    /** The segments the topic leaves, as Kafka's manager would hold them. */
    private final Map<Uuid, RemoteLogSegmentMetadata> expected = new LinkedHashMap<>();
    private RemotePartitionDeleteState finalDelete;
    private int lastDeleteEvent = -1;

    /** What happened to one partition. */
    static final class Result {
        final TopicIdPartition partition;
        boolean deleted;
        int imported;
        int alreadyHeld;
        int ofDeleted;
        int segmentsDeleted;
        final Map<RemoteLogSegmentState, Integer> segments = new EnumMap<>(RemoteLogSegmentState.class);

        Result(TopicIdPartition partition) {
            this.partition = partition;
        }

        int segmentsHeld() {
            return segments.values().stream().mapToInt(Integer::intValue).sum();
        }
    }

    PartitionImport(TopicIdPartition partition, List<MetadataTopicLog.Event> events) {
        this.partition = partition;
        this.events = events;
        for (int i = 0; i < events.size(); i++) {
            Object metadata = events.get(i).metadata;
            if (metadata instanceof RemoteLogSegmentMetadata) {
                RemoteLogSegmentMetadata segment = (RemoteLogSegmentMetadata) metadata;
                finalStates.put(segment.remoteLogSegmentId().id(), segment.state());
                expected.put(segment.remoteLogSegmentId().id(), segment);
            } else if (metadata instanceof RemoteLogSegmentMetadataUpdate) {
                RemoteLogSegmentMetadataUpdate update = (RemoteLogSegmentMetadataUpdate) metadata;
                Uuid id = update.remoteLogSegmentId().id();
                finalStates.put(id, update.state());
                RemoteLogSegmentMetadata known = expected.get(id);
                if (update.state() == RemoteLogSegmentState.DELETE_SEGMENT_FINISHED) {
                    expected.remove(id);
                } else if (known != null) {
                    expected.put(id, known.createWithUpdates(update));
                }
            } else if (metadata instanceof RemotePartitionDeleteMetadata) {
                finalDelete = ((RemotePartitionDeleteMetadata) metadata).state();
                lastDeleteEvent = i;
            }
        }
    }

    /**
     * Writes what the store lacks through {@code writer}, then checks with {@code checker} (a
     * manager over the same store that has not read this partition yet).
     *
     * @throws ImportException when the manager refuses an event or the store cannot be read or
     *     written, the store holds segments the topic does not know, or the check finds the
     *     store's segments unlike the topic's
     */
    Result run(RemoteLogMetadataManager writer, RemoteLogMetadataManager checker)
            throws ImportException {
        Result result = new Result(partition);
        if (finalDelete == RemotePartitionDeleteState.DELETE_PARTITION_FINISHED) {
            result.deleted = true;
            result.ofDeleted = events.size();
            return result;
        }
        Map<Uuid, RemoteLogSegmentState> held = new HashMap<>();
        for (RemoteLogSegmentMetadata segment : list(writer, "reading what the store holds")) {
            Uuid id = segment.remoteLogSegmentId().id();
            if (!finalStates.containsKey(id)) {
                throw new ImportException(partition + ": the store already holds segment " + id
                        + ", which " + MetadataTopicLog.TOPIC + " does not know: brokers have "
                        + "already tiered with the durable manager, so the topic is no longer the "
                        + "partition's whole history; the import must run before they start with it");
            }
            held.put(id, segment.state());
        }
        for (int i = 0; i < events.size(); i++) {
            MetadataTopicLog.Event event = events.get(i);
            if (event.metadata instanceof RemotePartitionDeleteMetadata) {
                putDelete(writer, event, i == lastDeleteEvent, result);
            } else {
                replaySegmentEvent(writer, event, held, result);
            }
        }
        for (Uuid id : finalStates.keySet()) {
            if (finalStates.get(id) == RemoteLogSegmentState.DELETE_SEGMENT_FINISHED) {
                result.segmentsDeleted++;
            }
        }
        verify(checker, result);
        return result;
    }

    private void replaySegmentEvent(RemoteLogMetadataManager writer, MetadataTopicLog.Event event,
            Map<Uuid, RemoteLogSegmentState> held, Result result) throws ImportException {
        RemoteLogSegmentMetadata added = event.metadata instanceof RemoteLogSegmentMetadata
                ? (RemoteLogSegmentMetadata) event.metadata : null;
        RemoteLogSegmentMetadataUpdate update = added == null
                ? (RemoteLogSegmentMetadataUpdate) event.metadata : null;
        Uuid id = added != null ? added.remoteLogSegmentId().id() : update.remoteLogSegmentId().id();
        RemoteLogSegmentState state = added != null ? added.state() : update.state();
        RemoteLogSegmentState have = held.get(id);
        if (have == null && finalStates.get(id) == RemoteLogSegmentState.DELETE_SEGMENT_FINISHED) {
            result.ofDeleted++;
            return;
        }
        if (have != null && have.id() >= state.id()) {
            result.alreadyHeld++;
            return;
        }
        try {
            if (added != null) {
                writer.addRemoteLogSegmentMetadata(added).get();
            } else {
                writer.updateRemoteLogSegmentMetadata(update).get();
            }
        } catch (Exception e) {
            throw refused(event, state + " of segment " + id, e);
        }
        result.imported++;
        if (state == RemoteLogSegmentState.DELETE_SEGMENT_FINISHED) {
            held.remove(id);
        } else {
            held.put(id, state);
        }
    }

    private void putDelete(RemoteLogMetadataManager writer, MetadataTopicLog.Event event,
            boolean last, Result result) throws ImportException {
        RemotePartitionDeleteMetadata delete = (RemotePartitionDeleteMetadata) event.metadata;
        try {
            writer.putRemotePartitionDeleteMetadata(delete).get();
            result.imported++;
        } catch (Exception e) {
            if (last) {
                throw refused(event, delete.state().toString(), e);
            }
            // The store is past this step; the last step decides whether it holds the right one.
            result.alreadyHeld++;
        }
    }

    /** Lists the partition with a manager that read the store afresh and compares. */
    private void verify(RemoteLogMetadataManager checker, Result result) throws ImportException {
        Map<Uuid, RemoteLogSegmentMetadata> found = new LinkedHashMap<>();
        for (RemoteLogSegmentMetadata segment : list(checker, "checking the import")) {
            found.put(segment.remoteLogSegmentId().id(), segment);
        }
        for (RemoteLogSegmentMetadata want : expected.values()) {
            RemoteLogSegmentMetadata got = found.remove(want.remoteLogSegmentId().id());
            if (got == null || !sameSegment(want, got)) {
                throw new ImportException(partition + ": after the import the store "
                        + (got == null ? "lacks segment " + want.remoteLogSegmentId().id()
                            : "holds " + got + " where " + MetadataTopicLog.TOPIC + " says " + want));
            }
            result.segments.merge(got.state(), 1, Integer::sum);
        }
        if (!found.isEmpty()) {
            throw new ImportException(partition + ": after the import the store holds segment(s) "
                    + found.keySet() + " that " + MetadataTopicLog.TOPIC + " does not");
        }
    }

    /**
     * Whether two descriptions of a segment agree on what a manager answers with: id, state,
     * offsets, leader epochs, size, largest timestamp and whether it has a transaction index
     * (event timestamps and custom metadata of updates are recorded as Kafka sent them).
     */
    private static boolean sameSegment(RemoteLogSegmentMetadata a, RemoteLogSegmentMetadata b) {
        return a.remoteLogSegmentId().equals(b.remoteLogSegmentId()) && a.state() == b.state()
                && a.startOffset() == b.startOffset() && a.endOffset() == b.endOffset()
                && a.maxTimestampMs() == b.maxTimestampMs()
                && a.segmentSizeInBytes() == b.segmentSizeInBytes()
                && a.isTxnIdxEmpty() == b.isTxnIdxEmpty()
                && Objects.equals(a.segmentLeaderEpochs(), b.segmentLeaderEpochs());
    }

    private List<RemoteLogSegmentMetadata> list(RemoteLogMetadataManager manager, String doing)
            throws ImportException {
        List<RemoteLogSegmentMetadata> segments = new ArrayList<>();
        try {
            Iterator<RemoteLogSegmentMetadata> it = manager.listRemoteLogSegments(partition);
            it.forEachRemaining(segments::add);
        } catch (Exception e) {
            throw new ImportException(partition + ": " + doing + " failed: " + e.getMessage(), e);
        }
        return segments;
    }

    private ImportException refused(MetadataTopicLog.Event event, String what, Exception e) {
        Throwable cause = e.getCause() != null && e instanceof java.util.concurrent.ExecutionException
                ? e.getCause() : e;
        return new ImportException(event.where() + ": the durable manager refused " + what + " of "
                + partition + ": " + cause.getMessage(), cause);
    }
}
