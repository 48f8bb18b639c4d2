/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class ConfigTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static Map<String, Object> rsm(Object... keyValues) {
        Map<String, Object> config = new HashMap<>();
        config.put("broker.id", 3);
        for (int i = 0; i < keyValues.length; i += 2) {
            config.put((String) keyValues[i], keyValues[i + 1]);
        }
        return config;
    }

    private static void assertNamesKey(String key, Map<String, Object> config) {
        ConfigException e = assertThrows(ConfigException.class,
                () -> new KrabkaRemoteStorageManager().configure(config));
        assertTrue(e.getMessage(), e.getMessage().contains(key));
    }

    @Test
    public void theBrokerIdentityKeysOfEveryKafkaVersionAreAccepted() {
        // Kafka 4.4 passes node.id besides broker.id to both plugins' configure().
        KrabkaRemoteStorageManagerConfig config = new KrabkaRemoteStorageManagerConfig(
                rsm("filesystem.root", "/tmp/x", "node.id", 3));
        assertFalse(config.nativeEntries().containsKey("node.id"));
    }

    @Test
    public void unknownKeysFailNamingTheKeyWithoutShowingTheValue() {
        ConfigException e = assertThrows(ConfigException.class, () -> new KrabkaRemoteStorageManager()
                .configure(rsm("filesystem.root", "/tmp/x", "s3.secret.acess.key", "hunter2")));
        assertTrue(e.getMessage(), e.getMessage().contains("s3.secret.acess.key"));
        assertFalse(e.getMessage(), e.getMessage().contains("hunter2"));
    }

    @Test
    public void missingAndInvalidValuesNameTheKey() {
        assertNamesKey("filesystem.root", rsm());
        assertNamesKey("backend", rsm("backend", "azure"));
        assertNamesKey("s3.bucket", rsm("backend", "s3", "s3.region", "eu-west-1"));
        assertNamesKey("s3.region", rsm("backend", "s3", "s3.bucket", "tiered"));
        assertNamesKey("gcs.bucket", rsm("backend", "gcs"));
        assertNamesKey("s3.path.style", rsm("backend", "s3", "s3.bucket", "tiered", "s3.region", "r",
                "s3.path.style", "sometimes"));
        assertNamesKey("multipart.chunk.size.bytes", rsm("backend", "s3", "s3.bucket", "tiered",
                "s3.region", "r", "multipart.chunk.size.bytes", "1024"));
        assertNamesKey("s3.secret.access.key", rsm("backend", "s3", "s3.bucket", "tiered",
                "s3.region", "r", "s3.access.key.id", "AKIA"));
    }

    @Test
    public void nativeValidationNamesTheKeyToo() {
        // ConfigDef accepts any string; the Rust side refuses an http endpoint without allow.http.
        assertNamesKey("endpoint", rsm("backend", "s3", "s3.bucket", "tiered", "s3.region", "r",
                "s3.endpoint", "http://127.0.0.1:9"));
    }

    @Test
    public void anS3BackendConfiguresWithoutContactingTheServerAndFailsCleanlyWhenItIsDown()
            throws Exception {
        KrabkaRemoteStorageManager rsm = new KrabkaRemoteStorageManager();
        rsm.configure(rsm("backend", "s3", "s3.bucket", "tiered", "s3.region", "us-east-1",
                "s3.endpoint", "http://127.0.0.1:9", "s3.allow.http", "true", "s3.path.style", "true",
                "s3.access.key.id", "id", "s3.secret.access.key", "secret", "max.retries", "0",
                "retry.timeout.ms", "500", "connect.timeout.ms", "500", "request.timeout.ms", "1000"));
        try {
            org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata md =
                    Segments.started(Segments.partition("orders", 0), 0, 9, 10);
            org.apache.kafka.server.log.remote.storage.RemoteStorageException e = assertThrows(
                    org.apache.kafka.server.log.remote.storage.RemoteStorageException.class,
                    () -> rsm.fetchIndex(md, org.apache.kafka.server.log.remote.storage
                            .RemoteStorageManager.IndexType.OFFSET));
            assertFalse(e instanceof org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException);
        } finally {
            rsm.close();
        }
    }

    @Test
    public void secretsArePasswordsAndReachTheNativeSideRevealed() {
        KrabkaRemoteStorageManagerConfig config = new KrabkaRemoteStorageManagerConfig(rsm(
                "backend", "s3", "s3.bucket", "tiered", "s3.region", "r", "s3.access.key.id", "AKIA",
                "s3.secret.access.key", "hunter2"));
        assertFalse(config.values().toString().contains("hunter2"));
        Map<String, String> entries = config.nativeEntries();
        assertEquals("hunter2", entries.get("s3.secret.access.key"));
        assertEquals("false", entries.get("s3.path.style"));
        assertFalse(entries.containsKey("broker.id"));
        assertFalse(entries.containsKey("native.library.path"));
    }

    @Test
    public void theMultipartDefaultsAreTheNativeSidesAndKeepASinglePutWithinThePartsBudget() {
        // The threshold was 100 MiB here and 16 MiB in Rust: each copy could buffer 100 MiB of native
        // memory. A single PUT holds its whole body, so it must hold no more than the parts in flight do.
        Map<String, String> entries = new KrabkaRemoteStorageManagerConfig(rsm(
                "backend", "s3", "s3.bucket", "tiered", "s3.region", "r")).nativeEntries();
        assertEquals("16777216", entries.get("multipart.threshold.bytes"));
        assertEquals("5242880", entries.get("multipart.chunk.size.bytes"));
        assertEquals("16", entries.get("multipart.parts.in.flight"));
        long threshold = Long.parseLong(entries.get("multipart.threshold.bytes"));
        long budget = Long.parseLong(entries.get("multipart.chunk.size.bytes"))
                * Long.parseLong(entries.get("multipart.parts.in.flight"));
        assertTrue(threshold + " above the parts' budget " + budget, threshold <= budget);
    }

    private static final Object[] S3 = {"backend", "s3", "s3.bucket", "archive", "s3.region", "r",
        "s3.endpoint", "http://127.0.0.1:9", "s3.allow.http", "true", "s3.path.style", "true",
        "s3.access.key.id", "id", "s3.secret.access.key", "secret", "max.retries", "0",
        "retry.timeout.ms", "500", "connect.timeout.ms", "500", "request.timeout.ms", "1000"};

    private static Map<String, Object> s3(Object... more) {
        Map<String, Object> config = rsm(S3);
        config.putAll(rsm(more));
        return config;
    }

    @Test
    public void wormKeysReachTheNativeSide() {
        Map<String, String> entries = new KrabkaRemoteStorageManagerConfig(s3("worm.enabled", "true",
                "worm.signing.key.path", "/etc/krabka/worm-key.pem", "worm.key.id", "archive-2026",
                "worm.write.only", "true")).nativeEntries();
        assertEquals("true", entries.get("worm.enabled"));
        assertEquals("/etc/krabka/worm-key.pem", entries.get("worm.signing.key.path"));
        assertEquals("archive-2026", entries.get("worm.key.id"));
        assertEquals("true", entries.get("worm.write.only"));
        Map<String, String> defaults = new KrabkaRemoteStorageManagerConfig(s3()).nativeEntries();
        assertEquals("false", defaults.get("worm.enabled"));
        assertEquals("false", defaults.get("worm.write.only"));
        assertFalse(defaults.containsKey("worm.key.id"));
    }

    @Test
    public void wormNeedsAKeyPathAKeyIdAndAnObjectStore() {
        assertNamesKey("worm.signing.key.path", s3("worm.enabled", "true", "worm.key.id", "k1"));
        assertNamesKey("worm.key.id", s3("worm.enabled", "true", "worm.signing.key.path", "/k.pem"));
        assertNamesKey("worm.key.id", s3("worm.enabled", "true", "worm.signing.key.path", "/k.pem",
                "worm.key.id", "no spaces allowed"));
        assertNamesKey("worm.enabled", rsm("filesystem.root", "/tmp/x", "worm.enabled", "true",
                "worm.signing.key.path", "/k.pem", "worm.key.id", "k1"));
        assertNamesKey("worm.write.only", s3("worm.write.only", "sometimes"));
    }

    @Test
    public void wormKeysAreIgnoredWhileTheModeIsOff() throws Exception {
        KrabkaRemoteStorageManager rsm = new KrabkaRemoteStorageManager();
        rsm.configure(rsm("filesystem.root", tmp.newFolder("tier").toString(), "worm.enabled", "false",
                "worm.signing.key.path", "/nonexistent.pem", "worm.key.id", "k1",
                "worm.write.only", "true"));
        rsm.close();
    }

    @Test
    public void aWormArchiveThatCannotStartFailsConfigureNamingWormEnabled() {
        // An unreadable key: refused before any request.
        assertNamesKey("worm.enabled", s3("worm.enabled", "true",
                "worm.signing.key.path", "/nonexistent/worm-key.pem", "worm.key.id", "k1"));
        // A valid key, but no server to prove the bucket is locked.
        Path key = Paths.get("rust/krabka-remote-storage/tests/fixtures/worm/test-key-1.pem")
                .toAbsolutePath();
        assertTrue(key.toString(), Files.isRegularFile(key));
        assertNamesKey("worm.enabled", s3("worm.enabled", "true", "worm.signing.key.path",
                key.toString(), "worm.key.id", "test-key-1"));
    }

    @Test
    public void theMetadataManagerAcceptsWhatTheBrokerAddsAndNothingElse() {
        Map<String, Object> config = new HashMap<>();
        config.put("broker.id", 1);
        config.put("node.id", 1);
        config.put("log.dir", "/var/lib/kafka");
        config.put("cluster.id", "x");
        config.put("remote.log.metadata.common.client.bootstrap.servers", "localhost:9092");
        config.put("remote.log.metadata.common.client.security.protocol", "PLAINTEXT");
        // The metadata listener's client keys, for the admin client that asks whether a stopped
        // partition's topic was deleted.
        assertEquals(Map.of("bootstrap.servers", "localhost:9092", "security.protocol", "PLAINTEXT"),
                new KrabkaRemoteLogMetadataManagerConfig(config).adminClientConfig());
        // The broker's id names its checkpoint in the store: node.id, or broker.id from Kafka 4.0.
        config.put("node.id", 7);
        assertEquals("7", new KrabkaRemoteLogMetadataManagerConfig(config).nativeEntries().get("node.id"));
        config.remove("node.id");
        assertEquals("1", new KrabkaRemoteLogMetadataManagerConfig(config).nativeEntries().get("node.id"));
        config.put("remote.log.metadata.topic.replication.factor", "1");
        ConfigException e = assertThrows(ConfigException.class,
                () -> new KrabkaRemoteLogMetadataManager().configure(config));
        assertTrue(e.getMessage(), e.getMessage().contains("remote.log.metadata.topic.replication.factor"));
    }
}
