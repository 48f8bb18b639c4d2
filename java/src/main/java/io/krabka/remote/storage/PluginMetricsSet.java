/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.LongSupplier;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.common.utils.Time;

/**
 * The metrics of one storage manager as Kafka metrics. The values are counted in the native
 * library; a read takes one snapshot of all of them over JNI ({@code NativeBridge.metricsSnapshot})
 * and reuses it for {@value #SNAPSHOT_MAX_AGE_MS} ms, so a reporter reading every metric makes
 * one native call, and no operation ever makes one for its metrics.
 *
 * <p>Published either into a {@link Metrics} registry of our own with a {@link JmxReporter} whose
 * domain is {@value #JMX_DOMAIN} (every Kafka 4.x), or, on Kafka 4.1+, through the broker's
 * {@code PluginMetrics} by {@link KrabkaMonitorableRemoteStorageManager}'s caller; never both at
 * once. See docs/metrics.md.
 */
final class PluginMetricsSet implements AutoCloseable {
    /** The JMX domain of the metrics published without the broker's {@code PluginMetrics}. */
    static final String JMX_DOMAIN = "io.krabka.remote.storage";
    /** The metric group (the JMX {@code type}) of the storage manager's metrics. */
    static final String GROUP = "remote-storage-manager";
    /** How long one snapshot answers reads. */
    static final long SNAPSHOT_MAX_AGE_MS = 1000;

    /** Where metrics go: Kafka's {@code Metrics} or the broker's {@code PluginMetrics}. */
    interface Sink {
        /** Adds one metric; {@code tags} may be empty. */
        void add(String name, String description, LinkedHashMap<String, String> tags,
                Measurable value);
    }

    /** One line of {@code NativeBridge.metricsCatalog()}. */
    static final class Definition {
        final String name;
        final String tagKey;
        final String tagValue;
        final String kind;
        final String description;

        Definition(String line) {
            String[] fields = line.split("\t", -1);
            if (fields.length != 5) {
                throw new IllegalArgumentException("bad metrics catalog line: " + line);
            }
            name = fields[0];
            tagKey = fields[1];
            tagValue = fields[2];
            kind = fields[3];
            description = fields[4];
        }

        LinkedHashMap<String, String> tags() {
            LinkedHashMap<String, String> tags = new LinkedHashMap<>();
            if (!tagKey.isEmpty()) {
                tags.put(tagKey, tagValue);
            }
            return tags;
        }
    }

    private static volatile List<Definition> catalog;

    private final LongSupplier handle;
    /** The last snapshot; {@code null} until the first read. */
    private double[] values;
    private long fetchedAtMs;
    private Metrics own;

    /** Metrics of the storage manager whose current native handle {@code handle} returns. */
    PluginMetricsSet(LongSupplier handle) {
        this.handle = handle;
    }

    /** Every metric the native library counts, in snapshot order (read once per JVM). */
    static List<Definition> catalog() throws Exception {
        List<Definition> current = catalog;
        if (current == null) {
            List<Definition> parsed = new ArrayList<>();
            for (String line : NativeBridge.metricsCatalog().split("\n")) {
                if (!line.isEmpty()) {
                    parsed.add(new Definition(line));
                }
            }
            current = Collections.unmodifiableList(parsed);
            catalog = current;
        }
        return current;
    }

    /** Adds every metric to {@code sink}. */
    void publish(Sink sink) throws Exception {
        List<Definition> definitions = catalog();
        for (int i = 0; i < definitions.size(); i++) {
            Definition d = definitions.get(i);
            int index = i;
            sink.add(d.name, d.description, d.tags(), (config, now) -> value(index, now));
        }
    }

    /** Publishes every metric through our own JMX reporter (idempotent). */
    synchronized void publishOwn() throws Exception {
        if (own != null) {
            return;
        }
        List<MetricsReporter> reporters = Collections.singletonList(new JmxReporter());
        Metrics metrics = new Metrics(new MetricConfig(), reporters, Time.SYSTEM,
                new KafkaMetricsContext(JMX_DOMAIN));
        try {
            publish((name, description, tags, value) ->
                    metrics.addMetric(new MetricName(name, GROUP, description, tags), value));
        } catch (Exception | Error e) {
            metrics.close();
            throw e;
        }
        own = metrics;
    }

    /** Stops publishing through our own JMX reporter (the broker publishes them instead). */
    synchronized void closeOwn() {
        if (own != null) {
            own.close();
            own = null;
        }
    }

    @Override
    public void close() {
        closeOwn();
    }

    /** Metric {@code index} from a snapshot at most {@value #SNAPSHOT_MAX_AGE_MS} ms old. */
    synchronized double value(int index, long nowMs) {
        if (values == null || nowMs - fetchedAtMs >= SNAPSHOT_MAX_AGE_MS || nowMs < fetchedAtMs) {
            try {
                values = NativeBridge.metricsSnapshot(handle.getAsLong());
            } catch (Exception e) {
                // Closed or not configured: no values (NaN), as Kafka reports a missing one.
                values = new double[0];
            }
            fetchedAtMs = nowMs;
        }
        return index < values.length ? values[index] : Double.NaN;
    }
}
