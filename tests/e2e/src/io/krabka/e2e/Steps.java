package io.krabka.e2e;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** The steps of a scenario, each against one topic with a single partition. A failed check throws {@link Mismatch}. */
final class Steps {
    /** A check that failed: the scenario fails with this message. */
    static final class Mismatch extends Exception {
        private static final long serialVersionUID = 1L;

        Mismatch(String message) {
            super(message);
        }
    }

    private final String bootstrap;
    private final Workload workload;
    private final TopicPartition tp;
    private final Admin admin;

    Steps(String bootstrap, Workload workload) {
        this.bootstrap = bootstrap;
        this.workload = workload;
        this.tp = new TopicPartition(workload.topic, 0);
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
        this.admin = Admin.create(p);
    }

    String topic() {
        return workload.topic;
    }

    void close() {
        admin.close(Duration.ofSeconds(5));
    }

    static void say(String line) {
        System.out.println("  " + line);
        System.out.flush();
    }

    /** Creates the topic with tiered storage, 1 MiB segments and 1 s local retention; replicas e.g. "2,3". */
    void create(String replicas) throws Exception {
        Map<String, String> configs = new HashMap<>();
        configs.put("remote.storage.enable", "true");
        configs.put("segment.bytes", "1048576");
        configs.put("local.retention.ms", "1000");
        configs.put("retention.ms", "3600000");
        configs.put("file.delete.delay.ms", "1000");
        configs.put("min.insync.replicas", "1");
        if (workload.kind == Workload.Kind.ZSTD) {
            configs.put("compression.type", "zstd");
        }
        NewTopic topic;
        if (replicas == null) {
            topic = new NewTopic(workload.topic, 1, (short) 1);
        } else {
            List<Integer> ids = Arrays.stream(replicas.split(",")).map(Integer::valueOf).toList();
            topic = new NewTopic(workload.topic, Map.of(0, ids));
        }
        admin.createTopics(List.of(topic.configs(configs))).all().get();
        say("created topic " + workload.topic + " (remote.storage.enable=true, " + workload.kind
                + (replicas == null ? "" : ", replicas " + replicas) + ")");
    }

    void produce() throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "65536");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, workload.kind == Workload.Kind.ZSTD ? "zstd" : "none");
        boolean txn = workload.kind == Workload.Kind.TXN;
        if (txn) {
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "e2e-" + workload.topic);
        }
        int aborted = 0;
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            if (txn) {
                producer.initTransactions();
            }
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < workload.records(); i++) {
                if (txn && i % Workload.TXN_SIZE == 0) {
                    producer.beginTransaction();
                }
                ProducerRecord<byte[], byte[]> record =
                        new ProducerRecord<>(workload.topic, 0, workload.key(i), workload.value(i));
                record.headers().add("i", workload.header(i));
                sent.add(producer.send(record));
                if (txn && (i + 1) % Workload.TXN_SIZE == 0) {
                    // Flushed first, so that the aborted records are in the log for read_uncommitted readers.
                    producer.flush();
                    if (workload.aborted(i)) {
                        producer.abortTransaction();
                        aborted++;
                    } else {
                        producer.commitTransaction();
                    }
                }
            }
            producer.flush();
            for (Future<RecordMetadata> f : sent) {
                f.get();
            }
        }
        say("produced " + workload.records() + " records to " + workload.topic
                + (txn ? " in " + workload.records() / Workload.TXN_SIZE + " transactions, " + aborted + " aborted" : "")
                + (workload.kind == Workload.Kind.ZSTD ? " (zstd)" : ""));
    }

    /** Waits until every record is in the tier and gone locally: earliest-local == latest-tiered + 1 == latest. */
    Offsets waitTiered(Tier tier, int timeoutSeconds) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(timeoutSeconds).toNanos();
        Offsets o = null;
        int remote = 0;
        while (System.nanoTime() < deadline) {
            o = Offsets.of(admin, tp);
            remote = tier.segments(workload.topic);
            // The end state: with 1 s local retention the broker rolls even the last segment, so once
            // every record is in the tier the local log is empty and nothing moves any more.
            if (o.latest() == expectedLatest() && o.earliestLocal() == o.latest()
                    && o.latestTiered() + 1 == o.latest() && remote >= 2) {
                say("tiered: " + o + "; " + remote + " segment file(s) of " + workload.topic + " in the tier");
                return o;
            }
            Thread.sleep(500);
        }
        throw new Mismatch("segments of " + workload.topic + " not tiered after " + timeoutSeconds + "s: " + o
                + "; " + remote + " segment file(s) in the tier");
    }

    /** Checks ListOffsets once everything is tiered: earliest as given, the local log empty at the end. */
    Offsets checkOffsets(long earliest) throws Exception {
        Offsets o = Offsets.of(admin, tp);
        // Right after a restart the topic-based metadata manager may still be replaying
        // __remote_log_metadata; until then Kafka 4.0 answers latest-tiered = -1. Wait for that one
        // state only (bounded); every other mismatch fails at once.
        long loading = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (o.latestTiered() == -1 && expectedLatest() > 0 && System.nanoTime() < loading) {
            Thread.sleep(500);
            o = Offsets.of(admin, tp);
        }
        if (o.earliest() != earliest || o.earliestLocal() != expectedLatest() || o.latestTiered() != expectedLatest() - 1
                || o.latest() != expectedLatest()) {
            throw new Mismatch("unexpected ListOffsets for " + workload.topic + ": " + o + " (expected earliest="
                    + earliest + ", earliest-local=latest=" + expectedLatest() + ", latest-tiered=latest-1)");
        }
        say("ListOffsets " + o);
        return o;
    }

    /**
     * Checks that nothing of the topic reached the tier (every copy of it failed): no segment file of it in the
     * tier, ListOffsets latest-tiered says no tiered offset, and the local log still starts at 0 and holds
     * every record.
     */
    void checkUntiered(Tier tier) throws Exception {
        Offsets o = Offsets.of(admin, tp);
        int remote = tier.segments(workload.topic);
        if (remote != 0 || o.latestTiered() >= 0 || o.earliest() != 0 || o.earliestLocal() != 0
                || o.latest() != expectedLatest()) {
            throw new Mismatch("expected nothing of " + workload.topic + " tiered: " + o + "; " + remote
                    + " segment file(s) in the tier (expected latest-tiered < 0, earliest=earliest-local=0, latest="
                    + expectedLatest() + ", no segment file)");
        }
        say("nothing of " + workload.topic + " tiered: " + o + "; no segment file of it in the tier");
    }

    private long expectedLatest() {
        // Plain topics hold one offset per record; transactional ones also one marker per transaction.
        return workload.kind == Workload.Kind.TXN
                ? workload.records() + workload.records() / Workload.TXN_SIZE
                : workload.records();
    }

    /** Consumes from the first offset with both isolation levels and compares every record. */
    void verify(int fromRecord) throws Exception {
        verify(fromRecord, null);
    }

    /**
     * {@link #verify(int)}, also writing the committed records read to {@code recordDir} ({@link Recorded}),
     * when not null.
     */
    void verify(int fromRecord, String recordDir) throws Exception {
        boolean txn = workload.kind == Workload.Kind.TXN;
        verify(fromRecord, "read_uncommitted", txn ? null : recordDir);
        if (txn) {
            verify(fromRecord, "read_committed", recordDir);
        }
    }

    /** Creates the topic without remote storage (a replay target). */
    void createPlain() throws Exception {
        admin.createTopics(List.of(new NewTopic(workload.topic, 1, (short) 1))).all().get();
        say("created topic " + workload.topic + " (no remote storage)");
    }

    private void verify(int fromRecord, String isolation, String recordDir) throws Exception {
        List<String> recorded = new ArrayList<>();
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "1000");
        List<Integer> expected = workload.expected(isolation.equals("read_committed"), fromRecord);
        long started = System.nanoTime();
        int seen = 0;
        long firstOffset = -1;
        long lastOffset = -1;
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(60)).get(tp);
            long deadline = started + Duration.ofSeconds(180).toNanos();
            while (consumer.position(tp, Duration.ofSeconds(60)) < end) {
                if (System.nanoTime() > deadline) {
                    throw new Mismatch(isolation + " read of " + workload.topic + " stuck at offset "
                            + consumer.position(tp) + " of " + end + " after " + seen + " records");
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    if (seen >= expected.size()) {
                        throw new Mismatch(isolation + ": unexpected extra record at offset " + r.offset());
                    }
                    int i = expected.get(seen);
                    check(r, i, isolation);
                    if (recordDir != null) {
                        recorded.add(Recorded.line(r));
                    }
                    if (firstOffset < 0) {
                        firstOffset = r.offset();
                    }
                    lastOffset = r.offset();
                    seen++;
                }
            }
        }
        if (seen != expected.size()) {
            throw new Mismatch(isolation + ": read " + seen + " records of " + workload.topic + ", expected "
                    + expected.size());
        }
        if (workload.kind != Workload.Kind.TXN && firstOffset != fromRecord) {
            throw new Mismatch(isolation + ": first offset " + firstOffset + ", expected " + fromRecord);
        }
        say(String.format("read back %d records of %s at offsets %d..%d (%s) in %.1fs: every record matches",
                seen, workload.topic, firstOffset, lastOffset, isolation, (System.nanoTime() - started) / 1e9));
        if (recordDir != null) {
            Recorded.write(recordDir, workload.topic, recorded);
        }
    }

    private void check(ConsumerRecord<byte[], byte[]> r, int i, String isolation) throws Mismatch {
        Header h = r.headers().lastHeader("i");
        boolean ok = Arrays.equals(r.key(), workload.key(i)) && Arrays.equals(r.value(), workload.value(i))
                && h != null && Arrays.equals(h.value(), workload.header(i))
                && (workload.kind == Workload.Kind.TXN || r.offset() == i);
        if (!ok) {
            throw new Mismatch(isolation + ": record at offset " + r.offset() + " of " + workload.topic
                    + " differs from record " + i + " produced (key "
                    + (r.key() == null ? "null" : new String(r.key(), java.nio.charset.StandardCharsets.UTF_8))
                    + ")");
        }
    }

    /** deleteRecords up to 3/5 of the tiered range; remote segments below it must go away. Returns the new start. */
    long deleteRecords(Tier tier) throws Exception {
        Offsets before = Offsets.of(admin, tp);
        long cut = Math.max(1, before.earliestLocal() * 3 / 5);
        List<Long> starts = tier.segmentStarts(workload.topic);
        // Every segment that ends below the cut (the next one starts at or below it) must go.
        int keep = 0;
        for (int i = 0; i < starts.size(); i++) {
            if (i + 1 >= starts.size() || starts.get(i + 1) > cut) {
                keep++;
            }
        }
        if (keep == starts.size()) {
            throw new Mismatch("deleteRecords before " + cut + " would remove no segment of " + starts);
        }
        admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(cut))).all().get();
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (true) {
            Offsets o = Offsets.of(admin, tp);
            int remote = tier.segments(workload.topic);
            if (o.earliest() == cut && remote == keep) {
                say("deleteRecords before " + cut + ": " + o + "; segment files in the tier " + starts.size() + " -> "
                        + remote + " (every segment below the cut deleted)");
                return cut;
            }
            if (System.nanoTime() > deadline) {
                throw new Mismatch("deleteRecords before " + cut + " did not remove the remote segments below it: "
                        + o + "; " + remote + " segment file(s) left, expected " + keep + " of " + starts);
            }
            Thread.sleep(500);
        }
    }

    /** Sets retention.ms to 1 s: every remote segment of the topic must be deleted. */
    void retention(Tier tier) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, workload.topic);
        admin.incrementalAlterConfigs(Map.of(resource, List.of(
                new AlterConfigOp(new ConfigEntry("retention.ms", "1000"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("local.retention.ms", "-2"), AlterConfigOp.OpType.SET))))
                .all().get();
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (true) {
            Offsets o = Offsets.of(admin, tp);
            int remote = tier.segments(workload.topic);
            if (remote == 0 && o.earliest() == o.earliestLocal() && o.earliest() > 0) {
                say("retention.ms=1000: " + o + "; no segment file of " + workload.topic + " left in the tier");
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new Mismatch("retention did not remove remote segments: " + o + "; " + remote
                        + " segment file(s) left");
            }
            Thread.sleep(500);
        }
    }

    /**
     * Write-once archive: sets retention.ms to 1 s. Kafka must expire every remote segment of the topic (its
     * earliest offset moves up to the local log start) while every segment file stays in the tier: the plugin
     * refuses the deletes and reports them as kept by the archive.
     */
    void retentionArchived(Tier tier) throws Exception {
        int archived = tier.segments(workload.topic);
        if (archived == 0) {
            throw new Mismatch("no segment of " + workload.topic + " in the tier to expire");
        }
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, workload.topic);
        admin.incrementalAlterConfigs(Map.of(resource, List.of(
                new AlterConfigOp(new ConfigEntry("retention.ms", "1000"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("local.retention.ms", "-2"), AlterConfigOp.OpType.SET))))
                .all().get();
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (true) {
            Offsets o = Offsets.of(admin, tp);
            int remote = tier.segments(workload.topic);
            if (remote != archived) {
                throw new Mismatch("retention changed the archive: " + archived + " -> " + remote
                        + " segment file(s) of " + workload.topic + " in the tier");
            }
            if (o.earliest() == o.earliestLocal() && o.earliest() == expectedLatest()) {
                say("retention.ms=1000: " + o + "; Kafka expired every remote segment, all " + remote
                        + " segment file(s) of " + workload.topic + " stay in the archive");
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new Mismatch("retention did not expire the remote segments: " + o + " (expected earliest="
                        + expectedLatest() + ")");
            }
            Thread.sleep(500);
        }
    }

    /**
     * Write-once archive: deletes the topic. The broker must finish the deletion (the topic disappears) while
     * every segment file of it stays in the tier.
     */
    /**
     * Deletes the topic: Kafka must delete every remote segment of it through the plugin, so no segment file of
     * the topic may remain in the tier (bounded wait). With our metadata manager its histories go too (the
     * manager asks the cluster, on the metadata listener, whether a stopped partition's topic was deleted): not
     * one object of the topic may stay.
     */
    void deleteTopic(Tier tier) throws Exception {
        int before = tier.segments(workload.topic);
        if (before == 0) {
            throw new Mismatch("no segment of " + workload.topic + " in the tier before its deletion");
        }
        Uuid id = admin.describeTopics(List.of(workload.topic)).allTopicNames().get().get(workload.topic).topicId();
        List<String> objects = tier.objectsOf(workload.topic, id.toString());
        boolean histories = objects.stream().anyMatch(name -> name.startsWith("remote-log-metadata/"));
        admin.deleteTopics(List.of(workload.topic)).all().get();
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (true) {
            boolean listed = admin.listTopics().names().get().contains(workload.topic);
            int remote = tier.segments(workload.topic);
            List<String> left = tier.objectsOf(workload.topic, id.toString());
            if (!listed && remote == 0 && left.isEmpty()) {
                say("deleted topic " + workload.topic + ": all " + objects.size() + " object(s) of it gone from the tier ("
                        + before + " segment file(s)" + (histories ? ", and its metadata histories" : "") + ")");
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new Mismatch("120 s after deleting " + workload.topic + ": topic listed " + listed + ", "
                        + remote + " of " + before + " segment file(s) and " + left.size() + " of " + objects.size()
                        + " object(s) left in the tier, e.g. " + left.stream().limit(3).toList());
            }
            Thread.sleep(500);
        }
    }

    /**
     * Our durable metadata manager keeps the history with the data: the cluster has no
     * {@code __remote_log_metadata} topic, and the tier holds metadata records of this topic's partition
     * (under {@code remote-log-metadata/<topicId>-<partition>/log/}).
     */
    void checkMetadataInTier(Tier tier) throws Exception {
        Set<String> topics = admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get();
        if (topics.contains("__remote_log_metadata")) {
            throw new Mismatch("the cluster has a __remote_log_metadata topic");
        }
        Uuid id = admin.describeTopics(List.of(workload.topic)).allTopicNames().get().get(workload.topic).topicId();
        String directory = "remote-log-metadata/" + id + "-" + tp.partition() + "/log/";
        long records = tier.metadataRecordNames().stream().filter(name -> name.startsWith(directory)).count();
        if (records == 0) {
            throw new Mismatch("no metadata record of " + tp + " in the tier (expected under " + directory + ")");
        }
        say("no __remote_log_metadata topic; " + records + " metadata record(s) of " + tp + " in the tier");
    }

    void deleteTopicArchived(Tier tier) throws Exception {
        int archived = tier.segments(workload.topic);
        if (archived == 0) {
            throw new Mismatch("no segment of " + workload.topic + " in the tier");
        }
        Uuid id = admin.describeTopics(List.of(workload.topic)).allTopicNames().get().get(workload.topic).topicId();
        long historyBefore = tier.objectsOf(workload.topic, id.toString()).stream()
                .filter(name -> name.startsWith("remote-log-metadata/")).count();
        admin.deleteTopics(List.of(workload.topic)).all().get();
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (admin.listTopics().names().get().contains(workload.topic)) {
            if (System.nanoTime() > deadline) {
                throw new Mismatch("topic " + workload.topic + " still listed 120 s after its deletion");
            }
            Thread.sleep(500);
        }
        int remote = tier.segments(workload.topic);
        if (remote != archived) {
            throw new Mismatch("topic deletion changed the archive: " + archived + " -> " + remote
                    + " segment file(s) of " + workload.topic);
        }
        // The metadata manager keeps the archive's history too (it finds the archive's probes): wait as long as
        // its eraser would take to act, then every record must still be there.
        Thread.sleep(5_000);
        List<String> records = tier.objectsOf(workload.topic, id.toString()).stream()
                .filter(name -> name.startsWith("remote-log-metadata/")).toList();
        if (records.size() < historyBefore) {
            throw new Mismatch("topic deletion erased metadata history from the archive: " + historyBefore + " -> "
                    + records.size() + " object(s)");
        }
        say("deleted topic " + workload.topic + "; all " + remote + " segment file(s) and " + records.size()
                + " metadata object(s) of it stay in the archive");
    }

    /**
     * Write-once archive: tiered storage is turned off for the topic with deletion (KIP-950,
     * {@code remote.storage.enable=false} with {@code remote.log.delete.on.disable=true}). Kafka
     * deletes every remote segment through the plugin, which retains them; Kafka proceeds: the log
     * start moves up to the local log, and every segment file stays in the tier.
     */
    void disableTieringArchived(Tier tier) throws Exception {
        int archived = tier.segments(workload.topic);
        if (archived == 0) {
            throw new Mismatch("no segment of " + workload.topic + " in the tier");
        }
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, workload.topic);
        admin.incrementalAlterConfigs(Map.of(resource, List.of(
                new AlterConfigOp(new ConfigEntry("remote.storage.enable", "false"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("remote.log.delete.on.disable", "true"),
                        AlterConfigOp.OpType.SET))))
                .all().get();
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (true) {
            Offsets o = Offsets.of(admin, tp);
            int remote = tier.segments(workload.topic);
            if (remote != archived) {
                throw new Mismatch("turning tiering off changed the archive: " + archived + " -> " + remote
                        + " segment file(s) of " + workload.topic + " in the tier");
            }
            if (o.earliest() == o.earliestLocal() && o.earliest() > 0) {
                say("remote.storage.enable=false with remote.log.delete.on.disable=true: " + o
                        + "; Kafka dropped the remote segments, all " + remote + " segment file(s) of "
                        + workload.topic + " stay in the archive");
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new Mismatch("turning tiering off did not drop the remote segments: " + o);
            }
            Thread.sleep(500);
        }
    }

    /** Waits until the partition's in-sync replicas are exactly {@code replicas}; prints the leader. */
    void awaitIsr(String replicas, int timeoutSeconds) throws Exception {
        List<Integer> want = Arrays.stream(replicas.split(",")).map(Integer::valueOf).sorted().toList();
        long deadline = System.nanoTime() + Duration.ofSeconds(timeoutSeconds).toNanos();
        while (true) {
            TopicDescription d;
            try {
                d = admin.describeTopics(List.of(workload.topic)).allTopicNames().get().get(workload.topic);
            } catch (ExecutionException e) {
                // A topic just created may not have reached the broker asked yet (Kafka 4.0 answers
                // UnknownTopicOrPartition then): a retriable error, asked again until the deadline.
                if (!(e.getCause() instanceof RetriableException) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(500);
                continue;
            }
            List<Integer> isr = d.partitions().get(0).isr().stream().map(Node::id).sorted().toList();
            Node leader = d.partitions().get(0).leader();
            if (isr.equals(want)) {
                say("in-sync replicas of " + workload.topic + ": " + isr + ", leader " + (leader == null ? "none"
                        : leader.id()));
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new Mismatch("in-sync replicas of " + workload.topic + " are " + isr + ", expected " + want);
            }
            Thread.sleep(500);
        }
    }
}
