/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager.IndexType;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The storage manager's metrics move with real copies, fetches and deletes on the filesystem
 * tier, and reach JMX (own reporter) or the broker's {@code PluginMetrics} (Kafka 4.1+).
 */
public class PluginMetricsTest {
    private static final String MONITORABLE = "org.apache.kafka.common.metrics.Monitorable";
    private static final String SUBCLASS =
            "io.krabka.remote.storage.KrabkaMonitorableRemoteStorageManager";

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static ObjectName objectName(String tags) throws Exception {
        return new ObjectName(PluginMetricsSet.JMX_DOMAIN + ":type=" + PluginMetricsSet.GROUP + tags);
    }

    private static double jmx(String name) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        return ((Number) server.getAttribute(objectName(""), name)).doubleValue();
    }

    private static void configure(RemoteStorageManager rsm, Path root) {
        Map<String, Object> config = new HashMap<>();
        config.put("filesystem.root", root.toString());
        config.put("broker.id", 1);
        rsm.configure(config);
    }

    /** Copies two segments, fetches one whole and reads an index; returns the bytes copied. */
    private long workload(RemoteStorageManager rsm) throws Exception {
        Path local = tmp.newFolder().toPath();
        TopicIdPartition tp = Segments.partition("orders", 0);
        Segments.Local first = Segments.write(local, 0, 70_000, false, 1);
        Segments.Local second = Segments.write(local, 100, 5_000, true, 2);
        RemoteLogSegmentMetadata firstMd = Segments.started(tp, 0, 99, first.log.length);
        RemoteLogSegmentMetadata secondMd = Segments.started(tp, 100, 199, second.log.length);
        rsm.copyLogSegmentData(firstMd, first.data);
        rsm.copyLogSegmentData(secondMd, second.data);
        Segments.readAll(rsm.fetchLogSegment(firstMd, 0));
        Segments.readAll(rsm.fetchIndex(secondMd, IndexType.OFFSET));
        rsm.deleteLogSegmentData(secondMd);
        return first.log.length + second.log.length;
    }

    private static boolean hasMonitorable() {
        try {
            Class.forName(MONITORABLE);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    @Test
    public void theBaseClassPublishesThroughItsOwnJmxReporter() throws Exception {
        KrabkaRemoteStorageManager rsm = new KrabkaRemoteStorageManager();
        configure(rsm, tmp.newFolder("tier").toPath());
        try {
            long bytes = workload(rsm);
            // A snapshot answers reads for up to a second: wait it out once.
            Thread.sleep(PluginMetricsSet.SNAPSHOT_MAX_AGE_MS + 50);
            assertEquals(2.0, jmx("copy-total"), 0.0);
            assertEquals(bytes, jmx("copy-bytes-total"), 0.0);
            assertEquals(1.0, jmx("fetch-total"), 0.0);
            assertEquals(70_000.0, jmx("fetch-bytes-served-total"), 0.0);
            assertEquals(0.0, jmx("fetch-open-streams"), 0.0);
            assertEquals(1.0, jmx("index-fetch-total"), 0.0);
            assertEquals(1.0, jmx("delete-total"), 0.0);
            assertTrue(jmx("copy-time-max") > 0.0);
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            assertEquals(0.0, ((Number) server.getAttribute(
                    objectName(",error-class=not-found"), "fetch-failures-total")).doubleValue(), 0.0);
            // The filesystem tier makes no object-store request; the series exist, tagged.
            assertEquals(0.0, ((Number) server.getAttribute(
                    objectName(",outcome=ok"), "object-store-put-total")).doubleValue(), 0.0);
            assertEquals(0.0, jmx("archive-seals-written-total"), 0.0);
        } finally {
            rsm.close();
        }
        assertFalse("closing unregisters the metrics",
                ManagementFactory.getPlatformMBeanServer().isRegistered(objectName("")));
    }

    @Test
    public void theMonitorableSubclassLoadsExactlyWhereKafkaHasMonitorable() throws Exception {
        if (!hasMonitorable()) {
            // Kafka 4.0: the subclass must fail alone, the base class (above) works.
            try {
                Class.forName(SUBCLASS);
                fail("the Monitorable subclass loaded without Monitorable");
            } catch (NoClassDefFoundError expected) {
                assertTrue(expected.getMessage(), expected.getMessage().contains("Monitorable"));
            }
            return;
        }
        Map<MetricName, Measurable> registered = new LinkedHashMap<>();
        Class<?> pluginMetrics = Class.forName("org.apache.kafka.common.metrics.PluginMetrics");
        Object proxy = Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {pluginMetrics}, (self, method, args) -> {
                    switch (method.getName()) {
                        case "metricName":
                            @SuppressWarnings("unchecked")
                            Map<String, String> tags = (Map<String, String>) args[2];
                            return new MetricName((String) args[0], "plugins", (String) args[1], tags);
                        case "addMetric":
                            registered.put((MetricName) args[0], (Measurable) args[1]);
                            return null;
                        default:
                            throw new UnsupportedOperationException(method.getName());
                    }
                });
        RemoteStorageManager rsm = (RemoteStorageManager) Class.forName(SUBCLASS)
                .getConstructor().newInstance();
        configure(rsm, tmp.newFolder("tier").toPath());
        try {
            assertTrue("before withPluginMetrics, our own reporter publishes",
                    ManagementFactory.getPlatformMBeanServer().isRegistered(objectName("")));
            Class.forName(MONITORABLE).getMethod("withPluginMetrics", pluginMetrics)
                    .invoke(rsm, proxy);
            assertFalse("the broker's PluginMetrics replace our own reporter",
                    ManagementFactory.getPlatformMBeanServer().isRegistered(objectName("")));
            long bytes = workload(rsm);
            Measurable copies = null;
            Measurable copiedBytes = null;
            for (Map.Entry<MetricName, Measurable> e : registered.entrySet()) {
                if (e.getKey().name().equals("copy-total")) {
                    copies = e.getValue();
                } else if (e.getKey().name().equals("copy-bytes-total")) {
                    copiedBytes = e.getValue();
                }
            }
            assertNotNull(copies);
            assertNotNull(copiedBytes);
            long later = System.currentTimeMillis() + PluginMetricsSet.SNAPSHOT_MAX_AGE_MS;
            assertEquals(2.0, copies.measure(new MetricConfig(), later), 0.0);
            assertEquals(bytes, copiedBytes.measure(new MetricConfig(), later), 0.0);
            assertEquals(PluginMetricsSet.catalog().size(), registered.size());
        } finally {
            rsm.close();
        }
    }
}
