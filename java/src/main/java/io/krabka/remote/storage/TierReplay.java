/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code krabka-tier replay}: produces the committed records of a tiered topic, read from the
 * tier alone (no broker of the source cluster), into a topic of any Kafka cluster with Kafka's own
 * producer, so every client security option works ({@code --client-config} takes the same
 * properties file as Kafka's tools).
 *
 * <pre>
 * java -cp "krabka-tier-replay.jar:$KAFKA_HOME/libs/*" io.krabka.remote.storage.TierReplay \
 *   --bootstrap-servers HOST:PORT [--client-config client.properties] [--target-topic T] \
 *   &lt;the source options of krabka-tier export: --local DIR | --s3-bucket B ..., --topic T,
 *    --partition N, offset and timestamp bounds, --verify --key-id K --public-key HEX&gt;
 * </pre>
 *
 * <p>Partition {@code p} of the source goes to partition {@code p} of the target, in offset order,
 * keys, values, headers and timestamps kept (a target topic with {@code LogAppendTime} rewrites
 * timestamps). The producer is idempotent with {@code acks=all}, so the target holds the replayed
 * records densely from its first offset; a rerun after an interruption resumes after the records
 * the target already holds (its end offset counts them) once it has checked that the last of them
 * is the source record at that position, and refuses to write anything to a partition where it is
 * not. The records come from the Rust library ({@code krabka_tier::ReplaySource}) a chunk of about
 * a megabyte per JNI call.
 *
 * <p>Exit codes: 0 replayed; 1 source records were skipped because they could not be read, or a
 * partition was refused by {@code --verify}; 2 the source has offset gaps; 3 the tier or the
 * target could not be read or written; 4 a target partition does not match the source; 64 usage.
 */
public final class TierReplay {
    static final int EXIT_OK = 0;
    static final int EXIT_SKIPPED = 1;
    static final int EXIT_GAPS = 2;
    static final int EXIT_FAILED = 3;
    static final int EXIT_MISMATCH = 4;
    static final int EXIT_USAGE = 64;

    private static final byte CHUNK_RECORDS = 1;
    private static final byte CHUNK_END = 2;
    private static final Duration POLL = Duration.ofMillis(500);
    private static final long CHECK_TIMEOUT_MS = 60_000;

    private static final String USAGE = "usage: java -cp \"krabka-tier-replay.jar:$KAFKA_HOME/libs/*\" "
            + "io.krabka.remote.storage.TierReplay --bootstrap-servers HOST:PORT "
            + "[--client-config FILE] [--target-topic TOPIC] [--chunk-bytes N] <source options>\n\n"
            + "  --bootstrap-servers  the target cluster\n"
            + "  --client-config      a client properties file (security.protocol, sasl.*, ssl.*, ...),\n"
            + "                       used by the producer and by the consumer that checks the target\n"
            + "  --target-topic       the target topic (default: the source topic); it must exist\n"
            + "                       with at least the source's partitions\n"
            + "  --chunk-bytes        records per JNI call, in bytes (default 1048576)\n\n"
            + "Source options (as krabka-tier export takes them):\n";

    private TierReplay() {
    }

    /**
     * Runs the replay and exits with its code.
     *
     * @param args the options
     */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** A failure that ends the replay with an exit code. */
    static final class Stop extends Exception {
        private static final long serialVersionUID = 1L;
        final int code;

        Stop(int code, String message) {
            super(message);
            this.code = code;
        }
    }

    /** The Java side's options; everything else goes to the source. */
    static final class Options {
        String bootstrap;
        String clientConfig;
        String targetTopic;
        String sourceTopic;
        int chunkBytes = 1 << 20;
        boolean help;
        final List<String> source = new ArrayList<>();

        static Options parse(String[] args) throws Stop {
            Options options = new Options();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "--help":
                    case "-h":
                        options.help = true;
                        break;
                    case "--bootstrap-servers":
                        options.bootstrap = value(args, ++i, arg);
                        break;
                    case "--client-config":
                    case "--command-config":
                        options.clientConfig = value(args, ++i, arg);
                        break;
                    case "--target-topic":
                        options.targetTopic = value(args, ++i, arg);
                        break;
                    case "--chunk-bytes":
                        try {
                            options.chunkBytes = Integer.parseInt(value(args, ++i, arg));
                        } catch (NumberFormatException e) {
                            throw new Stop(EXIT_USAGE, "--chunk-bytes takes a number");
                        }
                        if (options.chunkBytes < 1) {
                            throw new Stop(EXIT_USAGE, "--chunk-bytes must be positive");
                        }
                        break;
                    default:
                        if (arg.equals("--topic") && i + 1 < args.length) {
                            options.sourceTopic = args[i + 1];
                        } else if (arg.startsWith("--topic=")) {
                            options.sourceTopic = arg.substring("--topic=".length());
                        }
                        options.source.add(arg);
                }
            }
            if (!options.help && options.bootstrap == null) {
                throw new Stop(EXIT_USAGE, "--bootstrap-servers is required");
            }
            return options;
        }

        private static String value(String[] args, int i, String option) throws Stop {
            if (i >= args.length) {
                throw new Stop(EXIT_USAGE, option + " takes a value");
            }
            return args[i];
        }
    }

    /** Runs the replay; returns the exit code. Never throws. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        Options options;
        try {
            options = Options.parse(args);
            NativeLoader.load(System.getProperty(NativeLoader.PATH_PROPERTY), HINT);
        } catch (Stop stop) {
            err.println("krabka-tier replay: " + stop.getMessage());
            err.print(USAGE);
            return stop.code;
        } catch (Throwable t) {
            err.println("krabka-tier replay: " + t.getMessage());
            return EXIT_FAILED;
        }
        if (options.help) {
            out.print(USAGE);
            out.println(new String(help(), StandardCharsets.UTF_8));
            return EXIT_OK;
        }
        long source;
        try {
            source = open(options.source.toArray(new String[0]));
        } catch (Throwable t) {
            String message = String.valueOf(t.getMessage());
            if (message.startsWith("invalid argument: ")) {
                err.println("krabka-tier replay: " + message.substring("invalid argument: ".length()));
                return EXIT_USAGE;
            }
            err.println("krabka-tier replay: cannot read the tier: " + message);
            return EXIT_FAILED;
        }
        try {
            return replay(options, source, out, err);
        } catch (Stop stop) {
            err.println("krabka-tier replay: " + stop.getMessage());
            return stop.code;
        } catch (Throwable t) {
            err.println("krabka-tier replay: " + t);
            return EXIT_FAILED;
        } finally {
            close(source);
        }
    }

    private static int replay(Options options, long source, PrintStream out, PrintStream err)
            throws Stop {
        String target = options.targetTopic != null ? options.targetTopic : options.sourceTopic;
        if (target == null) {
            throw new Stop(EXIT_USAGE, "name the source topic with --topic");
        }
        int code = EXIT_OK;
        String refused = new String(refused(source), StandardCharsets.UTF_8);
        if (!refused.equals("[]")) {
            err.println("krabka-tier replay: refused by --verify, nothing of them replayed: "
                    + refused);
            code = EXIT_SKIPPED;
        }
        Properties client = clientProperties(options);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProperties(client));
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProperties(client))) {
            List<PartitionInfo> targetPartitions = consumer.partitionsFor(target, Duration.ofSeconds(60));
            for (int partition : partitions(source)) {
                if (targetPartitions == null || targetPartitions.stream()
                        .noneMatch(info -> info.partition() == partition)) {
                    throw new Stop(EXIT_FAILED, "the target topic " + target + " has no partition "
                            + partition + "; create it with at least as many partitions as the source");
                }
                Result result = replayPartition(options, source, partition,
                        new TopicPartition(target, partition), consumer, producer);
                out.println(options.sourceTopic + "-" + partition + " -> " + target + "-" + partition
                        + ": " + result.already + " already in the target, " + result.replayed
                        + " replayed, " + (result.already + result.replayed) + " in all");
                err.println("krabka-tier replay: " + options.sourceTopic + "-" + partition
                        + ": source summary " + result.summary);
                if (result.problems > 0) {
                    code = EXIT_SKIPPED;
                } else if (result.gaps > 0 && code == EXIT_OK) {
                    code = EXIT_GAPS;
                }
            }
        }
        return code;
    }

    /** What one partition's replay did. */
    static final class Result {
        long already;
        long replayed;
        int problems;
        int gaps;
        String summary;
    }

    private static Result replayPartition(Options options, long source, int partition,
            TopicPartition tp, KafkaConsumer<byte[], byte[]> consumer,
            KafkaProducer<byte[], byte[]> producer) throws Stop {
        List<TopicPartition> tps = Collections.singletonList(tp);
        long end = consumer.endOffsets(tps, Duration.ofSeconds(60)).get(tp);
        long begin = consumer.beginningOffsets(tps, Duration.ofSeconds(60)).get(tp);
        Result result = new Result();
        result.already = end;
        ConsumerRecord<byte[], byte[]> last = null;
        if (end > 0) {
            if (begin > end - 1) {
                throw new Stop(EXIT_MISMATCH, tp + " holds " + end + " offsets but its last record "
                        + "is deleted: cannot check that it is a replay of the source; refusing");
            }
            last = recordAt(consumer, tp, end - 1);
        }
        long feed = feed(source, partition, Math.max(0, end - 1), options.chunkBytes);
        try {
            AtomicReference<Exception> failure = new AtomicReference<>();
            boolean checked = last == null;
            while (true) {
                byte[] chunk = next(feed);
                if (chunk == null) {
                    throw new Stop(EXIT_FAILED, "the source of partition " + partition + " ended early");
                }
                ByteBuffer buffer = ByteBuffer.wrap(chunk);
                byte kind = buffer.get();
                if (kind == CHUNK_END) {
                    boolean failed = buffer.get() != 0;
                    result.problems = buffer.getInt();
                    result.gaps = buffer.getInt();
                    result.summary = new String(chunk, buffer.position(), buffer.remaining(),
                            StandardCharsets.UTF_8);
                    if (failed) {
                        throw new Stop(EXIT_FAILED, "reading partition " + partition + " of the tier: "
                                + result.summary);
                    }
                    if (!checked) {
                        throw new Stop(EXIT_MISMATCH, tp + " holds " + end + " record(s), more than the "
                                + "source's " + partition + " selected: it is not a replay of it; refusing");
                    }
                    break;
                }
                if (kind != CHUNK_RECORDS) {
                    throw new Stop(EXIT_FAILED, "unknown chunk kind " + kind);
                }
                int count = buffer.getInt();
                for (int i = 0; i < count; i++) {
                    long offset = buffer.getLong();
                    long timestamp = buffer.getLong();
                    byte[] key = bytes(buffer);
                    byte[] value = bytes(buffer);
                    int headerCount = buffer.getInt();
                    List<Header> headers = new ArrayList<>(headerCount);
                    for (int h = 0; h < headerCount; h++) {
                        byte[] headerKey = bytes(buffer);
                        headers.add(new RecordHeader(new String(headerKey, StandardCharsets.UTF_8),
                                bytes(buffer)));
                    }
                    if (!checked) {
                        checkSame(tp, last, offset, timestamp, key, value, headers);
                        checked = true;
                        continue;
                    }
                    producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), timestamp, key,
                            value, headers), (metadata, exception) -> {
                                if (exception != null) {
                                    failure.compareAndSet(null, exception);
                                }
                            });
                    result.replayed++;
                }
                if (failure.get() != null) {
                    break;
                }
            }
            producer.flush();
            if (failure.get() != null) {
                throw new Stop(EXIT_FAILED, "producing to " + tp + " failed: " + failure.get()
                        + "; rerun to resume after what the target holds");
            }
        } finally {
            closeFeed(feed);
        }
        return result;
    }

    /** The target's record at {@code offset}, read with a bounded wait. */
    private static ConsumerRecord<byte[], byte[]> recordAt(KafkaConsumer<byte[], byte[]> consumer,
            TopicPartition tp, long offset) throws Stop {
        consumer.assign(Collections.singletonList(tp));
        consumer.seek(tp, offset);
        long deadline = System.currentTimeMillis() + CHECK_TIMEOUT_MS;
        while (System.currentTimeMillis() < deadline) {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL).records(tp)) {
                if (record.offset() == offset) {
                    consumer.unsubscribe();
                    return record;
                }
            }
        }
        throw new Stop(EXIT_FAILED, "could not read " + tp + " at offset " + offset
                + " to check it against the source");
    }

    private static void checkSame(TopicPartition tp, ConsumerRecord<byte[], byte[]> last,
            long sourceOffset, long timestamp, byte[] key, byte[] value, List<Header> headers)
            throws Stop {
        List<String> differ = new ArrayList<>();
        if (last.timestamp() != timestamp) {
            differ.add("timestamp " + last.timestamp() + " vs " + timestamp);
        }
        if (!Arrays.equals(last.key(), key)) {
            differ.add("key");
        }
        if (!Arrays.equals(last.value(), value)) {
            differ.add("value");
        }
        Header[] targetHeaders = last.headers().toArray();
        boolean sameHeaders = targetHeaders.length == headers.size();
        for (int i = 0; sameHeaders && i < targetHeaders.length; i++) {
            sameHeaders = targetHeaders[i].key().equals(headers.get(i).key())
                    && Arrays.equals(targetHeaders[i].value(), headers.get(i).value());
        }
        if (!sameHeaders) {
            differ.add("headers");
        }
        if (!differ.isEmpty()) {
            throw new Stop(EXIT_MISMATCH, tp + " holds at offset " + last.offset()
                    + " a record that is not the source record at that position (source offset "
                    + sourceOffset + "; differs in " + String.join(", ", differ) + "): the target "
                    + "is not a replay of this source; refusing to write to it");
        }
    }

    private static byte[] bytes(ByteBuffer buffer) {
        int length = buffer.getInt();
        if (length < 0) {
            return null;
        }
        byte[] bytes = new byte[length];
        buffer.get(bytes);
        return bytes;
    }

    private static Properties clientProperties(Options options) throws Stop {
        Properties properties = new Properties();
        if (options.clientConfig != null) {
            try (InputStream in = Files.newInputStream(Paths.get(options.clientConfig))) {
                properties.load(in);
            } catch (IOException e) {
                throw new Stop(EXIT_USAGE, "cannot read --client-config " + options.clientConfig
                        + ": " + e);
            }
        }
        properties.put("bootstrap.servers", options.bootstrap);
        return properties;
    }

    private static Properties producerProperties(Properties client) {
        Properties properties = new Properties();
        properties.putAll(client);
        // Order and no duplicates on retries: the resume point depends on both.
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, "10");
        properties.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return properties;
    }

    private static Properties consumerProperties(Properties client) {
        Properties properties = new Properties();
        properties.putAll(client);
        properties.remove(ConsumerConfig.GROUP_ID_CONFIG);
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        properties.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        return properties;
    }

    private static final String HINT = "The jar bundles a native library for linux/x86_64; on "
            + "another platform, or with a noexec temporary directory, build rust/krabka-jni and "
            + "pass -D" + NativeLoader.PATH_PROPERTY + "=<path of libkrabka_jni.so>, or set -D"
            + NativeLoader.TMPDIR_PROPERTY + " to an executable directory.";

    static native long open(String[] args);

    static native byte[] help();

    static native int[] partitions(long source);

    static native byte[] refused(long source);

    static native long feed(long source, int partition, long skip, int chunkBytes);

    static native byte[] next(long feed);

    static native void closeFeed(long feed);

    static native void close(long source);
}
