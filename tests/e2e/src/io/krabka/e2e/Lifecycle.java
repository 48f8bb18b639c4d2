package io.krabka.e2e;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A topic's tiering switched off and on again the ways Kafka 4.x allows (KIP-950), on a plain tier:
 * <ol>
 *   <li>tiered: a first batch copied, the local log emptied by 1 s local retention;</li>
 *   <li>{@code remote.log.copy.disable=true} (with {@code local.retention.ms=-2}, as Kafka demands): a second
 *       batch stays local (no copy for 20 task intervals,
 *       latest-tiered unchanged, nothing deleted locally that is not tiered), every record readable from
 *       offset 0 (the first batch from the tier);</li>
 *   <li>{@code remote.log.copy.disable=false} (local retention 1 s again): copying resumes where it stopped;</li>
 *   <li>{@code remote.storage.enable=false} with {@code remote.log.delete.on.disable=true}: Kafka deletes
 *       every remote segment through the plugin (none is left in the tier), the log starts at the local
 *       start, what is local stays readable;</li>
 *   <li>{@code remote.storage.enable=true} again: a third batch is tiered and everything from the new start
 *       reads back.</li>
 * </ol>
 * Every record's value is {@code life-<offset>}, so a read checks each offset it sees.
 */
final class Lifecycle {
    private static final int BATCH = 3000;
    private static final int VALUE_BYTES = 1024;
    /** The brokers' remote.log.manager.task.interval.ms in the e2e configuration is 500 ms. */
    private static final Duration QUIET = Duration.ofSeconds(10);

    private final String bootstrap;
    private final String topic;
    private final TopicPartition tp;
    private final Tier tier;
    private final Admin admin;
    private long produced;

    private Lifecycle(String bootstrap, String topic, Tier tier) {
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.tp = new TopicPartition(topic, 0);
        this.tier = tier;
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
        this.admin = Admin.create(p);
    }

    /** Runs the whole lifecycle on a new topic {@code topic}. */
    static void run(String bootstrap, String topic, Tier tier) throws Exception {
        Lifecycle life = new Lifecycle(bootstrap, topic, tier);
        try {
            life.run();
        } finally {
            life.admin.close(Duration.ofSeconds(5));
        }
    }

    private void run() throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(Map.of(
                "remote.storage.enable", "true",
                "segment.bytes", "1048576",
                "local.retention.ms", "1000",
                "retention.ms", "3600000",
                "file.delete.delay.ms", "1000")))).all().get();
        produce();
        Offsets tiered = await("the first batch tiered",
                o -> o.latestTiered() + 1 == produced && o.earliestLocal() == produced, 180);
        int firstCopies = segments("the first batch tiered", n -> n >= 2);
        read(0);

        // Kafka refuses copy.disable unless the local log is kept as long as the whole log
        // (local.retention.ms -2: as retention.ms), since nothing more is copied.
        alter(Map.of("remote.log.copy.disable", "true", "local.retention.ms", "-2"));
        produce();
        Thread.sleep(QUIET.toMillis());
        Offsets off = Offsets.of(admin, tp);
        int copiesOff = tier.segments(topic);
        if (off.latestTiered() != tiered.latestTiered() || copiesOff != firstCopies
                || off.earliestLocal() > tiered.latestTiered() + 1 || off.latest() != produced) {
            throw new Steps.Mismatch("remote.log.copy.disable=true: " + off + ", " + copiesOff
                    + " segment file(s) in the tier; expected latest-tiered=" + tiered.latestTiered() + ", "
                    + firstCopies + " segment file(s), the second batch kept locally");
        }
        Steps.say("remote.log.copy.disable=true: " + off + "; still " + copiesOff + " segment file(s) after "
                + QUIET.toSeconds() + "s, the second batch kept locally");
        read(0);

        alter(Map.of("remote.log.copy.disable", "false", "local.retention.ms", "1000"));
        await("copying resumed", o -> o.latestTiered() + 1 == produced && o.earliestLocal() == produced, 180);
        int copiesOn = segments("copying resumed", n -> n > firstCopies);
        Steps.say("remote.log.copy.disable=false: copying resumed, " + firstCopies + " -> " + copiesOn
                + " segment file(s)");
        read(0);

        alter(Map.of("remote.storage.enable", "false", "remote.log.delete.on.disable", "true"));
        Offsets disabled = await("remote segments deleted on disable",
                o -> o.earliest() == o.earliestLocal() && o.earliest() > 0, 120);
        segments("remote segments deleted on disable", n -> n == 0);
        Steps.say("remote.storage.enable=false, remote.log.delete.on.disable=true: " + disabled
                + "; no segment file of " + topic + " left in the tier");
        read(disabled.earliest());

        alter(Map.of("remote.storage.enable", "true"));
        produce();
        Offsets again = await("tiering enabled again",
                o -> o.latestTiered() + 1 == produced && o.earliestLocal() == produced, 180);
        int copiesAgain = segments("tiering enabled again", n -> n >= 1);
        Steps.say("remote.storage.enable=true again: " + again + "; " + copiesAgain + " segment file(s)");
        read(again.earliest());
    }

    private void alter(Map<String, String> configs) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        List<AlterConfigOp> ops = configs.entrySet().stream()
                .map(e -> new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET))
                .toList();
        admin.incrementalAlterConfigs(Map.of(resource, ops)).all().get();
    }

    /** Produces one batch; values name their offsets. */
    private void produce() throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < BATCH; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, value(produced + i)));
            }
            producer.flush();
        }
        produced += BATCH;
    }

    private static byte[] value(long offset) {
        byte[] value = new byte[VALUE_BYTES];
        byte[] name = ("life-" + offset).getBytes(StandardCharsets.UTF_8);
        System.arraycopy(name, 0, value, 0, name.length);
        return value;
    }

    /** Waits (bounded) until ListOffsets satisfies {@code done}. */
    private Offsets await(String what, Predicate<Offsets> done, int timeoutSeconds) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(timeoutSeconds).toNanos();
        while (true) {
            Offsets o = Offsets.of(admin, tp);
            if (done.test(o)) {
                return o;
            }
            if (System.nanoTime() > deadline) {
                throw new Steps.Mismatch(what + ": not after " + timeoutSeconds + "s: " + o + " (" + produced
                        + " records produced, " + tier.segments(topic) + " segment file(s) in the tier)");
            }
            Thread.sleep(500);
        }
    }

    /** The topic's segment files in the tier, which must satisfy {@code expected} (bounded wait). */
    private int segments(String what, Predicate<Integer> expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            int n = tier.segments(topic);
            if (expected.test(n)) {
                return n;
            }
            if (System.nanoTime() > deadline) {
                throw new Steps.Mismatch(what + ": " + n + " segment file(s) of " + topic + " in the tier");
            }
            Thread.sleep(500);
        }
    }

    /** Reads from {@code from} to the end: every offset once, in order, with its own value. */
    private void read(long from) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        long next = from;
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, from);
            while (next < produced) {
                if (System.nanoTime() > deadline) {
                    throw new Steps.Mismatch("read of " + topic + " stuck at offset " + next + " of " + produced);
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.offset() != next || !java.util.Arrays.equals(r.value(), value(next))) {
                        throw new Steps.Mismatch("read of " + topic + ": offset " + r.offset() + " where " + next
                                + " was expected, or its value differs");
                    }
                    next++;
                }
            }
        }
        Steps.say("read back offsets " + from + ".." + (produced - 1) + " of " + topic + ": every record matches");
    }
}
