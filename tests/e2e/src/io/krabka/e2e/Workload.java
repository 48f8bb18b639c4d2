package io.krabka.e2e;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The records of one test topic. The producer and the verifier both regenerate them from the topic name, so
 * no state passes between the steps of a scenario.
 */
final class Workload {
    /** What kind of records a topic holds. */
    enum Kind {
        /** Incompressible 1000-byte values, idempotent producer, no compression. */
        PLAIN(4500),
        /** Half-compressible 1000-byte values, zstd on the producer and on the topic. */
        ZSTD(9000),
        /** Incompressible values written in transactions of {@link #TXN_SIZE}; every third one aborted. */
        TXN(4500);

        final int records;

        Kind(int records) {
            this.records = records;
        }
    }

    /** Records per transaction of the {@link Kind#TXN} workload. */
    static final int TXN_SIZE = 100;
    private static final int VALUE_SIZE = 1000;
    private static final byte[] HALF_ENTROPY = "abcdefghijklmnop".getBytes(StandardCharsets.US_ASCII);

    final String topic;
    final Kind kind;

    Workload(String topic, Kind kind) {
        this.topic = topic;
        this.kind = kind;
    }

    static Workload of(String topic, String kind) {
        return new Workload(topic, Kind.valueOf(kind.toUpperCase(java.util.Locale.ROOT)));
    }

    /** The records of the topic: the kind's count, or {@code -De2e.records=N} (benchmarks; whole transactions). */
    int records() {
        int records = Integer.getInteger("e2e.records", kind.records);
        return kind == Kind.TXN ? records / TXN_SIZE * TXN_SIZE : records;
    }

    /** Whether record {@code i} is written in an aborted transaction. */
    boolean aborted(int i) {
        return kind == Kind.TXN && (i / TXN_SIZE) % 3 == 1;
    }

    byte[] key(int i) {
        return (topic + "/" + i).getBytes(StandardCharsets.UTF_8);
    }

    byte[] header(int i) {
        return Integer.toString(i).getBytes(StandardCharsets.UTF_8);
    }

    byte[] value(int i) {
        SplittableRandom random = new SplittableRandom(topic.hashCode() * 1_000_003L + i);
        byte[] value = new byte[VALUE_SIZE];
        if (kind == Kind.ZSTD) {
            for (int j = 0; j < value.length; j++) {
                value[j] = HALF_ENTROPY[random.nextInt(HALF_ENTROPY.length)];
            }
        } else {
            for (int j = 0; j < value.length; j++) {
                value[j] = (byte) random.nextInt(256);
            }
        }
        return value;
    }

    /** Indexes of the records a consumer must see, in order, from record {@code from} on. */
    List<Integer> expected(boolean readCommitted, int from) {
        List<Integer> out = new ArrayList<>();
        for (int i = from; i < records(); i++) {
            if (!(readCommitted && aborted(i))) {
                out.add(i);
            }
        }
        return out;
    }
}
