/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage.tools;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.krabka.remote.storage.KrabkaRemoteLogMetadataManager;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.storage.RemoteLogMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteMetadata;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteState;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The import of {@code __remote_log_metadata} into the durable manager, run as its command line
 * on partition directories written in Kafka's on-disk format, into a filesystem store read back
 * by a fresh {@link KrabkaRemoteLogMetadataManager}.
 */
public class ImportTopicBasedMetadataTest {
    @Rule
    public final TemporaryFolder tmp = new TemporaryFolder();

    private Path logDir;
    private Path tier;
    private Path config;
    private final TopicIdPartition orders0 = new TopicIdPartition(Uuid.randomUuid(), 0, "orders");
    private final TopicIdPartition orders1 = new TopicIdPartition(orders0.topicId(), 1, "orders");
    private final TopicIdPartition gone = new TopicIdPartition(Uuid.randomUuid(), 0, "gone");
    private long clock = 1_700_000_000_000L;

    /** What one run printed and returned. */
    private static final class Run {
        final int code;
        final String out;
        final String err;

        Run(int code, String out, String err) {
            this.code = code;
            this.out = out;
            this.err = err;
        }
    }

    @Before
    public void setUp() throws IOException {
        logDir = tmp.newFolder("data").toPath();
        Files.write(logDir.resolve(".lock"), new byte[0]);
        tier = tmp.newFolder("tier").toPath();
        config = tmp.getRoot().toPath().resolve("server.properties");
        Files.write(config, Arrays.asList(
                "log.dirs=" + logDir,
                "remote.log.metadata.manager.class.name=" + KrabkaRemoteLogMetadataManager.class.getName(),
                "rlmm.config.backend=filesystem",
                "rlmm.config.filesystem.root=" + tier,
                "rsm.config.filesystem.root=" + tier), StandardCharsets.UTF_8);
    }

    private Run run(String... extra) {
        List<String> args = new ArrayList<>(Arrays.asList("--log-dir", logDir.toString(),
                "--config", config.toString()));
        args.addAll(Arrays.asList(extra));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = ImportTopicBasedMetadata.run(args.toArray(new String[0]),
                new PrintStream(out, true), new PrintStream(err, true));
        return new Run(code, out.toString(), err.toString());
    }

    private RemoteLogSegmentMetadata added(TopicIdPartition tp, long start, long end,
            Map<Integer, Long> epochs) {
        return new RemoteLogSegmentMetadata(new RemoteLogSegmentId(tp, Uuid.randomUuid()), start, end,
                clock + end, 1, clock++, (int) (end - start + 1) * 100, Optional.empty(),
                RemoteLogSegmentState.COPY_SEGMENT_STARTED, epochs, start % 200 != 0);
    }

    private RemoteLogSegmentMetadata added(TopicIdPartition tp, long start, long end) {
        Map<Integer, Long> epochs = new TreeMap<>();
        epochs.put(0, start);
        return added(tp, start, end, epochs);
    }

    private RemoteLogSegmentMetadataUpdate update(RemoteLogSegmentMetadata segment,
            RemoteLogSegmentState state) {
        return new RemoteLogSegmentMetadataUpdate(segment.remoteLogSegmentId(), clock++,
                Optional.empty(), state, 1);
    }

    /** {@code segment} added and updated to each of {@code states}. */
    private List<RemoteLogMetadata> lifecycle(RemoteLogSegmentMetadata segment,
            RemoteLogSegmentState... states) {
        List<RemoteLogMetadata> events = new ArrayList<>();
        events.add(segment);
        for (RemoteLogSegmentState state : states) {
            events.add(update(segment, state));
        }
        return events;
    }

    private static <T> List<T> list(java.util.Iterator<T> iterator) {
        List<T> out = new ArrayList<>();
        iterator.forEachRemaining(out::add);
        return out;
    }

    private KrabkaRemoteLogMetadataManager manager() {
        Map<String, Object> configs = new HashMap<>();
        configs.put("filesystem.root", tier.toString());
        KrabkaRemoteLogMetadataManager manager = new KrabkaRemoteLogMetadataManager();
        manager.configure(configs);
        return manager;
    }

    /** Every file of the store's metadata histories. */
    private List<Path> storeFiles() throws IOException {
        Path root = tier.resolve("remote-log-metadata");
        if (!Files.exists(root)) {
            return new ArrayList<>();
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).sorted().collect(Collectors.toList());
        }
    }

    private static final RemoteLogSegmentState STARTED = RemoteLogSegmentState.COPY_SEGMENT_STARTED;
    private static final RemoteLogSegmentState FINISHED = RemoteLogSegmentState.COPY_SEGMENT_FINISHED;
    private static final RemoteLogSegmentState DELETING = RemoteLogSegmentState.DELETE_SEGMENT_STARTED;
    private static final RemoteLogSegmentState DELETED = RemoteLogSegmentState.DELETE_SEGMENT_FINISHED;

    @Test
    public void importsEveryPartitionsHistoryAndARerunWritesNothing() throws Exception {
        RemoteLogSegmentMetadata kept = added(orders0, 0, 99);
        RemoteLogSegmentMetadata expired = added(orders0, 100, 199);
        RemoteLogSegmentMetadata deleting = added(orders0, 200, 249);
        Map<Integer, Long> twoEpochs = new TreeMap<>();
        twoEpochs.put(0, 250L);
        twoEpochs.put(1, 300L);
        RemoteLogSegmentMetadata later = added(orders0, 250, 349, twoEpochs);
        RemoteLogSegmentMetadata dangling = added(orders0, 350, 449);
        RemoteLogSegmentMetadata other = added(orders1, 0, 49);
        RemoteLogSegmentMetadata ofGone = added(gone, 0, 9);
        // Metadata partition 0: orders-0 and gone-0, interleaved as brokers write them.
        List<RemoteLogMetadata> first = new ArrayList<>(lifecycle(kept, FINISHED));
        first.addAll(lifecycle(ofGone, FINISHED));
        first.addAll(lifecycle(expired, FINISHED, DELETING, DELETED));
        first.addAll(lifecycle(deleting, FINISHED, DELETING));
        for (RemotePartitionDeleteState state : RemotePartitionDeleteState.values()) {
            first.add(new RemotePartitionDeleteMetadata(gone, state, clock++, 1));
        }
        first.addAll(lifecycle(later, FINISHED));
        first.add(dangling);
        MetadataLogFixture.writePartition(logDir, 0, first, 7, 3);
        MetadataLogFixture.writePartition(logDir, 1, lifecycle(other, FINISHED), 10, 10);

        Run run = run("--metadata-partitions", "2");
        assertEquals(run.err, 0, run.code);
        assertTrue(run.out, run.out.contains("partitions: 2 imported, 1 deleted before the import"));
        assertTrue(run.out, run.out.contains("segments: 5 in the store (1 COPY_SEGMENT_STARTED, "
                + "3 COPY_SEGMENT_FINISHED, 1 DELETE_SEGMENT_STARTED), 1 deleted before the import"));
        assertTrue(run.out, run.out.contains("events: 10 imported, 0 already in the store, "
                + "9 of deleted segments or partitions"));

        try (KrabkaRemoteLogMetadataManager rlmm = manager()) {
            List<RemoteLogSegmentMetadata> segments = list(rlmm.listRemoteLogSegments(orders0));
            assertEquals(Arrays.asList(kept.remoteLogSegmentId(), deleting.remoteLogSegmentId(),
                    later.remoteLogSegmentId(), dangling.remoteLogSegmentId()),
                    segments.stream().map(RemoteLogSegmentMetadata::remoteLogSegmentId)
                            .collect(Collectors.toList()));
            assertEquals(Arrays.asList(FINISHED, DELETING, FINISHED, STARTED), segments.stream()
                    .map(RemoteLogSegmentMetadata::state).collect(Collectors.toList()));
            assertEquals(kept.remoteLogSegmentId(),
                    rlmm.remoteLogSegmentMetadata(orders0, 0, 42).orElseThrow().remoteLogSegmentId());
            assertEquals(later.remoteLogSegmentId(),
                    rlmm.remoteLogSegmentMetadata(orders0, 1, 320).orElseThrow().remoteLogSegmentId());
            assertEquals(Optional.of(299L), rlmm.highestOffsetForEpoch(orders0, 0));
            assertFalse(rlmm.remoteLogSegmentMetadata(orders0, 0, 150).isPresent());
            assertEquals(other.remoteLogSegmentId(),
                    rlmm.remoteLogSegmentMetadata(orders1, 0, 7).orElseThrow().remoteLogSegmentId());
            assertTrue(list(rlmm.listRemoteLogSegments(gone)).isEmpty());
        }

        List<Path> before = storeFiles();
        Run again = run("--metadata-partitions", "2");
        assertEquals(again.err, 0, again.code);
        assertTrue(again.out, again.out.contains("events: 0 imported, 10 already in the store, "
                + "9 of deleted segments or partitions"));
        assertEquals(before, storeFiles());
    }

    @Test
    public void putsTheStepsOfAnUnfinishedPartitionDeletionAndOnARerunOnlyTheLastAgain()
            throws Exception {
        RemoteLogSegmentMetadata segment = added(orders0, 0, 99);
        List<RemoteLogMetadata> events = new ArrayList<>(lifecycle(segment, FINISHED));
        events.add(new RemotePartitionDeleteMetadata(orders0,
                RemotePartitionDeleteState.DELETE_PARTITION_MARKED, clock++, 1));
        events.add(new RemotePartitionDeleteMetadata(orders0,
                RemotePartitionDeleteState.DELETE_PARTITION_STARTED, clock++, 1));
        MetadataLogFixture.writePartition(logDir, 0, events, 100, 2);

        Run run = run("--metadata-partitions", "1");
        assertEquals(run.err, 0, run.code);
        assertTrue(run.out, run.out.contains("events: 4 imported, 0 already in the store"));
        int records = storeFiles().size();

        // The store is at DELETE_PARTITION_STARTED: MARKED is refused as a step it is past, and
        // STARTED is put again as a harmless retry, one record.
        Run again = run("--metadata-partitions", "1");
        assertEquals(again.err, 0, again.code);
        assertTrue(again.out, again.out.contains("events: 1 imported, 3 already in the store"));
        assertEquals(records + 1, storeFiles().size());
        try (KrabkaRemoteLogMetadataManager rlmm = manager()) {
            assertEquals(segment.remoteLogSegmentId(),
                    rlmm.remoteLogSegmentMetadata(orders0, 0, 5).orElseThrow().remoteLogSegmentId());
            // A step backwards is refused: the store really holds STARTED.
            assertThrows(Exception.class, () -> rlmm.putRemotePartitionDeleteMetadata(
                    new RemotePartitionDeleteMetadata(orders0,
                            RemotePartitionDeleteState.DELETE_PARTITION_MARKED, clock++, 1)).get());
        }
    }

    @Test
    public void continuesAnImportThatStoppedHalfway() throws Exception {
        RemoteLogSegmentMetadata a = added(orders0, 0, 99);
        RemoteLogSegmentMetadata b = added(orders0, 100, 199);
        List<RemoteLogMetadata> events = new ArrayList<>(lifecycle(a, FINISHED, DELETING));
        events.addAll(lifecycle(b, FINISHED));
        MetadataLogFixture.writePartition(logDir, 0, events, 100, 1);
        // What a run that crashed after its third write left in the store.
        try (KrabkaRemoteLogMetadataManager rlmm = manager()) {
            rlmm.addRemoteLogSegmentMetadata(a).get();
            rlmm.updateRemoteLogSegmentMetadata((RemoteLogSegmentMetadataUpdate) events.get(1)).get();
            rlmm.addRemoteLogSegmentMetadata(b).get();
        }

        Run run = run("--metadata-partitions", "1");
        assertEquals(run.err, 0, run.code);
        assertTrue(run.out, run.out.contains("events: 2 imported, 3 already in the store, 0 of"));
        try (KrabkaRemoteLogMetadataManager rlmm = manager()) {
            List<RemoteLogSegmentMetadata> segments = list(rlmm.listRemoteLogSegments(orders0));
            assertEquals(Arrays.asList(DELETING, FINISHED), segments.stream()
                    .map(RemoteLogSegmentMetadata::state).collect(Collectors.toList()));
        }
    }

    @Test
    public void stopsAtACorruptBatchWithoutWritingIt() throws Exception {
        RemoteLogSegmentMetadata a = added(orders0, 0, 99);
        Path dir = MetadataLogFixture.writePartition(logDir, 0, lifecycle(a, FINISHED), 100, 2);
        Path segment = dir.resolve(String.format("%020d.log", 0));
        byte[] bytes = Files.readAllBytes(segment);
        bytes[bytes.length - 10] ^= 0x01;
        Files.write(segment, bytes);

        Run run = run("--metadata-partitions", "1");
        assertEquals(run.out, ImportTopicBasedMetadata.EXIT_FAILED, run.code);
        assertTrue(run.err, run.err.contains("corrupt batch at byte 0 of " + segment));
        assertTrue(storeFiles().isEmpty());
    }

    @Test
    public void stopsAtARecordThatIsNotAnEvent() throws Exception {
        Path dir = MetadataLogFixture.writePartition(logDir, 0, lifecycle(added(orders0, 0, 99)), 100, 1);
        byte[] notAnEvent = {0, 99, 0, 1, 2, 3};
        Files.write(dir.resolve(String.format("%020d.log", 0)),
                MetadataLogFixture.batchOfValues(1, Arrays.asList(notAnEvent)), StandardOpenOption.APPEND);

        Run run = run("--metadata-partitions", "1");
        assertEquals(run.out, ImportTopicBasedMetadata.EXIT_FAILED, run.code);
        assertTrue(run.err, run.err.contains("__remote_log_metadata-0 offset 1 does not decode as an "
                + "event of TopicBasedRemoteLogMetadataManager"));
        assertTrue(storeFiles().isEmpty());
    }

    @Test
    public void stopsAtAnEventTheManagerRefusesNamingIt() throws Exception {
        RemoteLogSegmentMetadata a = added(orders0, 0, 99);
        RemoteLogSegmentMetadata neverAdded = added(orders0, 100, 199);
        List<RemoteLogMetadata> events = new ArrayList<>(lifecycle(a, FINISHED));
        events.add(update(neverAdded, FINISHED));
        MetadataLogFixture.writePartition(logDir, 0, events, 100, 1);

        Run run = run("--metadata-partitions", "1");
        assertEquals(run.out, ImportTopicBasedMetadata.EXIT_FAILED, run.code);
        assertTrue(run.err, run.err.contains("__remote_log_metadata-0 offset 2: the durable manager "
                + "refused COPY_SEGMENT_FINISHED of segment " + neverAdded.remoteLogSegmentId().id()));
        // What came before the refused event is in the store; a rerun skips it.
        try (KrabkaRemoteLogMetadataManager rlmm = manager()) {
            assertEquals(1, list(rlmm.listRemoteLogSegments(orders0)).size());
        }
    }

    @Test
    public void refusesAStoreBrokersAlreadyTieredInto() throws Exception {
        MetadataLogFixture.writePartition(logDir, 0, lifecycle(added(orders0, 0, 99), FINISHED), 100, 1);
        try (KrabkaRemoteLogMetadataManager rlmm = manager()) {
            rlmm.addRemoteLogSegmentMetadata(added(orders0, 100, 199)).get();
        }
        Run run = run("--metadata-partitions", "1");
        assertEquals(run.out, ImportTopicBasedMetadata.EXIT_FAILED, run.code);
        assertTrue(run.err, run.err.contains("brokers have already tiered with the durable manager"));
    }

    @Test
    public void readsPastAnIncompleteLastBatchButNotACorruptMiddle() throws Exception {
        RemoteLogSegmentMetadata a = added(orders0, 0, 99);
        Path dir = MetadataLogFixture.writePartition(logDir, 0, lifecycle(a, FINISHED), 1, 1);
        Path last = dir.resolve(String.format("%020d.log", 1));
        byte[] partial = Arrays.copyOf(MetadataLogFixture.batch(2, lifecycle(added(orders0, 100, 199))), 30);
        Files.write(last, partial, StandardOpenOption.APPEND);

        Run run = run("--metadata-partitions", "1");
        assertEquals(run.err, 0, run.code);
        assertTrue(run.err, run.err.contains(last + " ends in an incomplete batch (30 bytes"));
        assertTrue(run.out, run.out.contains("events: 2 imported"));

        Files.write(dir.resolve(String.format("%020d.log", 0)), partial, StandardOpenOption.APPEND);
        Run corrupt = run("--metadata-partitions", "1");
        assertEquals(corrupt.out, ImportTopicBasedMetadata.EXIT_FAILED, corrupt.code);
        assertTrue(corrupt.err, corrupt.err.contains("and a later segment follows"));
    }

    @Test
    public void refusesToStartBesideABrokerOrWithoutEveryPartition() throws Exception {
        MetadataLogFixture.writePartition(logDir, 0, lifecycle(added(orders0, 0, 99), FINISHED), 100, 1);
        MetadataLogFixture.writePartition(logDir, 1, new ArrayList<RemoteLogMetadata>(), 100, 1);
        try (FileChannel channel = FileChannel.open(logDir.resolve(".lock"), StandardOpenOption.WRITE);
             FileLock lock = channel.lock()) {
            Run run = run("--metadata-partitions", "2");
            assertEquals(run.out, ImportTopicBasedMetadata.EXIT_CANNOT_START, run.code);
            assertTrue(run.err, run.err.contains("is in use: a broker holds"));
            assertTrue(lock.isValid());
        }
        Run missing = run("--metadata-partitions", "4");
        assertEquals(missing.out, ImportTopicBasedMetadata.EXIT_CANNOT_START, missing.code);
        assertTrue(missing.err, missing.err.contains("holds partition(s) [2, 3] of __remote_log_metadata"));
        Run beyond = run("--metadata-partitions", "1");
        assertEquals(beyond.out, ImportTopicBasedMetadata.EXIT_CANNOT_START, beyond.code);
        assertTrue(storeFiles().isEmpty());
        // An empty partition is fine.
        Run ok = run("--metadata-partitions", "2");
        assertEquals(ok.err, 0, ok.code);
    }

    @Test
    public void refusesAConfigurationThatIsNotTheDurableManagers() throws Exception {
        MetadataLogFixture.writePartition(logDir, 0, lifecycle(added(orders0, 0, 99), FINISHED), 100, 1);
        Files.write(config, Arrays.asList("remote.log.metadata.manager.class.name=org.apache.kafka.server."
                + "log.remote.metadata.storage.TopicBasedRemoteLogMetadataManager",
                "rlmm.config.remote.log.metadata.topic.num.partitions=1"), StandardCharsets.UTF_8);
        Run old = run("--metadata-partitions", "1");
        assertEquals(ImportTopicBasedMetadata.EXIT_CANNOT_START, old.code);
        assertTrue(old.err, old.err.contains("give the configuration the brokers will use after the switch"));

        Files.write(config, Arrays.asList("rlmm.config.metadata.manager=memory",
                "rlmm.config.metadata.memory.loss.on.restart.accepted=true"), StandardCharsets.UTF_8);
        assertEquals(ImportTopicBasedMetadata.EXIT_CANNOT_START, run("--metadata-partitions", "1").code);

        Files.write(config, Arrays.asList("rlmm.config.filesystem.root=" + tier,
                "rlmm.config.no.such.key=1"), StandardCharsets.UTF_8);
        Run unknown = run("--metadata-partitions", "1");
        assertEquals(ImportTopicBasedMetadata.EXIT_CANNOT_START, unknown.code);
        assertTrue(unknown.err, unknown.err.contains("no.such.key"));

        assertEquals(ImportTopicBasedMetadata.EXIT_USAGE, run("--metadata-partitions", "x").code);
        assertTrue(storeFiles().isEmpty());
    }
}
