package io.krabka.interop;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.storage.LocalTieredStorage;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager.IndexType;

/**
 * Apache Kafka's own {@code LocalTieredStorage} (kafka-storage test jar) driven from the command line, for the
 * interoperability test with our Rust {@code LocalTieredStorage} (tests/interop/run.sh).
 *
 * <pre>
 * KafkaTier fixture &lt;src&gt;            writes segments and indexes to copy, and &lt;src&gt;/manifest
 * KafkaTier copy &lt;tier&gt; &lt;src&gt;        copies every segment of the manifest into the tier
 * KafkaTier fetch &lt;tier&gt; &lt;src&gt; &lt;out&gt; fetches every segment and index of the manifest from the tier into &lt;out&gt;
 * </pre>
 * &lt;tier&gt; is Kafka's {@code dir} setting: the segments live under &lt;tier&gt;/kafka-tiered-storage.
 * Manifest lines: {@code name topic partition topicId segmentId startOffset endOffset epoch:offset,...}; the
 * files of segment {@code name} are {@code name.log}, {@code name.index}, {@code name.timeindex},
 * {@code name.snapshot}, {@code name.leader_epoch_checkpoint} and, when it has one, {@code name.txnindex}.
 * {@code fetch} writes {@code name.log} (from position 0), {@code name.log@P} (from position P, a third
 * of the segment), one file per index, and {@code name.<suffix>.missing} for an index the tier does not have.
 */
public final class KafkaTier {
    private KafkaTier() {
    }

    /** One manifest line. */
    record Segment(String name, String topic, int partition, Uuid topicId, Uuid segmentId, long startOffset,
                   long endOffset, Map<Integer, Long> epochs) {
        static Segment parse(String line) {
            String[] f = line.trim().split("\\s+");
            Map<Integer, Long> epochs = new TreeMap<>();
            for (String e : f[7].split(",")) {
                String[] kv = e.split(":");
                epochs.put(Integer.valueOf(kv[0]), Long.valueOf(kv[1]));
            }
            return new Segment(f[0], f[1], Integer.parseInt(f[2]), Uuid.fromString(f[3]), Uuid.fromString(f[4]),
                    Long.parseLong(f[5]), Long.parseLong(f[6]), epochs);
        }

        RemoteLogSegmentMetadata metadata(Path src) throws IOException {
            TopicIdPartition tp = new TopicIdPartition(topicId, new TopicPartition(topic, partition));
            int size = (int) Files.size(src.resolve(name + ".log"));
            return new RemoteLogSegmentMetadata(new RemoteLogSegmentId(tp, segmentId), startOffset, endOffset,
                    1_700_000_000_000L, 0, 1_700_000_000_000L, size, epochs);
        }
    }

    static final Map<IndexType, String> SUFFIX = Map.of(
            IndexType.OFFSET, ".index",
            IndexType.TIMESTAMP, ".timeindex",
            IndexType.PRODUCER_SNAPSHOT, ".snapshot",
            IndexType.LEADER_EPOCH, ".leader_epoch_checkpoint",
            IndexType.TRANSACTION, ".txnindex");

    public static void main(String[] args) throws Exception {
        switch (args.length > 0 ? args[0] : "") {
            case "fixture" -> fixture(Path.of(args[1]));
            case "copy" -> copy(storage(Path.of(args[1])), Path.of(args[2]));
            case "fetch" -> fetch(storage(Path.of(args[1])), Path.of(args[2]), Path.of(args[3]));
            default -> {
                System.err.println("usage: KafkaTier fixture <src> | copy <tier> <src> | fetch <tier> <src> <out>");
                System.exit(2);
            }
        }
    }

    private static LocalTieredStorage storage(Path tier) {
        LocalTieredStorage storage = new LocalTieredStorage();
        Map<String, Object> config = new HashMap<>();
        config.put(LocalTieredStorage.STORAGE_DIR_CONFIG, tier.toString());
        config.put(LocalTieredStorage.BROKER_ID, 0);
        storage.configure(config);
        return storage;
    }

    private static List<Segment> manifest(Path src) throws IOException {
        List<Segment> out = new ArrayList<>();
        for (String line : Files.readAllLines(src.resolve("manifest"))) {
            if (!line.isBlank() && !line.startsWith("#")) {
                out.add(Segment.parse(line));
            }
        }
        return out;
    }

    /** Two partitions' segments: one with a transaction index, one multi-epoch without, one tiny. */
    private static void fixture(Path src) throws IOException {
        Files.createDirectories(src);
        SplittableRandom random = new SplittableRandom(405);
        StringBuilder manifest = new StringBuilder("# name topic partition topicId segmentId start end epochs\n");
        Uuid topicId = new Uuid(0x6b72_6162_6b61_0001L, 0x0000_0000_0000_0405L);
        Object[][] segments = {
            // name, topic, partition, start, end, size, txn index?, epochs
            {"a", "orders", 0, 0L, 999L, 3 * 1024 * 1024 + 17, true, "0:0"},
            {"b", "orders", 0, 1000L, 2411L, 1024 * 1024 + 5, false, "0:1000,3:1500"},
            {"c", "orders.v2-x", 7, 42L, 42L, 77, false, "5:42"},
        };
        for (Object[] s : segments) {
            String name = (String) s[0];
            Uuid segmentId = new Uuid(random.nextLong(), random.nextLong());
            write(src.resolve(name + ".log"), random, (int) s[5]);
            write(src.resolve(name + ".index"), random, 8 * 97);
            write(src.resolve(name + ".timeindex"), random, 12 * 97);
            write(src.resolve(name + ".snapshot"), random, 301);
            if ((boolean) s[6]) {
                write(src.resolve(name + ".txnindex"), random, 40 * 9);
            }
            String[] epochs = ((String) s[7]).split(",");
            StringBuilder checkpoint = new StringBuilder("0\n" + epochs.length + "\n");
            for (String e : epochs) {
                checkpoint.append(e.replace(':', ' ')).append('\n');
            }
            Files.writeString(src.resolve(name + ".leader_epoch_checkpoint"), checkpoint);
            manifest.append(String.join(" ", name, (String) s[1], s[2].toString(), topicId.toString(),
                    segmentId.toString(), s[3].toString(), s[4].toString(), (String) s[7])).append('\n');
        }
        Files.writeString(src.resolve("manifest"), manifest);
    }

    private static void write(Path file, SplittableRandom random, int size) throws IOException {
        byte[] bytes = new byte[size];
        random.nextBytes(bytes);
        Files.write(file, bytes);
    }

    private static void copy(LocalTieredStorage storage, Path src) throws Exception {
        for (Segment s : manifest(src)) {
            Path txn = src.resolve(s.name + ".txnindex");
            LogSegmentData data = new LogSegmentData(src.resolve(s.name + ".log"), src.resolve(s.name + ".index"),
                    src.resolve(s.name + ".timeindex"), Files.exists(txn) ? Optional.of(txn) : Optional.empty(),
                    src.resolve(s.name + ".snapshot"),
                    ByteBuffer.wrap(Files.readAllBytes(src.resolve(s.name + ".leader_epoch_checkpoint"))));
            storage.copyLogSegmentData(s.metadata(src), data);
            System.out.println("  kafka copied " + s.name + " (" + s.topic + "-" + s.partition + ", offsets "
                    + s.startOffset + ".." + s.endOffset + ")");
        }
    }

    private static void fetch(LocalTieredStorage storage, Path src, Path out) throws Exception {
        Files.createDirectories(out);
        for (Segment s : manifest(src)) {
            RemoteLogSegmentMetadata md = s.metadata(src);
            int position = md.segmentSizeInBytes() / 3;
            save(storage.fetchLogSegment(md, 0), out.resolve(s.name + ".log"));
            save(storage.fetchLogSegment(md, position), out.resolve(s.name + ".log@" + position));
            int missing = 0;
            for (Map.Entry<IndexType, String> index : SUFFIX.entrySet()) {
                try {
                    save(storage.fetchIndex(md, index.getKey()), out.resolve(s.name + index.getValue()));
                } catch (RemoteResourceNotFoundException e) {
                    Files.writeString(out.resolve(s.name + index.getValue() + ".missing"), e.getClass().getName(),
                            StandardCharsets.UTF_8);
                    missing++;
                }
            }
            System.out.println("  kafka fetched " + s.name + ": segment, segment from byte " + position + ", "
                    + (SUFFIX.size() - missing) + " indexes" + (missing > 0 ? ", " + missing + " not found" : ""));
        }
    }

    private static void save(InputStream in, Path file) throws IOException {
        try (in; OutputStream os = Files.newOutputStream(file)) {
            in.transferTo(os);
        }
    }
}
