/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.krabka.remote.storage.DeletedTopicEraser.Existence;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.junit.Test;

public class DeletedTopicEraserTest {
    private static final Uuid DELETED = new Uuid(1, 1);
    private static final Uuid MOVED = new Uuid(2, 2);
    private static final Uuid UNREACHABLE = new Uuid(3, 3);

    /** A cluster that knows some topic ids, and counts the questions. */
    private static final class Cluster implements DeletedTopicEraser.TopicIds {
        final AtomicInteger asked = new AtomicInteger();
        volatile boolean closed;

        @Override
        public Map<Uuid, Existence> existence(Set<Uuid> ids) {
            asked.incrementAndGet();
            Map<Uuid, Existence> answer = new HashMap<>();
            for (Uuid id : ids) {
                if (id.equals(DELETED)) {
                    answer.put(id, Existence.DELETED);
                } else if (id.equals(MOVED)) {
                    answer.put(id, Existence.EXISTS);
                }
                // UNREACHABLE: no answer, as when the cluster cannot be asked.
            }
            return answer;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** The native side: answers from a script per partition, recording every call. */
    private static final class Native implements Function<TopicIdPartition, String> {
        final List<TopicIdPartition> calls = Collections.synchronizedList(new ArrayList<>());
        final Map<TopicIdPartition, Integer> pendingFor = new ConcurrentHashMap<>();

        @Override
        public String apply(TopicIdPartition partition) {
            calls.add(partition);
            int left = pendingFor.getOrDefault(partition, 0);
            if (left > 0) {
                pendingFor.put(partition, left - 1);
                return "pending: 1 of its segments are not deleted";
            }
            return "erased: 3 objects deleted";
        }

        long callsFor(TopicIdPartition partition) {
            synchronized (calls) {
                return calls.stream().filter(partition::equals).count();
            }
        }
    }

    private static TopicIdPartition tp(Uuid topic, int partition) {
        return new TopicIdPartition(topic, partition, "t" + topic.getMostSignificantBits());
    }

    private static void waitFor(String what, java.util.function.BooleanSupplier done)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(2);
        }
    }

    @Test
    public void onlyDeletedTopicsAreErasedAndPendingOnesAreAskedAgain() throws Exception {
        Cluster cluster = new Cluster();
        Native erase = new Native();
        TopicIdPartition deleted0 = tp(DELETED, 0);
        TopicIdPartition deleted1 = tp(DELETED, 1);
        TopicIdPartition moved = tp(MOVED, 0);
        erase.pendingFor.put(deleted1, 2);
        try (DeletedTopicEraser eraser =
                new DeletedTopicEraser(cluster, erase, Duration.ofMillis(1))) {
            eraser.stopped(Set.of(deleted0, deleted1, moved));
            waitFor("the pending partition is erased", () -> erase.callsFor(deleted1) == 3);
        }
        assertEquals(1, erase.callsFor(deleted0));
        assertEquals(0, erase.callsFor(moved));
        assertTrue(cluster.closed);
        // One question per round: the first, and two for the pending partition.
        assertEquals(3, cluster.asked.get());
    }

    @Test
    public void aClusterThatCannotAnswerIsAskedABoundedNumberOfTimes() throws Exception {
        Cluster cluster = new Cluster();
        Native erase = new Native();
        TopicIdPartition unknown = tp(UNREACHABLE, 0);
        TopicIdPartition forever = tp(DELETED, 7);
        erase.pendingFor.put(forever, Integer.MAX_VALUE);
        try (DeletedTopicEraser eraser =
                new DeletedTopicEraser(cluster, erase, Duration.ofMillis(1))) {
            eraser.stopped(Set.of(unknown, forever));
            waitFor("every attempt is spent",
                    () -> erase.callsFor(forever) == DeletedTopicEraser.ATTEMPTS);
            Thread.sleep(300);
        }
        assertEquals(DeletedTopicEraser.ATTEMPTS, erase.callsFor(forever));
        assertEquals(0, erase.callsFor(unknown));
        assertEquals(DeletedTopicEraser.ATTEMPTS, cluster.asked.get());
    }

    @Test
    public void aFailingNativeCallIsRetriedAndNeverEscapes() throws Exception {
        Cluster cluster = new Cluster();
        AtomicInteger calls = new AtomicInteger();
        TopicIdPartition deleted = tp(DELETED, 0);
        try (DeletedTopicEraser eraser = new DeletedTopicEraser(cluster, partition -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("the store is down");
            }
            return "erased: 1 objects deleted";
        }, Duration.ofMillis(1))) {
            eraser.stopped(Set.of(deleted));
            waitFor("the second call", () -> calls.get() == 2);
        }
        assertEquals(2, calls.get());
    }
}
