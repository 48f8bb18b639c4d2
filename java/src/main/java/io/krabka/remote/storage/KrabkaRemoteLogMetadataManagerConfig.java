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
 * {@code remote.log.metadata.common.client.*} (used to ask the cluster whether a stopped
 * partition's topic was deleted); those are accepted. Any other key fails
 * {@code configure()} with a {@link ConfigException} naming it.
 */
public final class KrabkaRemoteLogMetadataManagerConfig extends AbstractConfig {
    /** Keys the broker adds on its own ({@code node.id} since Kafka 4.4). */
    static final Set<String> BROKER_KEYS = Set.of("broker.id", "node.id", "log.dir", "cluster.id");
    /** The prefix of the metadata listener's client keys the broker adds. */
    static final String COMMON_CLIENT_PREFIX = "remote.log.metadata.common.client.";
    /** Prefixes of keys the broker adds on its own. */
    static final Set<String> BROKER_PREFIXES = Set.of(COMMON_CLIENT_PREFIX);

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
        Map<String, Object> client = new LinkedHashMap<>();
        for (Map.Entry<String, ?> entry : configs.entrySet()) {
            if (entry.getKey().startsWith(COMMON_CLIENT_PREFIX)) {
                client.put(entry.getKey().substring(COMMON_CLIENT_PREFIX.length()), entry.getValue());
            }
        }
        adminClient = Collections.unmodifiableMap(client);
        Object node = configs.get("node.id");
        brokerId = node != null ? node : configs.get("broker.id");
    }

    /** The broker's id as the broker passed it ({@code node.id}, or {@code broker.id} before 4.4), or null. */
    private final Object brokerId;

    /** The metadata listener's client keys, prefix removed. */
    private final Map<String, Object> adminClient;

    /**
     * The client configuration the broker passes for its metadata listener
     * ({@code remote.log.metadata.common.client.*}, prefix removed): empty unless
     * {@code remote.log.metadata.manager.listener.name} is set.
     */
    Map<String, Object> adminClientConfig() {
        return adminClient;
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
     * with defaults included and secrets revealed, and the broker's {@code node.id} (which names the
     * broker's checkpoint of its partitions' metadata).
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
        // The broker's id names its checkpoint in the store (read at its restart).
        if (brokerId != null && !inMemory()) {
            entries.put("node.id", brokerId.toString());
        }
        return Collections.unmodifiableMap(entries);
    }
}
