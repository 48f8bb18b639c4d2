/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Configuration of {@link KrabkaRemoteLogMetadataManager}: the broker's {@code rlmm.config.<key>}
 * properties with the prefix removed. Its keys are those of {@link ConfigKeys#metadataManager()},
 * generated from the Rust key table. Besides them the broker passes {@code broker.id},
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
}
