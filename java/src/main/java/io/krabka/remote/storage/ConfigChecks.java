/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** Checks shared by the adapters' configurations. */
final class ConfigChecks {
    private ConfigChecks() {
    }

    /**
     * {@code configs} without the keys the broker adds on its own, after checking that every other
     * key is defined.
     *
     * @throws ConfigException naming the first unknown key
     */
    static Map<String, Object> knownOnly(Map<String, ?> configs, ConfigDef def,
            Set<String> brokerKeys, Set<String> brokerPrefixes) {
        Map<String, Object> known = new HashMap<>();
        for (Map.Entry<String, ?> entry : configs.entrySet()) {
            String key = entry.getKey();
            if (def.names().contains(key)) {
                known.put(key, entry.getValue());
            } else if (!brokerKeys.contains(key)
                    && brokerPrefixes.stream().noneMatch(key::startsWith)) {
                // The value is not shown: a mistyped secret key must not leak its secret.
                throw new ConfigException(key, "<hidden>",
                        "unknown configuration key; known keys are " + new TreeSet<>(def.names()));
            }
        }
        return known;
    }

    /**
     * Fails unless {@code key} has a non-blank value.
     *
     * @throws ConfigException naming the key
     */
    static void require(AbstractConfig config, String key, String backend) {
        requireWhen(config, key, "backend is " + backend);
    }

    /**
     * Fails unless {@code key} has a non-blank value; the message says it is required when
     * {@code condition}.
     *
     * @throws ConfigException naming the key
     */
    static void requireWhen(AbstractConfig config, String key, String condition) {
        String value = config.getString(key);
        if (value == null || value.trim().isEmpty()) {
            throw new ConfigException(key, value, "required when " + condition);
        }
    }
}
