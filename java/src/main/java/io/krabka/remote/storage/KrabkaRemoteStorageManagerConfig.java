/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * Configuration of {@link KrabkaRemoteStorageManager}: the broker's {@code rsm.config.<key>}
 * properties with the prefix removed.
 *
 * <p>The keys, their types, defaults, valid values and docs are those of
 * {@link ConfigKeys#storageManager()}, generated from the key table of the native library
 * ({@code rust/krabka-jni/src/config/keys.rs}), which also generates
 * {@code docs/configuration.md}. This class refuses unknown keys and values that are not valid
 * for their key; the rules across keys (what each backend requires, the write-once archive mode)
 * are the native library's, which checks them when {@code configure()} opens the storage manager.
 * Either way {@code configure()} fails with a {@link ConfigException} naming the key.
 */
public final class KrabkaRemoteStorageManagerConfig extends AbstractConfig {
    /**
     * Keys the broker adds on its own; accepted and ignored. Kafka 4.0 passes {@code broker.id};
     * later releases also pass {@code node.id}.
     */
    static final Set<String> BROKER_KEYS = Set.of("broker.id", "node.id");

    /** The storage manager's keys, generated from the Rust key table. */
    public static final ConfigDef CONFIG_DEF = ConfigKeys.storageManager();

    /**
     * Parses and validates {@code configs}, key by key.
     *
     * @throws ConfigException naming the first unknown or invalid key
     */
    public KrabkaRemoteStorageManagerConfig(Map<String, ?> configs) {
        super(CONFIG_DEF, ConfigChecks.knownOnly(configs, CONFIG_DEF, BROKER_KEYS,
                new HashSet<>(ConfigKeys.NATIVE_KEY_FAMILIES)), false);
        this.familyEntries = familyEntries(configs);
    }

    /**
     * Members of the key families ({@link ConfigKeys#NATIVE_KEY_FAMILIES}, such as
     * {@code encryption.key.pairs.<id>.public.key.file}), as strings, sorted; the native library
     * checks their names and values.
     */
    private final Map<String, String> familyEntries;

    private static Map<String, String> familyEntries(Map<String, ?> configs) {
        Map<String, String> entries = new TreeMap<>();
        for (Map.Entry<String, ?> entry : configs.entrySet()) {
            String key = entry.getKey();
            if (entry.getValue() != null
                    && ConfigKeys.NATIVE_KEY_FAMILIES.stream().anyMatch(key::startsWith)) {
                entries.put(key, entry.getValue().toString());
            }
        }
        return entries;
    }

    /** Whether the write-once archive mode is on. */
    boolean wormEnabled() {
        return getBoolean(ConfigKeys.WORM_ENABLED_CONFIG);
    }

    /** The {@code native.library.path} override, or null. */
    String nativeLibraryPath() {
        return getString(ConfigKeys.NATIVE_LIBRARY_PATH_CONFIG);
    }

    /**
     * The entries the native library reads ({@link ConfigKeys#NATIVE_KEYS}), as strings, with
     * defaults included and secrets revealed.
     */
    Map<String, String> nativeEntries() {
        Map<String, String> entries = new LinkedHashMap<>();
        for (String key : ConfigKeys.NATIVE_KEYS) {
            Object value = get(key);
            if (value instanceof Password) {
                value = ((Password) value).value();
            }
            if (value != null) {
                entries.put(key, value.toString());
            }
        }
        entries.putAll(familyEntries);
        return Collections.unmodifiableMap(entries);
    }
}
