/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The adapters' {@link ConfigDef}s are the key table of the native library they load
 * ({@code rust/krabka-jni/src/config/keys.rs}, read through {@link NativeBridge#configTable()}):
 * the same keys per plugin, and for each its type (so which are passwords), default, validator,
 * importance, documentation, and whether it is passed to the native library.
 */
public class ConfigTableTest {
    @BeforeClass
    public static void load() {
        NativeLibrary.load(null);
    }

    /** The native table, by {@code "<prefix> <key>"}. */
    private static Map<String, String> rustTable() throws Exception {
        Map<String, String> lines = new TreeMap<>();
        for (String line : NativeBridge.configTable().split("\n")) {
            String[] fields = line.split("\t", -1);
            assertEquals(line, 8, fields.length);
            assertNull("twice in the table: " + line, lines.put(fields[0] + " " + fields[1], line));
        }
        return lines;
    }

    /** {@code def}'s keys, printed as the native table prints its own. */
    private static Map<String, String> describe(String prefix, ConfigDef def) {
        Map<String, String> lines = new TreeMap<>();
        List<String> nativeKeys = prefix.equals("rsm") ? ConfigKeys.NATIVE_KEYS
                : ConfigKeys.NATIVE_METADATA_KEYS;
        for (ConfigDef.ConfigKey key : def.configKeys().values()) {
            lines.put(prefix + " " + key.name, String.join("\t", prefix, key.name,
                    key.type.name().toLowerCase(Locale.ROOT), String.valueOf(key.defaultValue),
                    String.valueOf(key.validator), key.importance.name(),
                    nativeKeys.contains(key.name) ? "native" : "loader",
                    key.documentation));
        }
        return lines;
    }

    /** The adapters' keys, printed as the native table prints its own. */
    private static Map<String, String> javaTable(ConfigDef storageManager) {
        Map<String, String> lines = describe("rsm", storageManager);
        lines.putAll(describe("rlmm", KrabkaRemoteLogMetadataManagerConfig.CONFIG_DEF));
        return lines;
    }

    /** Keys missing on one side or described differently. */
    private static List<String> drift(Map<String, String> rust, Map<String, String> java) {
        List<String> drift = new ArrayList<>();
        TreeSet<String> keys = new TreeSet<>(rust.keySet());
        keys.addAll(java.keySet());
        for (String key : keys) {
            if (!String.valueOf(rust.get(key)).equals(String.valueOf(java.get(key)))) {
                drift.add(key + "\n  rust: " + rust.get(key) + "\n  java: " + java.get(key));
            }
        }
        return drift;
    }

    @Test
    public void theConfigDefsAreTheNativeKeyTable() throws Exception {
        List<String> drift = drift(rustTable(), javaTable(KrabkaRemoteStorageManagerConfig.CONFIG_DEF));
        assertEquals(String.join("\n", drift), List.of(), drift);
    }

    @Test
    public void aDriftedDefaultIsCaught() throws Exception {
        // The drift this table ended: Java defaulted multipart.threshold.bytes to 100 MiB.
        ConfigDef drifted = new ConfigDef();
        for (ConfigDef.ConfigKey key : KrabkaRemoteStorageManagerConfig.CONFIG_DEF.configKeys().values()) {
            if (key.name.equals(ConfigKeys.MULTIPART_THRESHOLD_BYTES_CONFIG)) {
                drifted.define(key.name, key.type, 104_857_600L, key.validator, key.importance,
                        key.documentation);
            } else {
                drifted.define(key);
            }
        }
        List<String> drift = drift(rustTable(), javaTable(drifted));
        assertEquals(String.join("\n", drift), 1, drift.size());
        assertEquals("rsm multipart.threshold.bytes", drift.get(0).split("\n")[0]);
    }

    @Test
    public void onlyTheNativeKeysArePassedOn() throws Exception {
        List<String> storage = new ArrayList<>();
        List<String> metadata = new ArrayList<>();
        for (String line : NativeBridge.configTable().split("\n")) {
            String[] fields = line.split("\t", -1);
            if (fields[6].equals("native")) {
                (fields[0].equals("rsm") ? storage : metadata).add(fields[1]);
            }
        }
        assertEquals(storage, ConfigKeys.NATIVE_KEYS);
        assertEquals(metadata, ConfigKeys.NATIVE_METADATA_KEYS);
    }
}
