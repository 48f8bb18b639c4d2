package io.krabka.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The committed records a consumer read, as lines of a file ({@code <dir>/<topic>.tsv}), so that later
 * steps compare other reads of the same records with them: {@code krabka-tier export} from the tier once the
 * broker is gone (tests/e2e/lib/compare-export.py), and a replay into another cluster ({@link #verifyReplayed}).
 * A line is {@code offset TAB timestamp TAB key TAB value TAB headers}, bytes as base64 ({@code -} for null),
 * headers as {@code key=base64} joined by commas.
 */
final class Recorded {
    private Recorded() {
    }

    static Path file(String dir, String topic) {
        return Path.of(dir, topic + ".tsv");
    }

    static String line(ConsumerRecord<byte[], byte[]> r) {
        List<String> headers = new ArrayList<>();
        for (Header h : r.headers()) {
            headers.add(h.key() + "=" + b64(h.value()));
        }
        return r.offset() + "\t" + r.timestamp() + "\t" + b64(r.key()) + "\t" + b64(r.value()) + "\t"
                + String.join(",", headers);
    }

    /** A line without its offset: what a replay into another topic keeps. */
    static String content(String line) {
        return line.substring(line.indexOf('\t') + 1);
    }

    private static String b64(byte[] bytes) {
        return bytes == null ? "-" : Base64.getEncoder().encodeToString(bytes);
    }

    static void write(String dir, String topic, List<String> lines) throws IOException {
        Files.createDirectories(Path.of(dir));
        Files.write(file(dir, topic), lines, StandardCharsets.UTF_8);
    }

    /**
     * Reads {@code topic} of the cluster at {@code bootstrap} with {@code read_committed} from its first offset
     * and compares every record (key, value, headers, timestamp; not the offset) with the recorded lines.
     */
    static void verifyReplayed(String bootstrap, String topic, String dir) throws Exception {
        List<String> want = Files.readAllLines(file(dir, topic), StandardCharsets.UTF_8);
        TopicPartition tp = new TopicPartition(topic, 0);
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "1000");
        int seen = 0;
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(60)).get(tp);
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (consumer.position(tp, Duration.ofSeconds(60)) < end) {
                if (System.nanoTime() > deadline) {
                    throw new Steps.Mismatch("read of the replayed " + topic + " stuck after " + seen + " records");
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    if (seen >= want.size()) {
                        throw new Steps.Mismatch("replayed " + topic + ": extra record at offset " + r.offset());
                    }
                    if (!content(line(r)).equals(content(want.get(seen)))) {
                        throw new Steps.Mismatch("replayed " + topic + ": record at offset " + r.offset()
                                + " differs from the source record at offset "
                                + want.get(seen).substring(0, want.get(seen).indexOf('\t')));
                    }
                    seen++;
                }
            }
        }
        if (seen != want.size()) {
            throw new Steps.Mismatch("replayed " + topic + ": read " + seen + " records, the source holds "
                    + want.size());
        }
        Steps.say("read back " + seen + " replayed records of " + topic
                + " (read_committed): keys, values, headers and timestamps match the source");
    }
}
