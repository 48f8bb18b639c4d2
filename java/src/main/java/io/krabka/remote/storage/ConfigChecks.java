/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
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
     * The validator of a {@code Token} text rule of the Rust key table ({@code ConfigKeys} uses
     * it): accepts null, the empty string, or {@code min} to {@code max} characters of ASCII
     * letters, digits and {@code punctuation}. The native side applies the same rule
     * ({@code TextRule::accepts}); {@code ConfigTableTest} checks that both describe it alike.
     */
    static final class TokenValidator implements ConfigDef.Validator {
        private final int min;
        private final int max;
        private final String punctuation;

        TokenValidator(int min, int max, String punctuation) {
            this.min = min;
            this.max = max;
            this.punctuation = punctuation;
        }

        @Override
        public void ensureValid(String name, Object value) {
            if (value == null || value.toString().isEmpty()) {
                return;
            }
            String text = value.toString();
            boolean valid = text.length() >= min && text.length() <= max
                    && text.chars().allMatch(c -> c < 128
                            && (Character.isLetterOrDigit(c) || punctuation.indexOf(c) >= 0));
            if (!valid) {
                throw new ConfigException(name, value, "expected " + this);
            }
        }

        @Override
        public String toString() {
            return min + " to " + max + " characters of [A-Za-z0-9" + punctuation + "]";
        }
    }
}
