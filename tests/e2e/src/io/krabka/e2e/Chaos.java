package io.krabka.e2e;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Steps of the chaos scenario (tests/e2e/chaos.sh) on a cluster of several brokers.
 *
 * <pre>
 * Chaos create --bootstrap B --topics T[,T...] --partitions N [--replicas R] [--segment-ms MS]
 * Chaos leader --bootstrap B --topic T --partition P          prints the leader's node id
 * Chaos await-in-sync --bootstrap B --topics T[,T...] [--timeout S]  every partition fully in sync
 * Chaos txn-produce --bootstrap B --topic T --seconds S --stop-file F --committed FILE
 *                                    transactions of 20 records, acks=all, until F exists (at most S seconds);
 *                                    each committed value to FILE
 * Chaos delete-topics --bootstrap B --topics T[,T...] --tier SPEC [--s3-endpoint URL]
 *                                    deletes the topics; waits until not one object of them is left in the tier
 * Chaos verify --bootstrap B --topic T --acked FILE [--from-log-start true] [--txn true]
 *                                    consumes from offset 0 (read_committed): every acknowledged record is there
 *                                    exactly once, at its offset (VerifiableProducer's output) or in commit
 *                                    order (txn), and no value twice
 * Chaos set --bootstrap B --topic T --config K=V             alters one topic config
 * Chaos await-remote-gone --bootstrap B --topic T [--timeout S]  until every partition's earliest offset is
 *                                    its earliest local one (retention deleted every remote segment)
 * Chaos live-topics --bootstrap B --out FILE                 the cluster's topic ids, one per line
 * Chaos tiered --bootstrap B --topics T[,T...]               partitions whose data from offset 0 starts in the tier
 *                                    (fails when none does)
 * </pre>
 */
public final class Chaos {
    private Chaos() {
    }

    /** The VerifiableProducer's line of an acknowledged send. */
    private static final Pattern ACKED = Pattern.compile(
            "\"name\":\"producer_send_success\".*\"value\":\"([^\"]*)\".*\"offset\":(\\d+).*\"partition\":(\\d+)");

    public static void main(String[] argv) throws Exception {
        Map<String, String> opts = new HashMap<>();
        for (int i = 1; i + 1 < argv.length; i += 2) {
            opts.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
        }
        String step = argv.length > 0 ? argv[0] : "";
        int code = 0;
        try (Admin admin = admin(need(opts, "bootstrap"))) {
            switch (step) {
                case "create" -> create(admin, opts);
                case "leader" -> System.out.println(leader(admin, need(opts, "topic"),
                        Integer.parseInt(need(opts, "partition"))));
                case "await-in-sync" -> awaitInSync(admin, List.of(need(opts, "topics").split(",")),
                        Integer.parseInt(opts.getOrDefault("timeout", "180")));
                case "txn-produce" -> txnProduce(need(opts, "bootstrap"), need(opts, "topic"),
                        Integer.parseInt(need(opts, "seconds")), Path.of(need(opts, "stop-file")),
                        Path.of(need(opts, "committed")));
                case "delete-topics" -> deleteTopics(admin, List.of(need(opts, "topics").split(",")),
                        Tier.parse(need(opts, "tier"), opts.getOrDefault("s3-endpoint", ""), ""));
                case "verify" -> verify(admin, need(opts, "bootstrap"), need(opts, "topic"),
                        Path.of(need(opts, "acked")), Boolean.parseBoolean(opts.getOrDefault("txn", "false")),
                        Boolean.parseBoolean(opts.getOrDefault("from-log-start", "false")));
                case "set" -> set(admin, need(opts, "topic"), need(opts, "config"));
                case "await-remote-gone" -> awaitRemoteGone(admin, need(opts, "topic"),
                        Integer.parseInt(opts.getOrDefault("timeout", "180")));
                case "live-topics" -> liveTopics(admin, Path.of(need(opts, "out")));
                case "tiered" -> tiered(admin, List.of(need(opts, "topics").split(",")));
                default -> throw new IllegalArgumentException("unknown step " + step);
            }
        } catch (Steps.Mismatch e) {
            System.out.println("  MISMATCH: " + e.getMessage());
            code = 1;
        } catch (Exception e) {
            System.out.println("  FAILED: " + e);
            e.printStackTrace(System.out);
            code = 1;
        }
        System.exit(code);
    }

    private static String need(Map<String, String> opts, String key) {
        String v = opts.get(key);
        if (v == null) {
            System.err.println("chaos: missing --" + key);
            System.exit(2);
        }
        return v;
    }

    private static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
        return Admin.create(p);
    }

    private static void create(Admin admin, Map<String, String> opts) throws Exception {
        int partitions = Integer.parseInt(need(opts, "partitions"));
        short replicas = Short.parseShort(opts.getOrDefault("replicas", "3"));
        List<NewTopic> topics = new ArrayList<>();
        for (String topic : need(opts, "topics").split(",")) {
            topics.add(new NewTopic(topic, partitions, replicas).configs(Map.of(
                    "remote.storage.enable", "true",
                    "min.insync.replicas", "2",
                    "segment.ms", opts.getOrDefault("segment-ms", "4000"),
                    "local.retention.ms", "1000",
                    "retention.ms", "-1")));
        }
        admin.createTopics(topics).all().get();
        awaitInSync(admin, topics.stream().map(NewTopic::name).toList(), 120);
    }

    static int leader(Admin admin, String topic, int partition) throws Exception {
        Node leader = describe(admin, List.of(topic)).get(topic).partitions().get(partition).leader();
        return leader == null ? -1 : leader.id();
    }

    private static Map<String, TopicDescription> describe(Admin admin, List<String> topics) throws Exception {
        return admin.describeTopics(topics).allTopicNames().get();
    }

    private static void awaitInSync(Admin admin, List<String> topics, int timeoutSeconds) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(timeoutSeconds).toNanos();
        String lagging = "";
        while (System.nanoTime() < deadline) {
            lagging = "";
            try {
                for (TopicDescription d : describe(admin, topics).values()) {
                    for (TopicPartitionInfo p : d.partitions()) {
                        if (p.leader() == null || p.isr().size() < p.replicas().size()) {
                            lagging = d.name() + "-" + p.partition() + " (replicas " + ids(p.replicas()) + ", in sync "
                                    + ids(p.isr()) + ")";
                            break;
                        }
                    }
                    if (!lagging.isEmpty()) {
                        break;
                    }
                }
            } catch (Exception e) {
                lagging = e.toString();
            }
            if (lagging.isEmpty()) {
                Steps.say("every partition of " + topics + " is fully in sync");
                return;
            }
            Thread.sleep(500);
        }
        throw new Steps.Mismatch("not in sync after " + timeoutSeconds + " s: " + lagging);
    }

    private static List<Integer> ids(List<Node> nodes) {
        return nodes.stream().map(Node::id).toList();
    }

    /**
     * Produces transactions of 20 records for {@code seconds}, through broker failures: an abortable error aborts
     * the transaction (its records are not committed), a fatal one starts a new producer under the same
     * transactional id. Only values of committed transactions are written to {@code committed}, in commit order.
     */
    private static void txnProduce(String bootstrap, String topic, int seconds, Path stopFile, Path committed)
            throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        long next = 0;
        int commits = 0;
        int aborts = 0;
        KafkaProducer<String, String> producer = txnProducer(bootstrap, topic);
        try (BufferedWriter out = Files.newBufferedWriter(committed, StandardCharsets.UTF_8)) {
            while (System.nanoTime() < end && !Files.exists(stopFile)) {
                List<String> values = new ArrayList<>();
                try {
                    producer.beginTransaction();
                    for (int i = 0; i < 20; i++) {
                        String value = "txn." + next++;
                        values.add(value);
                        producer.send(new ProducerRecord<>(topic, value, value));
                    }
                    producer.commitTransaction();
                    for (String value : values) {
                        out.write(value);
                        out.newLine();
                    }
                    out.flush();
                    commits++;
                } catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException e) {
                    producer.close(Duration.ZERO);
                    producer = txnProducer(bootstrap, topic);
                    aborts++;
                } catch (KafkaException e) {
                    try {
                        producer.abortTransaction();
                    } catch (KafkaException abortFailed) {
                        producer.close(Duration.ZERO);
                        producer = txnProducer(bootstrap, topic);
                    }
                    aborts++;
                }
                Thread.sleep(20);
            }
        } finally {
            producer.close(Duration.ofSeconds(30));
        }
        Steps.say("transactional producer to " + topic + ": " + commits + " transactions committed, " + aborts
                + " aborted by failures");
    }

    private static KafkaProducer<String, String> txnProducer(String bootstrap, String topic) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "chaos-" + topic);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "60000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        KafkaProducer<String, String> producer = new KafkaProducer<>(p);
        producer.initTransactions();
        return producer;
    }

    /** One record read back. */
    private record Read(int partition, long offset, String value) {
    }

    private static void verify(Admin admin, String bootstrap, String topic, Path acked, boolean txn,
            boolean fromLogStart) throws Exception {
        int partitions = describe(admin, List.of(topic)).get(topic).partitions().size();
        Map<TopicPartition, Long> ends = new HashMap<>();
        Map<TopicPartition, Long> starts = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            Offsets o = Offsets.of(admin, tp);
            ends.put(tp, o.latest());
            starts.put(tp, o.earliest());
            if (!fromLogStart && o.earliest() != 0) {
                throw new Steps.Mismatch(tp + ": earliest offset " + o.earliest() + ", expected 0 (" + o + ")");
            }
        }
        Map<String, Read> byValue = new HashMap<>();
        List<String> duplicates = new ArrayList<>();
        Map<Integer, List<Read>> byPartition = new TreeMap<>();
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "1048576");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        long deadline = System.nanoTime() + Duration.ofSeconds(240).toNanos();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            consumer.assign(ends.keySet());
            consumer.seekToBeginning(ends.keySet());
            Set<TopicPartition> open = new HashSet<>(ends.keySet());
            open.removeIf(tp -> ends.get(tp) <= starts.get(tp));
            while (!open.isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw new Steps.Mismatch("reading " + topic + " back did not reach the end of " + open);
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    Read read = new Read(r.partition(), r.offset(), r.value());
                    if (byValue.put(r.value(), read) != null) {
                        duplicates.add(r.value());
                    }
                    byPartition.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(read);
                }
                open.removeIf(tp -> consumer.position(tp) >= ends.get(tp));
            }
        }
        if (!duplicates.isEmpty()) {
            throw new Steps.Mismatch(topic + ": " + duplicates.size() + " value(s) read twice, e.g. "
                    + duplicates.subList(0, Math.min(3, duplicates.size())));
        }
        List<String> lines = Files.readAllLines(acked, StandardCharsets.UTF_8);
        int checked = 0;
        List<String> lost = new ArrayList<>();
        if (txn) {
            // Committed values are in commit order: in each partition they must come in that order.
            Map<Integer, Long> lastOffset = new HashMap<>();
            for (String value : lines) {
                Read read = byValue.get(value);
                if (read == null) {
                    lost.add(value);
                    continue;
                }
                Long before = lastOffset.put(read.partition(), read.offset());
                if (before != null && before >= read.offset()) {
                    throw new Steps.Mismatch(topic + ": committed value " + value + " at offset " + read.offset()
                            + " of partition " + read.partition() + ", before the value committed ahead of it");
                }
                checked++;
            }
        } else {
            for (String line : lines) {
                Matcher m = ACKED.matcher(line);
                if (!m.find()) {
                    continue;
                }
                String value = m.group(1);
                long offset = Long.parseLong(m.group(2));
                int partition = Integer.parseInt(m.group(3));
                if (fromLogStart && offset < starts.get(new TopicPartition(topic, partition))) {
                    continue;
                }
                Read read = byValue.get(value);
                if (read == null || read.partition() != partition || read.offset() != offset) {
                    lost.add(value + "@" + partition + "/" + offset + (read == null ? " (absent)"
                            : " (read at " + read.partition() + "/" + read.offset() + ")"));
                    continue;
                }
                checked++;
            }
        }
        if (!lost.isEmpty()) {
            throw new Steps.Mismatch(topic + ": " + lost.size() + " acknowledged record(s) not read back where "
                    + "acknowledged, e.g. " + lost.subList(0, Math.min(5, lost.size())));
        }
        if (checked == 0 && !fromLogStart) {
            throw new Steps.Mismatch(topic + ": no acknowledged record to check in " + acked);
        }
        int read = byValue.size();
        Steps.say(topic + ": " + checked + " acknowledged record(s) read back exactly once from "
                + (fromLogStart ? "the log start (retention deleted the ones before it)" : "offset 0")
                + " (read_committed, " + read + " read in "
                + partitions + " partitions)");
    }

    /**
     * Sets one topic config and reads it back until the cluster says so: while the active controller moves, an
     * alteration can come back without error and still be lost, so it is sent again (bounded).
     */
    private static void set(Admin admin, String topic, String config) throws Exception {
        String[] kv = config.split("=", 2);
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (true) {
            try {
                admin.incrementalAlterConfigs(Map.of(resource, List.of(
                        new AlterConfigOp(new ConfigEntry(kv[0], kv[1]), AlterConfigOp.OpType.SET)))).all().get();
                for (int look = 0; look < 10; look++) {
                    ConfigEntry now = admin.describeConfigs(List.of(resource)).all().get().get(resource).get(kv[0]);
                    if (now != null && kv[1].equals(now.value())) {
                        Steps.say(topic + ": " + config);
                        return;
                    }
                    Thread.sleep(200);
                }
            } catch (java.util.concurrent.ExecutionException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new Steps.Mismatch(topic + ": " + config + " not applied after 120 s");
            }
            Thread.sleep(500);
        }
    }

    private static void awaitRemoteGone(Admin admin, String topic, int timeoutSeconds) throws Exception {
        int partitions = describe(admin, List.of(topic)).get(topic).partitions().size();
        long deadline = System.nanoTime() + Duration.ofSeconds(timeoutSeconds).toNanos();
        while (true) {
            String left = "";
            for (int p = 0; p < partitions && left.isEmpty(); p++) {
                Offsets o = Offsets.of(admin, new TopicPartition(topic, p));
                if (o.earliest() != o.earliestLocal()) {
                    left = topic + "-" + p + " " + o;
                }
            }
            if (left.isEmpty()) {
                Steps.say(topic + ": retention deleted every remote segment of its " + partitions + " partitions");
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new Steps.Mismatch("retention did not delete the remote segments: " + left);
            }
            Thread.sleep(500);
        }
    }

    /**
     * Deletes {@code topics} and waits (bounded) until the cluster no longer lists them and the tier holds not one
     * object of them: segments of every state (a dead leader's unfinished copy too) and metadata histories.
     */
    private static void deleteTopics(Admin admin, List<String> topics, Tier tier) throws Exception {
        Map<String, String> ids = new HashMap<>();
        for (TopicDescription d : describe(admin, topics).values()) {
            ids.put(d.name(), d.topicId().toString());
        }
        Map<String, Integer> before = new HashMap<>();
        for (String topic : topics) {
            before.put(topic, tier.objectsOf(topic, ids.get(topic)).size());
        }
        admin.deleteTopics(topics).all().get();
        long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
        while (true) {
            Set<String> listed = admin.listTopics().names().get();
            String left = "";
            for (String topic : topics) {
                List<String> objects = tier.objectsOf(topic, ids.get(topic));
                if (listed.contains(topic) || !objects.isEmpty()) {
                    left = topic + (listed.contains(topic) ? " still listed" : "") + ", " + objects.size()
                            + " object(s) left, e.g. " + objects.stream().limit(3).toList();
                    break;
                }
            }
            if (left.isEmpty()) {
                Steps.say("deleted " + topics + ": every object of them gone from the tier (" + before + " before)");
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new Steps.Mismatch("180 s after deleting " + topics + ": " + left);
            }
            Thread.sleep(500);
        }
    }

    private static void liveTopics(Admin admin, Path out) throws Exception {
        Set<String> names = admin.listTopics().names().get();
        List<String> ids = new ArrayList<>();
        for (TopicDescription d : describe(admin, List.copyOf(names)).values()) {
            ids.add(d.topicId().toString());
        }
        Files.write(out, ids, StandardCharsets.UTF_8);
        Steps.say(ids.size() + " live topic id(s) written to " + out);
    }

    private static void tiered(Admin admin, List<String> topics) throws Exception {
        int tiered = 0;
        int total = 0;
        for (String topic : topics) {
            int partitions = describe(admin, List.of(topic)).get(topic).partitions().size();
            for (int p = 0; p < partitions; p++) {
                Offsets o = Offsets.of(admin, new TopicPartition(topic, p));
                total++;
                if (o.earliestLocal() > o.earliest()) {
                    tiered++;
                }
            }
        }
        if (tiered == 0) {
            throw new Steps.Mismatch("no partition of " + topics + " starts in the tier");
        }
        Steps.say(tiered + " of " + total + " partitions start in the tier: reading them from offset 0 reads the tier");
    }
}
