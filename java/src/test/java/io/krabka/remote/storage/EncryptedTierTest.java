/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata.CustomMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager.IndexType;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The chunked format through the adapter, configured with the keys the leading Java plugin's
 * users already have ({@code compression.enabled}, {@code encryption.key.pairs.<id>.*}).
 */
public class EncryptedTierTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** Writes an RSA key pair as PEM files, the private one mode 600; returns its two paths. */
    private Path[] keyPair(String id) throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        KeyPair pair = generator.generateKeyPair();
        Path dir = tmp.getRoot().toPath();
        Path privateFile = dir.resolve(id + "-private.pem");
        Path publicFile = dir.resolve(id + "-public.pem");
        Files.writeString(privateFile, pem("PRIVATE KEY", pair.getPrivate().getEncoded()));
        Files.setPosixFilePermissions(privateFile, PosixFilePermissions.fromString("rw-------"));
        Files.writeString(publicFile, pem("PUBLIC KEY", pair.getPublic().getEncoded()));
        return new Path[] {publicFile, privateFile};
    }

    private static String pem(String label, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der);
        return "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n";
    }

    private Map<String, Object> config(Path root, String active, Map<String, Path[]> pairs) {
        Map<String, Object> config = new HashMap<>();
        config.put("broker.id", 1);
        config.put("filesystem.root", root.toString());
        config.put("chunk.size", "65536");
        config.put("compression.enabled", "true");
        config.put("encryption.enabled", "true");
        config.put("encryption.key.pair.id", active);
        config.put("encryption.key.pairs", String.join(",", pairs.keySet()));
        pairs.forEach((id, files) -> {
            config.put("encryption.key.pairs." + id + ".public.key.file", files[0].toString());
            config.put("encryption.key.pairs." + id + ".private.key.file", files[1].toString());
        });
        return config;
    }

    private static KrabkaRemoteStorageManager open(Map<String, Object> config) {
        KrabkaRemoteStorageManager rsm = new KrabkaRemoteStorageManager();
        rsm.configure(config);
        return rsm;
    }

    /** A log of text records that compresses well. */
    private static byte[] textLog(int size) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; text.length() < size; i++) {
            text.append("{\"order\":").append(i).append(",\"state\":\"shipped\"}\n");
        }
        return Arrays.copyOf(text.toString().getBytes(StandardCharsets.UTF_8), size);
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static Path storedLog(Path root) throws Exception {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(".log")).findFirst().orElseThrow();
        }
    }

    @Test
    public void segmentsAreStoredCompressedAndEncryptedAndReadBackAfterARotation() throws Exception {
        Path root = tmp.newFolder("tier").toPath();
        Path local = tmp.newFolder("local").toPath();
        Map<String, Path[]> pairs = new HashMap<>();
        pairs.put("k1", keyPair("k1"));
        TopicIdPartition tp = Segments.partition("orders", 0);
        Segments.Local segment = Segments.write(local, 0, 300_000, true, 7);
        byte[] log = textLog(300_000);
        Files.write(segment.data.logSegment(), log);
        RemoteLogSegmentMetadata md = Segments.started(tp, 0, 99, log.length);

        KrabkaRemoteStorageManager first = open(config(root, "k1", pairs));
        Optional<CustomMetadata> custom;
        try {
            custom = first.copyLogSegmentData(md, segment.data);
        } finally {
            first.close();
        }
        assertTrue(custom.isPresent());
        byte[] stored = Files.readAllBytes(storedLog(root));
        assertTrue(stored.length * 4 < log.length);
        assertFalse(contains(stored, "shipped".getBytes(StandardCharsets.UTF_8)));

        // As Kafka does: the copy's custom metadata comes back with every later call.
        RemoteLogSegmentMetadata finished = md.createWithUpdates(new RemoteLogSegmentMetadataUpdate(
                md.remoteLogSegmentId(), md.eventTimestampMs(), custom,
                RemoteLogSegmentState.COPY_SEGMENT_FINISHED, md.brokerId()));
        // Rotation: k2 becomes active, k1 stays configured for the segments it wrapped.
        pairs.put("k2", keyPair("k2"));
        KrabkaRemoteStorageManager rotated = open(config(root, "k2", pairs));
        try {
            assertArrayEquals(log, Segments.readAll(rotated.fetchLogSegment(finished, 0)));
            assertArrayEquals(Arrays.copyOfRange(log, 70_000, 200_001),
                    Segments.readAll(rotated.fetchLogSegment(finished, 70_000, 200_000)));
            assertArrayEquals(segment.offsetIndex,
                    Segments.readAll(rotated.fetchIndex(finished, IndexType.OFFSET)));
            assertArrayEquals(segment.leaderEpoch,
                    Segments.readAll(rotated.fetchIndex(finished, IndexType.LEADER_EPOCH)));
        } finally {
            rotated.close();
        }

        // Without k1 the segment is refused with an exception naming the key, not wrong bytes.
        pairs.remove("k1");
        KrabkaRemoteStorageManager withoutK1 = open(config(root, "k2", pairs));
        try {
            RemoteStorageException e = assertThrows(RemoteStorageException.class,
                    () -> withoutK1.fetchLogSegment(finished, 0).close());
            assertTrue(e.getMessage(), e.getMessage().contains("k1"));
        } finally {
            withoutK1.close();
        }
    }

    @Test
    public void keyPairKeysAreCheckedNamingTheKey() throws Exception {
        Path root = tmp.newFolder("tier2").toPath();
        Map<String, Path[]> pairs = new HashMap<>();
        pairs.put("k1", keyPair("k1"));
        Map<String, Object> unlisted = config(root, "k1", pairs);
        unlisted.put("encryption.key.pairs.k9.public.key.file", "/nowhere.pem");
        ConfigException e = assertThrows(ConfigException.class, () -> open(unlisted));
        assertTrue(e.getMessage(), e.getMessage().contains("encryption.key.pairs.k9.public.key.file"));

        Map<String, Object> missingFile = config(root, "k1", pairs);
        missingFile.remove("encryption.key.pairs.k1.private.key.file");
        e = assertThrows(ConfigException.class, () -> open(missingFile));
        assertTrue(e.getMessage(), e.getMessage().contains("encryption.key.pairs.k1.private.key.file"));

        Map<String, Object> wrongActive = config(root, "k2", pairs);
        e = assertThrows(ConfigException.class, () -> open(wrongActive));
        assertTrue(e.getMessage(), e.getMessage().contains("encryption.key.pair.id"));

        Files.setPosixFilePermissions(pairs.get("k1")[1], PosixFilePermissions.fromString("rw-r--r--"));
        e = assertThrows(ConfigException.class, () -> open(config(root, "k1", pairs)));
        assertTrue(e.getMessage(), e.getMessage().contains("chmod 600"));
        assertEquals(-1, e.getMessage().indexOf("BEGIN PRIVATE KEY"));
    }
}
