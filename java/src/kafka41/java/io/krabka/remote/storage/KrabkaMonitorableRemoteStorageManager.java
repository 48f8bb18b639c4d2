/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.metrics.Monitorable;
import org.apache.kafka.common.metrics.PluginMetrics;

/**
 * {@link KrabkaRemoteStorageManager} for Kafka 4.1 and later: the same storage manager, also
 * {@link Monitorable} (KIP-877), so its metrics appear in the broker's own metrics reporters (JMX
 * and any other) with the broker's tags instead of under our own JMX domain.
 *
 * <p>Kafka 4.0 has no {@code Monitorable}: there this class cannot load (a
 * {@code NoClassDefFoundError}); configure {@link KrabkaRemoteStorageManager} instead. This
 * class is compiled against Kafka 4.1+ in its own source set of the same jar.
 *
 * <p>The broker configures the plugin, then hands it its {@link PluginMetrics}: until then, and
 * whenever the broker never does (a {@code remote.log.storage.manager.class.path} is set, see
 * docs/metrics.md), the metrics go through our own JMX reporter as in the base class.
 */
public class KrabkaMonitorableRemoteStorageManager extends KrabkaRemoteStorageManager
        implements Monitorable {
    /** Called by the broker; {@link #configure} must follow. */
    public KrabkaMonitorableRemoteStorageManager() {
        super();
    }

    @Override
    public void withPluginMetrics(PluginMetrics pluginMetrics) {
        try {
            metrics().publish((name, description, tags, value) ->
                    pluginMetrics.addMetric(pluginMetrics.metricName(name, description, tags),
                            value));
            metrics().closeOwn();
        } catch (Throwable t) {
            throw new KafkaException("Could not register the krabka remote storage metrics: "
                    + t.getMessage(), t);
        }
    }
}
