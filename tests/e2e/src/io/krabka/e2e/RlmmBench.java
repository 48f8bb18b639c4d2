package io.krabka.e2e;

import java.io.FileReader;
import java.io.IOException;
import java.io.Reader;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.server.log.remote.metadata.storage.RemoteLogMetadataTopicPartitioner;
import org.apache.kafka.server.log.remote.metadata.storage.serialization.RemoteLogMetadataSerde;
import org.apache.kafka.server.log.remote.storage.RemoteLogMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogMetadataManager;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;

/**
 * Benchmark of a {@link RemoteLogMetadataManager}'s time to ready after a restart (run by
 * {@code scripts/bench-rlmm.sh}). The manager is named by class and built as a broker builds it
 * (no-argument constructor, {@code configure} with the {@code rlmm.config.*} keys, prefix removed, and
 * what the broker adds); the workload is a function of its options, so the load phase knows exactly
 * what it must find.
 *
 * <pre>
 * RlmmBench write|write-topic|load --class NAME --config FILE --topic-id ID [options]
 *   write        records the workload through the manager's API, then closes it; prints
 *                {"write_ms":..,"events":..}
 *   write-topic  for Kafka's TopicBasedRemoteLogMetadataManager at sizes its API is too slow for (every
 *                call waits until its consumer read the record back): the manager creates its topic,
 *                then the same events, serialized with Kafka's RemoteLogMetadataSerde, are produced
 *                straight to the metadata partition its RemoteLogMetadataTopicPartitioner picks, as the
 *                manager's own producer does (same order per partition); prints the same JSON
 *   load         a fresh manager: configure, leadership of every partition, then polls isReady and reads
 *                each ready partition back until every one lists all its segments; prints
 *                {"configure_ms":..,"first_ms":..,"all_ms":..,"heap_bytes":..,"rss_bytes":..} (times from
 *                before configure; memory: the heap in use after a GC and the process's resident set,
 *                each once all partitions are read minus before configure). Our manager's storage
 *                manager is configured first, untimed, as a broker does (it loads the native library)
 *   --partitions 100  --segments 100 (copied per partition)  --deleted 10 (of those, the oldest, deleted
 *   after the copies)  --threads 10 (writers; the broker's copier pool has 10)  --timeout-s 600
 * </pre>
 * Each segment is COPY_SEGMENT_STARTED then COPY_SEGMENT_FINISHED (50,000 offsets, about 100 MiB, a new
 * leader epoch every 25.5 segments, so some segments carry two epochs); a deleted one then
 * DELETE_SEGMENT_STARTED and DELETE_SEGMENT_FINISHED. Exits 0 when done, 1 on a failure or a wrong
 * answer, 2 on a usage error.
 */
public final class RlmmBench {
    private static final long RECORDS_PER_SEGMENT = 50_000;
    private static final long EPOCH_LENGTH = 25 * RECORDS_PER_SEGMENT + RECORDS_PER_SEGMENT / 2;
    private static final long TIME_BASE = 1_700_000_000_000L;
    private static final int BROKER = 1;
    private static final String METADATA_TOPIC = "__remote_log_metadata";
    /** Above this many partitions, a pass over the pending ones sleeps longer between polls. */
    private static final int MANY_PARTITIONS = 1_000;

    private final String managerClass;
    private final Map<String, Object> config = new HashMap<>();
    private final Uuid topicId;
    private final int partitions;
    private final int segments;
    private final int deleted;
    private final int threads;
    private final long timeoutNs;

    private RlmmBench(Map<String, String> opts) throws IOException {
        managerClass = need(opts, "class");
        Properties props = new Properties();
        try (Reader reader = new FileReader(need(opts, "config"))) {
            props.load(reader);
        }
        for (String name : props.stringPropertyNames()) {
            config.put(name, props.getProperty(name));
        }
        topicId = Uuid.fromString(need(opts, "topic-id"));
        partitions = number(opts, "partitions", 100);
        segments = number(opts, "segments", 100);
        deleted = number(opts, "deleted", 10);
        threads = number(opts, "threads", 10);
        timeoutNs = TimeUnit.SECONDS.toNanos(number(opts, "timeout-s", 600));
        if (partitions < 1 || segments < 1 || deleted < 0 || deleted >= segments || threads < 1) {
            usage("need partitions >= 1, segments >= 1, 0 <= deleted < segments, threads >= 1");
        }
    }

    public static void main(String[] argv) throws Exception {
        if (argv.length == 0 || !(argv[0].equals("write") || argv[0].equals("write-topic")
                || argv[0].equals("load"))) {
            usage("the first argument must be write, write-topic or load");
        }
        Map<String, String> opts = new HashMap<>();
        for (int i = 1; i < argv.length; i++) {
            if (!argv[i].startsWith("--") || i + 1 >= argv.length) {
                usage("bad argument " + argv[i]);
            }
            opts.put(argv[i].substring(2), argv[++i]);
        }
        RlmmBench bench = new RlmmBench(opts);
        try {
            String result = switch (argv[0]) {
                case "write" -> bench.write();
                case "write-topic" -> bench.writeTopic();
                default -> bench.load();
            };
            System.out.println(result);
        } catch (Exception | AssertionError e) {
            System.err.println("rlmm bench " + argv[0] + " failed: " + e);
            e.printStackTrace();
            System.exit(1);
        }
        // Kafka's manager leaves non-daemon threads behind when its close is slow.
        System.exit(0);
    }

    private RemoteLogMetadataManager newManager() throws ReflectiveOperationException {
        return (RemoteLogMetadataManager) Class.forName(managerClass).getDeclaredConstructor().newInstance();
    }

    /**
     * As in a broker, whose RemoteLogManager configures the storage manager before the metadata manager:
     * for our manager, our storage manager is configured first (on a scratch directory), and it loads the
     * plugin's native library, which our metadata manager then shares. Kafka's manager needs nothing first.
     * The storage manager to close at the end, or null.
     */
    private AutoCloseable storageManagerFirst() throws Exception {
        if (!managerClass.startsWith("io.krabka.")) {
            return null;
        }
        java.nio.file.Path scratch = java.nio.file.Files.createTempDirectory("rlmm-bench-rsm");
        org.apache.kafka.server.log.remote.storage.RemoteStorageManager storage =
                (org.apache.kafka.server.log.remote.storage.RemoteStorageManager)
                        Class.forName("io.krabka.remote.storage.KrabkaRemoteStorageManager")
                                .getDeclaredConstructor().newInstance();
        storage.configure(Map.of("backend", "filesystem", "filesystem.root", scratch.toString()));
        return storage;
    }

    /** Kafka 4.4+ starts TopicBasedRemoteLogMetadataManager's clients only once the broker is ready. */
    private static void brokerReady(RemoteLogMetadataManager manager) throws ReflectiveOperationException {
        for (Method method : manager.getClass().getMethods()) {
            if (method.getName().equals("onBrokerReady") && method.getParameterCount() == 0) {
                method.invoke(manager);
            }
        }
    }

    private TopicIdPartition partition(int p) {
        return new TopicIdPartition(topicId, p, "bench-rlmm");
    }

    private RemoteLogSegmentId segmentId(int p, int s) {
        return new RemoteLogSegmentId(partition(p), new Uuid(topicId.getMostSignificantBits() ^ (p + 1L),
                topicId.getLeastSignificantBits() ^ (s + 1L)));
    }

    private static long startOffset(int s) {
        return s * RECORDS_PER_SEGMENT;
    }

    private static long endOffset(int s) {
        return startOffset(s + 1) - 1;
    }

    /** The leader epochs of segment s: the epoch at its start, and any that begins inside it. */
    private static TreeMap<Integer, Long> epochs(int s) {
        TreeMap<Integer, Long> epochs = new TreeMap<>();
        int epoch = (int) (startOffset(s) / EPOCH_LENGTH);
        epochs.put(epoch, startOffset(s));
        for (long begins = (epoch + 1) * EPOCH_LENGTH; begins <= endOffset(s); begins += EPOCH_LENGTH) {
            epochs.put(++epoch, begins);
        }
        return epochs;
    }

    private RemoteLogSegmentMetadata started(int p, int s) {
        int size = 104_857_600 - (int) ((p * 7919L + s * 104_729L) % 65_536);
        return new RemoteLogSegmentMetadata(segmentId(p, s), startOffset(s), endOffset(s),
                TIME_BASE + endOffset(s), BROKER, TIME_BASE + s, size, Optional.empty(),
                RemoteLogSegmentState.COPY_SEGMENT_STARTED, epochs(s), true);
    }

    private RemoteLogSegmentMetadataUpdate update(int p, int s, RemoteLogSegmentState state) {
        return new RemoteLogSegmentMetadataUpdate(segmentId(p, s), TIME_BASE + s, Optional.empty(), state, BROKER);
    }

    private String write() throws Exception {
        RemoteLogMetadataManager manager = newManager();
        manager.configure(config);
        brokerReady(manager);
        Set<TopicIdPartition> all = new LinkedHashSet<>();
        for (int p = 0; p < partitions; p++) {
            all.add(partition(p));
        }
        manager.onPartitionLeadershipChanges(all, Set.of());
        for (TopicIdPartition tp : all) {
            awaitReady(manager, tp);
        }
        long t0 = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> done = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            int partition = p;
            done.add(pool.submit(() -> {
                writePartition(manager, partition);
                return null;
            }));
        }
        for (Future<?> future : done) {
            future.get();
        }
        long writeNs = System.nanoTime() - t0;
        pool.shutdown();
        manager.close();
        long events = (long) partitions * (2L * segments + 2L * deleted);
        return String.format("{\"write_ms\":%.1f,\"events\":%d}", writeNs / 1e6, events);
    }

    /**
     * The workload produced straight to Kafka's metadata topic (see the class comment). The manager is
     * started once so that it creates the topic as on a broker's first start.
     */
    private String writeTopic() throws Exception {
        RemoteLogMetadataManager creator = newManager();
        creator.configure(config);
        brokerReady(creator);
        creator.onPartitionLeadershipChanges(Set.of(partition(0)), Set.of());
        awaitReady(creator, partition(0));
        creator.close();
        Map<String, Object> producerConfig = new HashMap<>();
        producerConfig.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                config.get("remote.log.metadata.common.client.bootstrap.servers"));
        producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        producerConfig.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        producerConfig.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        int metadataPartitions = Integer.parseInt(String.valueOf(
                config.getOrDefault("remote.log.metadata.topic.num.partitions", "50")));
        RemoteLogMetadataTopicPartitioner partitioner = new RemoteLogMetadataTopicPartitioner(metadataPartitions);
        RemoteLogMetadataSerde serde = new RemoteLogMetadataSerde();
        long t0 = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig,
                new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int p = 0; p < partitions; p++) {
                int target = partitioner.metadataPartition(partition(p));
                for (RemoteLogMetadata event : events(p)) {
                    producer.send(new ProducerRecord<>(METADATA_TOPIC, target, null, serde.serialize(event)));
                }
            }
            producer.flush();
        }
        long writeNs = System.nanoTime() - t0;
        long events = (long) partitions * (2L * segments + 2L * deleted);
        return String.format("{\"write_ms\":%.1f,\"events\":%d}", writeNs / 1e6, events);
    }

    /** The events of partition p in the order the broker's tasks record them. */
    private List<RemoteLogMetadata> events(int p) {
        List<RemoteLogMetadata> events = new ArrayList<>();
        for (int s = 0; s < segments; s++) {
            events.add(started(p, s));
            events.add(update(p, s, RemoteLogSegmentState.COPY_SEGMENT_FINISHED));
        }
        for (int s = 0; s < deleted; s++) {
            events.add(update(p, s, RemoteLogSegmentState.DELETE_SEGMENT_STARTED));
            events.add(update(p, s, RemoteLogSegmentState.DELETE_SEGMENT_FINISHED));
        }
        return events;
    }

    /** The events of one partition, each waited for as the broker's copy and expiration tasks do. */
    private void writePartition(RemoteLogMetadataManager manager, int p) throws Exception {
        for (RemoteLogMetadata event : events(p)) {
            if (event instanceof RemoteLogSegmentMetadata added) {
                manager.addRemoteLogSegmentMetadata(added).get();
            } else {
                manager.updateRemoteLogSegmentMetadata((RemoteLogSegmentMetadataUpdate) event).get();
            }
        }
    }

    private void awaitReady(RemoteLogMetadataManager manager, TopicIdPartition tp) throws InterruptedException {
        long start = System.nanoTime();
        while (!manager.isReady(tp)) {
            if (System.nanoTime() - start > timeoutNs) {
                throw new AssertionError(tp + " not ready in time");
            }
            Thread.sleep(1);
        }
    }

    private String load() throws Exception {
        RemoteLogMetadataManager manager = newManager();
        Set<TopicIdPartition> pending = new LinkedHashSet<>();
        for (int p = 0; p < partitions; p++) {
            pending.add(partition(p));
        }
        AutoCloseable storageManager = storageManagerFirst();
        long heapBefore = heapInUse();
        long rssBefore = residentBytes();
        long t0 = System.nanoTime();
        manager.configure(config);
        long configured = System.nanoTime();
        brokerReady(manager);
        manager.onPartitionLeadershipChanges(new HashSet<>(pending), Set.of());
        long first = -1;
        while (!pending.isEmpty()) {
            for (Iterator<TopicIdPartition> it = pending.iterator(); it.hasNext(); ) {
                TopicIdPartition tp = it.next();
                if (manager.isReady(tp)) {
                    checkReadable(manager, tp);
                    it.remove();
                    if (first < 0) {
                        first = System.nanoTime();
                    }
                }
            }
            if (System.nanoTime() - t0 > timeoutNs) {
                throw new AssertionError(pending.size() + " partition(s) not readable in time, "
                        + pending.iterator().next() + " among them");
            }
            if (!pending.isEmpty()) {
                // A pass over thousands of partitions is itself work the loaders would wait for.
                Thread.sleep(pending.size() > MANY_PARTITIONS ? 20 : 1);
            }
        }
        long all = System.nanoTime();
        long heapBytes = heapInUse() - heapBefore;
        long rssBytes = residentBytes() - rssBefore;
        manager.close();
        if (storageManager != null) {
            storageManager.close();
        }
        return String.format("{\"configure_ms\":%.1f,\"first_ms\":%.1f,\"all_ms\":%.1f,\"heap_bytes\":%d,"
                + "\"rss_bytes\":%d}", (configured - t0) / 1e6, (first - t0) / 1e6, (all - t0) / 1e6,
                heapBytes, rssBytes);
    }

    /** The Java heap in use after a full collection. */
    private static long heapInUse() {
        Runtime runtime = Runtime.getRuntime();
        System.gc();
        return runtime.totalMemory() - runtime.freeMemory();
    }

    /** The process's resident set (VmRSS of /proc/self/status), 0 where there is none. */
    private static long residentBytes() {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }

    /**
     * Checks that a ready partition answers as the workload says: it lists exactly its live segments,
     * all copied, and an offset lookup in the newest one finds it. A ready partition that answers
     * otherwise is a wrong answer (the manager said ready too early), not a reason to retry.
     */
    private void checkReadable(RemoteLogMetadataManager manager, TopicIdPartition tp) throws Exception {
        int p = tp.partition();
        List<RemoteLogSegmentId> listed = new ArrayList<>();
        for (Iterator<RemoteLogSegmentMetadata> it = manager.listRemoteLogSegments(tp); it.hasNext(); ) {
            RemoteLogSegmentMetadata segment = it.next();
            if (segment.state() != RemoteLogSegmentState.COPY_SEGMENT_FINISHED) {
                throw new AssertionError(tp + " lists " + segment + " in state " + segment.state());
            }
            listed.add(segment.remoteLogSegmentId());
        }
        List<RemoteLogSegmentId> expected = new ArrayList<>();
        for (int s = deleted; s < segments; s++) {
            expected.add(segmentId(p, s));
        }
        if (!new HashSet<>(listed).equals(new HashSet<>(expected)) || listed.size() != expected.size()) {
            throw new AssertionError(tp + " is ready but lists " + listed.size() + " segment(s), expected "
                    + expected.size());
        }
        int last = segments - 1;
        int lastEpoch = epochs(last).lastKey();
        Optional<RemoteLogSegmentMetadata> found = manager.remoteLogSegmentMetadata(tp, lastEpoch, endOffset(last));
        if (found.isEmpty() || !found.get().remoteLogSegmentId().equals(segmentId(p, last))) {
            throw new AssertionError(tp + " is ready but offset " + endOffset(last) + " of epoch " + lastEpoch
                    + " finds " + found);
        }
    }

    private static String need(Map<String, String> opts, String key) {
        String value = opts.get(key);
        if (value == null) {
            usage("missing --" + key);
        }
        return value;
    }

    private static int number(Map<String, String> opts, String key, int fallback) {
        String value = opts.get(key);
        try {
            return value == null ? fallback : Integer.parseInt(value);
        } catch (NumberFormatException e) {
            usage("--" + key + " must be an integer, got " + value);
            return fallback;
        }
    }

    private static void usage(String problem) {
        System.err.println("usage: RlmmBench write|write-topic|load --class NAME --config FILE --topic-id ID "
                + "[--partitions N] [--segments N] [--deleted N] [--threads N] [--timeout-s N]: " + problem);
        System.exit(2);
    }
}
