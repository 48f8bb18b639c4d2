/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Erases the metadata histories of partitions whose topic was deleted.
 *
 * <p>Kafka tells a metadata manager only that this broker stopped hosting a partition
 * ({@code onStopPartitions}), never whether its topic was deleted or the replica moved. So after
 * a stop this asks the cluster (an {@link Admin} client on the listener the broker names in
 * {@code remote.log.metadata.manager.listener.name}) whether the topic id still exists. For a
 * deleted topic the native manager erases each partition's history once none of its segments is
 * left; while the leader is still deleting them ({@code pending}), it asks again later, up to
 * {@link #ATTEMPTS} times. A topic that exists (a replica moved away) is left alone.
 *
 * <p>All of it runs on one daemon thread of its own, never on the broker's metadata thread.
 */
final class DeletedTopicEraser implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeletedTopicEraser.class);

    /** Attempts per partition before a pending history is left to {@code krabka-tier fsck}. */
    static final int ATTEMPTS = 8;

    /** What a topic id turned out to be. */
    enum Existence {
        /** The cluster knows it: a replica moved, nothing to erase. */
        EXISTS,
        /** The cluster does not know it: the topic was deleted. */
        DELETED,
        /** The cluster could not be asked: ask again later. */
        UNKNOWN
    }

    /** Asks the cluster which topic ids exist. */
    interface TopicIds extends AutoCloseable {
        /** What each of {@code ids} is. */
        Map<Uuid, Existence> existence(Set<Uuid> ids);

        @Override
        void close();
    }

    private final TopicIds topics;
    private final Function<TopicIdPartition, String> erase;
    private final Duration firstDelay;
    private final ScheduledExecutorService thread;

    /**
     * An eraser asking {@code topics} and erasing through {@code erase} (the native call, whose
     * answer starts with {@code erased:}, {@code absent:}, {@code pending:} or {@code kept:}),
     * {@code firstDelay} after a stop and twice as long after each pending answer.
     */
    DeletedTopicEraser(TopicIds topics, Function<TopicIdPartition, String> erase,
            Duration firstDelay) {
        this.topics = topics;
        this.erase = erase;
        this.firstDelay = firstDelay;
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread t = new Thread(runnable, "krabka-rlmm-deleted-topics");
            t.setDaemon(true);
            return t;
        });
    }

    /** An eraser asking the cluster through an {@link Admin} client made of {@code adminConfig}. */
    static DeletedTopicEraser overAdmin(Map<String, Object> adminConfig,
            Function<TopicIdPartition, String> erase) {
        return new DeletedTopicEraser(new AdminTopicIds(adminConfig), erase, Duration.ofSeconds(2));
    }

    /** Checks {@code partitions} (just stopped) on the eraser's thread. */
    void stopped(Set<TopicIdPartition> partitions) {
        if (!partitions.isEmpty()) {
            schedule(new HashSet<>(partitions), 1, firstDelay);
        }
    }

    private void schedule(Set<TopicIdPartition> partitions, int attempt, Duration delay) {
        try {
            thread.schedule(() -> check(partitions, attempt), delay.toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            LOG.debug("Not checking {} stopped partitions: the manager is closing",
                    partitions.size());
        }
    }

    private void check(Set<TopicIdPartition> partitions, int attempt) {
        Set<TopicIdPartition> again = new HashSet<>();
        try {
            Set<Uuid> ids = new HashSet<>();
            for (TopicIdPartition partition : partitions) {
                ids.add(partition.topicId());
            }
            Map<Uuid, Existence> existence = topics.existence(ids);
            for (TopicIdPartition partition : partitions) {
                Existence topic = existence.getOrDefault(partition.topicId(), Existence.UNKNOWN);
                if (topic == Existence.DELETED) {
                    String outcome = erase.apply(partition);
                    if (outcome.startsWith("pending:")) {
                        again.add(partition);
                    } else if (!outcome.startsWith("absent:")) {
                        LOG.info("Remote log metadata of deleted partition {} {}", partition,
                                outcome);
                    }
                } else if (topic == Existence.UNKNOWN) {
                    again.add(partition);
                }
            }
        } catch (Throwable t) {
            LOG.warn("Could not check whether stopped partitions were deleted: {}", t.toString());
            again.addAll(partitions);
        }
        if (again.isEmpty()) {
            return;
        }
        if (attempt >= ATTEMPTS) {
            LOG.warn("Left the remote log metadata of {} stopped partitions (e.g. {}) after {} "
                    + "attempts: their topic's deletion did not finish or the cluster could not be "
                    + "asked; krabka-tier fsck reports them", again.size(),
                    again.iterator().next(), attempt);
            return;
        }
        schedule(again, attempt + 1, firstDelay.multipliedBy(1L << Math.min(attempt, 10)));
    }

    @Override
    public void close() {
        thread.shutdownNow();
        try {
            thread.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        topics.close();
    }

    /** Topic ids looked up with an {@link Admin} client, made at its first use. */
    static final class AdminTopicIds implements TopicIds {
        private static final long TIMEOUT_MS = 30_000;
        private final Map<String, Object> config;
        private Admin admin;

        AdminTopicIds(Map<String, Object> config) {
            this.config = new HashMap<>(config);
            this.config.putIfAbsent("client.id", "krabka-rlmm-deleted-topics");
        }

        @Override
        public synchronized Map<Uuid, Existence> existence(Set<Uuid> ids) {
            if (admin == null) {
                admin = Admin.create(config);
            }
            Map<Uuid, KafkaFuture<TopicDescription>> described =
                    admin.describeTopics(TopicCollection.ofTopicIds(List.copyOf(ids)))
                            .topicIdValues();
            Map<Uuid, Existence> existence = new HashMap<>();
            for (Map.Entry<Uuid, KafkaFuture<TopicDescription>> entry : described.entrySet()) {
                existence.put(entry.getKey(), of(entry.getValue()));
            }
            return existence;
        }

        private static Existence of(KafkaFuture<TopicDescription> description) {
            try {
                description.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
                return Existence.EXISTS;
            } catch (ExecutionException e) {
                return e.getCause() instanceof UnknownTopicIdException
                        ? Existence.DELETED : Existence.UNKNOWN;
            } catch (TimeoutException e) {
                return Existence.UNKNOWN;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Existence.UNKNOWN;
            }
        }

        @Override
        public synchronized void close() {
            if (admin != null) {
                admin.close(Duration.ofSeconds(5));
                admin = null;
            }
        }
    }
}
