/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * Configuration of {@link KrabkaRemoteLogMetadataManager}: the broker's {@code rlmm.config.<key>}
 * properties with the prefix removed. Its keys are those of {@link ConfigKeys#metadataManager()},
 * generated from the Rust key table: the store keys the storage manager takes too (so both can
 * name one directory or bucket) and the {@code metadata.*} keys. Besides them the broker passes {@code broker.id},
 * {@code node.id}, {@code log.dir}, {@code cluster.id} and, with a metadata listener,
 * {@code remote.log.metadata.common.client.*}; those are accepted and ignored. Any other key fails
 * {@code configure()} with a {@link ConfigException} naming it.
 */
public final class KrabkaRemoteLogMetadataManagerConfig extends AbstractConfig {
    /** Keys the broker adds on its own ({@code node.id} since Kafka 4.4). */
    static final Set<String> BROKER_KEYS = Set.of("broker.id", "node.id", "log.dir", "cluster.id");
    /** Prefixes of keys the broker adds on its own. */
    static final Set<String> BROKER_PREFIXES = Set.of("remote.log.metadata.common.client.");

    /** The metadata manager's keys, generated from the Rust key table. */
    public static final ConfigDef CONFIG_DEF = ConfigKeys.metadataManager();

    /**
     * Parses and validates {@code configs}.
     *
     * @throws ConfigException naming the first unknown or invalid key
     */
    public KrabkaRemoteLogMetadataManagerConfig(Map<String, ?> configs) {
        super(CONFIG_DEF, ConfigChecks.knownOnly(configs, CONFIG_DEF, BROKER_KEYS, BROKER_PREFIXES),
                false);
    }

    /** The {@code native.library.path} override, or null. */
    String nativeLibraryPath() {
        return getString(ConfigKeys.NATIVE_LIBRARY_PATH_CONFIG);
    }

    /** Whether {@code metadata.manager} is {@code memory} (not durable). */
    boolean inMemory() {
        return "memory".equals(getString(ConfigKeys.METADATA_MANAGER_CONFIG));
    }

    /**
     * The entries the native library reads ({@link ConfigKeys#NATIVE_METADATA_KEYS}), as strings,
     * with defaults included and secrets revealed.
     */
    Map<String, String> nativeEntries() {
        Map<String, String> entries = new LinkedHashMap<>();
        for (String key : ConfigKeys.NATIVE_METADATA_KEYS) {
            Object value = get(key);
            if (value instanceof Password) {
                value = ((Password) value).value();
            }
            if (value != null) {
                entries.put(key, value.toString());
            }
        }
        return Collections.unmodifiableMap(entries);
    }
}
