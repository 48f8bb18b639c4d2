/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.types.Password;

/**
 * Regenerates the tables of {@code docs/configuration.md} from the adapters' {@link ConfigDef}s
 * ({@code gradle configDocs}); {@code ConfigTest} fails when the file is stale.
 */
public final class ConfigDocs {
    private ConfigDocs() {
    }

    public static void main(String[] args) throws Exception {
        Path path = Paths.get(args[0]);
        String current = new String(Files.readAllBytes(path), StandardCharsets.UTF_8);
        Files.write(path, render(current).getBytes(StandardCharsets.UTF_8));
    }

    /** {@code document} with its generated sections replaced. */
    static String render(String document) {
        String out = replace(document, "rsm", table(KrabkaRemoteStorageManagerConfig.CONFIG_DEF, "rsm.config."));
        return replace(out, "rlmm", table(KrabkaRemoteLogMetadataManagerConfig.CONFIG_DEF, "rlmm.config."));
    }

    private static String replace(String document, String name, String table) {
        String begin = "<!-- BEGIN GENERATED " + name + " -->\n";
        String end = "<!-- END GENERATED " + name + " -->";
        int from = document.indexOf(begin);
        int to = document.indexOf(end);
        if (from < 0 || to < from) {
            throw new IllegalStateException("markers for " + name + " are missing");
        }
        return document.substring(0, from + begin.length()) + table + document.substring(to);
    }

    private static String table(ConfigDef def, String prefix) {
        StringBuilder out = new StringBuilder();
        out.append("| Key (`").append(prefix).append("<key>`) | Type | Default | Valid values | Importance | Description |\n");
        out.append("|---|---|---|---|---|---|\n");
        List<ConfigDef.ConfigKey> keys = def.configKeys().values().stream()
                .sorted((a, b) -> a.name.compareTo(b.name)).collect(java.util.stream.Collectors.toList());
        for (ConfigDef.ConfigKey key : keys) {
            Object value = key.defaultValue;
            String defaultText = !key.hasDefault() ? "(required)"
                    : value == null ? "" : value instanceof Password ? "[hidden]" : String.valueOf(value);
            out.append("| `").append(key.name).append("` | ")
                    .append(key.type.name().toLowerCase(java.util.Locale.ROOT)).append(" | ")
                    .append(defaultText.isEmpty() ? "" : "`" + defaultText + "`").append(" | ")
                    .append(key.validator == null ? "" : key.validator.toString().replace("|", "\\|")).append(" | ")
                    .append(key.importance.name().toLowerCase(java.util.Locale.ROOT)).append(" | ")
                    .append(key.documentation.replace("|", "\\|")).append(" |\n");
        }
        return out.toString();
    }
}
