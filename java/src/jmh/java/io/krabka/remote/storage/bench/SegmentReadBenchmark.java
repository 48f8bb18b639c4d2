/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage.bench;

import io.krabka.remote.storage.KrabkaRemoteStorageManager;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.storage.LocalTieredStorage;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Reads the same 256 MiB segment through {@link KrabkaRemoteStorageManager} (the Rust filesystem
 * tier over JNI) and through Apache Kafka's own {@link LocalTieredStorage} (from the
 * {@code kafka-storage} test jar), in one JVM run: the whole segment, and 1 MiB from a random
 * position followed by close (what a consumer fetch does). Throughput is operations per second;
 * MB/s is that times the bytes per operation ({@code scripts/bench-jmh.sh} prints it).
 * {@code -prof gc} adds the allocation per operation ({@code gc.alloc.rate.norm}).
 *
 * <p>Both read through a 64 KiB buffer owned by the benchmark, so the allocation measured is the
 * implementations' own.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class SegmentReadBenchmark {
    /** Size of the segment. */
    public static final int SEGMENT_BYTES = 256 * 1024 * 1024;
    /** Size of a random read. */
    public static final int RANGE_BYTES = 1024 * 1024;

    @Param({"krabka", "kafka"})
    public String implementation;

    private Path dir;
    private RemoteStorageManager rsm;
    private RemoteLogSegmentMetadata metadata;
    private final byte[] buffer = new byte[64 * 1024];
    private final SplittableRandom random = new SplittableRandom(42);

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("krabka-jmh-");
        Path local = Files.createDirectories(dir.resolve("local"));
        Path tier = Files.createDirectories(dir.resolve("tier"));
        LogSegmentData data = writeSegment(local);
        TopicIdPartition tp = new TopicIdPartition(Uuid.randomUuid(), 0, "bench");
        Map<Integer, Long> epochs = new HashMap<>();
        epochs.put(0, 0L);
        metadata = new RemoteLogSegmentMetadata(new RemoteLogSegmentId(tp, Uuid.randomUuid()), 0, 999_999,
                0, 0, 0, SEGMENT_BYTES, Optional.empty(), RemoteLogSegmentState.COPY_SEGMENT_STARTED,
                epochs, true);
        Map<String, Object> config = new HashMap<>();
        config.put("broker.id", 0);
        if (implementation.equals("krabka")) {
            config.put("filesystem.root", tier.toString());
            rsm = new KrabkaRemoteStorageManager();
        } else {
            config.put(LocalTieredStorage.STORAGE_DIR_CONFIG, tier.toString());
            config.put(LocalTieredStorage.DELETE_ON_CLOSE_CONFIG, "true");
            rsm = new LocalTieredStorage();
        }
        rsm.configure(config);
        rsm.copyLogSegmentData(metadata, data);
        deleteTree(local);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        rsm.close();
        deleteTree(dir);
    }

    @Benchmark
    public long wholeSegment(Blackhole bh) throws Exception {
        long total = 0;
        try (InputStream in = rsm.fetchLogSegment(metadata, 0)) {
            int n;
            while ((n = in.read(buffer, 0, buffer.length)) > 0) {
                total += n;
                bh.consume(buffer[n - 1]);
            }
        }
        if (total != SEGMENT_BYTES) {
            throw new IllegalStateException("read " + total + " bytes");
        }
        return total;
    }

    @Benchmark
    public long randomMiB(Blackhole bh) throws Exception {
        int start = random.nextInt(SEGMENT_BYTES - RANGE_BYTES);
        long total = 0;
        // Kafka's LocalTieredStorage ignores the end position and streams to the end of the
        // segment; the broker reads what it needs and closes, as here.
        try (InputStream in = rsm.fetchLogSegment(metadata, start, start + RANGE_BYTES - 1)) {
            while (total < RANGE_BYTES) {
                int n = in.read(buffer, 0, (int) Math.min(buffer.length, RANGE_BYTES - total));
                if (n < 0) {
                    break;
                }
                total += n;
                bh.consume(buffer[0]);
            }
        }
        if (total != RANGE_BYTES) {
            throw new IllegalStateException("read " + total + " bytes");
        }
        return total;
    }

    private static LogSegmentData writeSegment(Path local) throws IOException {
        String stem = String.format("%020d", 0);
        Path log = local.resolve(stem + ".log");
        SplittableRandom random = new SplittableRandom(7);
        byte[] chunk = new byte[1024 * 1024];
        try (OutputStream out = Files.newOutputStream(log)) {
            for (int written = 0; written < SEGMENT_BYTES; written += chunk.length) {
                for (int i = 0; i < chunk.length; i += 8) {
                    long value = random.nextLong();
                    for (int b = 0; b < 8; b++) {
                        chunk[i + b] = (byte) (value >>> (8 * b));
                    }
                }
                out.write(chunk);
            }
        }
        Path offsetIndex = Files.write(local.resolve(stem + ".index"), new byte[0]);
        Path timeIndex = Files.write(local.resolve(stem + ".timeindex"), new byte[0]);
        Path snapshot = Files.write(local.resolve(stem + ".snapshot"), new byte[0]);
        ByteBuffer leaderEpochs = ByteBuffer.wrap("0\n1\n0 0\n".getBytes(StandardCharsets.UTF_8));
        return new LogSegmentData(log, offsetIndex, timeIndex, Optional.empty(), snapshot, leaderEpochs);
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        }
    }
}
