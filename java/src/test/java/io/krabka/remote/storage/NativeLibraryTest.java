/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.server.log.remote.storage.RemoteLogMetadataManager;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The broker loads the RSM and the RLMM through separate child-first class
 * loaders when their {@code class.path} settings are set, and each needs the native library bound
 * to its own copy of {@link NativeBridge}. These tests build such loaders over the plugin's
 * classes and resources (with the bundled release library and its recorded SHA-256).
 */
public class NativeLibraryTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private String explicitPath;

    @Before
    public void clearOverride() {
        // Make the plugin loaders use the bundled library, not the test build.
        explicitPath = System.getProperty(NativeLibrary.PATH_PROPERTY);
        System.clearProperty(NativeLibrary.PATH_PROPERTY);
    }

    @After
    public void restoreOverride() {
        if (explicitPath != null) {
            System.setProperty(NativeLibrary.PATH_PROPERTY, explicitPath);
        }
    }

    /** Child-first for the plugin's own classes and resources, like Kafka's ChildFirstClassLoader. */
    static class PluginLoader extends URLClassLoader {
        PluginLoader() throws Exception {
            super(pluginUrls(), NativeLibraryTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("io.krabka.") || name.endsWith("Test") || name.contains("Test$")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null) {
                    loaded = findClass(name);
                }
                if (resolve) {
                    resolveClass(loaded);
                }
                return loaded;
            }
        }

        @Override
        public URL getResource(String name) {
            URL own = findResource(name);
            return own != null ? own : super.getResource(name);
        }

        static URL[] pluginUrls() throws Exception {
            URL classes = KrabkaRemoteStorageManager.class.getProtectionDomain().getCodeSource().getLocation();
            String resource = NativeLibrary.VERSION_RESOURCE;
            String versionUrl = NativeLibrary.class.getResource(resource).toString();
            URL resources = new URL(versionUrl.substring(0, versionUrl.length() - resource.length() + 1));
            return new URL[] {classes, resources};
        }
    }

    /** A plugin loader whose recorded checksum does not match the bundled library. */
    static final class DamagedLoader extends PluginLoader {
        DamagedLoader() throws Exception {
            super();
        }

        @Override
        public InputStream getResourceAsStream(String name) {
            if (name.endsWith(".so.sha256")) {
                return new ByteArrayInputStream(("0".repeat(64) + "\n").getBytes(StandardCharsets.US_ASCII));
            }
            return super.getResourceAsStream(name);
        }
    }

    private static <T> T instantiate(ClassLoader loader, String className, Class<T> type) throws Exception {
        Class<?> c = loader.loadClass(className);
        assertNotSame("the class must come from the plugin loader", c, Class.forName(className));
        return type.cast(c.getDeclaredConstructor().newInstance());
    }

    private static Map<String, Object> brokerConfig() {
        Map<String, Object> config = new HashMap<>();
        config.put("broker.id", 1);
        return config;
    }

    @Test
    public void separateLoadersForTheRsmAndTheRlmmEachLoadTheBundledLibrary() throws Exception {
        try (PluginLoader rsmLoader = new PluginLoader(); PluginLoader rlmmLoader = new PluginLoader()) {
            RemoteStorageManager rsm = instantiate(rsmLoader,
                    "io.krabka.remote.storage.KrabkaRemoteStorageManager", RemoteStorageManager.class);
            RemoteLogMetadataManager rlmm = instantiate(rlmmLoader,
                    "io.krabka.remote.storage.KrabkaRemoteLogMetadataManager", RemoteLogMetadataManager.class);
            Path tier = tmp.newFolder("tier").toPath();
            Map<String, Object> rsmConfig = brokerConfig();
            rsmConfig.put("filesystem.root", tier.toString());
            rsm.configure(rsmConfig);
            // The metadata manager keeps its history in the same directory.
            rlmm.configure(rsmConfig);
            try {
                TopicIdPartition tp = Segments.partition("orders", 0);
                Segments.Local segment = Segments.write(tmp.newFolder("local").toPath(), 0, 5000, false, 1);
                RemoteLogSegmentMetadata md = Segments.started(tp, 0, 9, segment.log.length);
                rlmm.addRemoteLogSegmentMetadata(md).get();
                rsm.copyLogSegmentData(md, segment.data);
                assertArrayEquals(segment.log, Segments.readAll(rsm.fetchLogSegment(md, 0)));
                assertEquals(1, countOf(rlmm.listRemoteLogSegments(tp)));
            } finally {
                rsm.close();
                rlmm.close();
            }
        }
    }

    @Test
    public void anOperatorPathAlreadyLoadedByAnotherLoaderIsLoadedAsAPrivateCopy() throws Exception {
        NativeLibrary.load(explicitPath); // the test loader holds the test build's file
        try (PluginLoader loader = new PluginLoader()) {
            RemoteLogMetadataManager rlmm = instantiate(loader,
                    "io.krabka.remote.storage.KrabkaRemoteLogMetadataManager", RemoteLogMetadataManager.class);
            Map<String, Object> config = brokerConfig();
            config.put("native.library.path", explicitPath);
            config.put("filesystem.root", tmp.newFolder("metadata").toString());
            rlmm.configure(config);
            try {
                TopicIdPartition tp = Segments.partition("orders", 1);
                rlmm.addRemoteLogSegmentMetadata(Segments.started(tp, 0, 9, 10)).get();
                assertEquals(1, countOf(rlmm.listRemoteLogSegments(tp)));
            } finally {
                rlmm.close();
            }
        }
    }

    @Test
    public void aDamagedJarIsRefusedWithAMessageSayingSo() throws Exception {
        try (DamagedLoader loader = new DamagedLoader()) {
            RemoteLogMetadataManager rlmm = instantiate(loader,
                    "io.krabka.remote.storage.KrabkaRemoteLogMetadataManager", RemoteLogMetadataManager.class);
            KafkaException e = assertThrows(KafkaException.class, () -> rlmm.configure(brokerConfig()));
            assertTrue(e.getMessage(), e.getMessage().contains("SHA-256"));
            assertTrue(e.getMessage(), e.getMessage().contains("damaged"));
        }
    }

    @Test
    public void aMissingOperatorFileIsRefusedWithAHint() throws Exception {
        try (PluginLoader loader = new PluginLoader()) {
            RemoteLogMetadataManager rlmm = instantiate(loader,
                    "io.krabka.remote.storage.KrabkaRemoteLogMetadataManager", RemoteLogMetadataManager.class);
            Map<String, Object> config = brokerConfig();
            config.put("native.library.path", tmp.getRoot().toPath().resolve("nope.so").toString());
            KafkaException e = assertThrows(KafkaException.class, () -> rlmm.configure(config));
            assertTrue(e.getMessage(), e.getMessage().contains("nope.so"));
            assertTrue(e.getMessage(), e.getMessage().contains("native.library.path"));
        }
    }

    private static int countOf(java.util.Iterator<?> iterator) {
        int n = 0;
        while (iterator.hasNext()) {
            iterator.next();
            n++;
        }
        return n;
    }
}
