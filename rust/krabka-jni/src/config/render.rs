//! Renders the key table for the other side: the Java `ConfigKeys` class,
//! the tables of `docs/configuration.md`, and the per-key lines the Java
//! tests compare their `ConfigDef`s with.
//!
//! Both files are committed. `cargo test -p krabka-jni` fails when either
//! differs from what this module renders, and
//! `KRABKA_REGENERATE=1 cargo test -p krabka-jni --lib config::render`
//! (what `gradle configDocs` runs) rewrites them.

use {
    super::keys::{ConfigKey, Importance, KEY_FAMILIES, Kind, Plugin, Range, Reader, TextRule},
    std::fmt::Write as _,
};

/// The generated Java class, relative to the repository root.
pub const JAVA_SOURCE_PATH: &str = "java/src/main/java/io/krabka/remote/storage/ConfigKeys.java";

/// The configuration reference, relative to the repository root.
pub const DOCS_PATH: &str = "docs/configuration.md";

/// The command that rewrites both generated files.
pub const REGENERATE: &str = "KRABKA_REGENERATE=1 cargo test -p krabka-jni --lib config::render";

/// `docs/configuration.md` cannot be rendered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// A generated section's begin or end marker is missing or out of order.
    #[error("the markers of the generated section `{section}` are missing or out of order")]
    Markers {
        /// The section (`rsm` or `rlmm`).
        section: &'static str,
    },
}

/// The prefix a plugin's keys carry in the broker's configuration, which
/// also names its generated section of the docs.
const fn prefix(plugin: Plugin) -> &'static str {
    match plugin {
        Plugin::StorageManager => "rsm",
        Plugin::MetadataManager => "rlmm",
    }
}

/// Kafka's `ConfigDef.Type` of a key, lower case (`Type.name()`).
fn kafka_type(kind: Kind) -> &'static str {
    match kind {
        Kind::Text { .. } => "string",
        Kind::Secret => "password",
        Kind::Boolean { .. } => "boolean",
        Kind::Int { .. } => "int",
        Kind::Long { .. } => "long",
    }
}

/// The default as Java's `String.valueOf` prints it; `None` for null.
fn default_text(kind: Kind) -> Option<String> {
    match kind {
        Kind::Text { default, .. } => default.map(str::to_owned),
        Kind::Secret => None,
        Kind::Boolean { default } => Some(default.to_string()),
        Kind::Int { default, .. } => Some(default.to_string()),
        Kind::Long { default, .. } => Some(default.to_string()),
    }
}

/// The key's `ConfigDef.Validator` as its `toString()` prints it; `None`
/// when the key has none.
fn validator_text(kind: Kind) -> Option<String> {
    match kind {
        Kind::Text { rule, .. } => rule.describe(),
        Kind::Secret | Kind::Boolean { .. } => None,
        Kind::Int { range, .. } | Kind::Long { range, .. } => Some(match range.max {
            None => format!("[{},...]", range.min),
            Some(max) => format!("[{},...,{max}]", range.min),
        }),
    }
}

/// `ConfigDef.Importance`'s name.
fn importance_name(importance: Importance) -> &'static str {
    match importance {
        Importance::High => "HIGH",
        Importance::Medium => "MEDIUM",
        Importance::Low => "LOW",
    }
}

/// The Java constant of a key: `s3.bucket` is `S3_BUCKET_CONFIG`.
fn constant(key: ConfigKey) -> String {
    format!(
        "{}_CONFIG",
        key.name().to_ascii_uppercase().replace('.', "_")
    )
}

/// One line per plugin and key, tab-separated: prefix, name, Kafka type,
/// default (`null` for none), validator (`null` for none), importance,
/// `native` or `loader`, documentation. The Java tests print each
/// `ConfigDef.ConfigKey` the same way and compare.
#[must_use]
pub fn java_table() -> String {
    let mut out = String::new();
    for plugin in [Plugin::StorageManager, Plugin::MetadataManager] {
        for key in ConfigKey::of(plugin) {
            let spec = key.spec();
            let reader = match spec.reader {
                Reader::Native => "native",
                Reader::Loader => "loader",
            };
            out.push_str(
                &[
                    prefix(plugin),
                    spec.name,
                    kafka_type(spec.kind),
                    &default_text(spec.kind).unwrap_or_else(|| "null".to_owned()),
                    &validator_text(spec.kind).unwrap_or_else(|| "null".to_owned()),
                    importance_name(spec.importance),
                    reader,
                    spec.doc,
                ]
                .join("\t"),
            );
            out.push('\n');
        }
    }
    out
}

/// `java/src/main/java/io/krabka/remote/storage/ConfigKeys.java`.
#[must_use]
pub fn java_source() -> String {
    let mut out = String::from(JAVA_HEADER);
    for key in ConfigKey::ALL {
        let declaration = format!(
            "    public static final String {} = {};",
            constant(key),
            java_string(key.name())
        );
        let declaration = if declaration.len() <= 100 {
            declaration
        } else {
            format!(
                "    public static final String {} =\n            {};",
                constant(key),
                java_string(key.name())
            )
        };
        let _ = write!(
            out,
            "    /** {{@code {}}}. */\n{declaration}\n\n",
            key.name()
        );
    }
    out.push_str(
        "    /**\n     * The storage manager's keys that the native library reads, in table \
         order: the adapter\n     * passes their values to it, defaults included.\n     */\n    \
         static final List<String> NATIVE_KEYS = List.of(\n",
    );
    let native: Vec<String> = ConfigKey::of(Plugin::StorageManager)
        .filter(|key| key.spec().reader == Reader::Native)
        .map(|key| format!("            {}", constant(key)))
        .collect();
    out.push_str(&native.join(",\n"));
    out.push_str(
        ");\n\n    /**\n     * The metadata manager's keys that the native library reads, in table \
         order: the adapter\n     * passes their values to it, defaults included.\n     */\n    \
         static final List<String> NATIVE_METADATA_KEYS = List.of(\n",
    );
    let native: Vec<String> = ConfigKey::of(Plugin::MetadataManager)
        .filter(|key| key.spec().reader == Reader::Native)
        .map(|key| format!("            {}", constant(key)))
        .collect();
    out.push_str(&native.join(",\n"));
    out.push_str(
        ");\n\n    /**\n     * Prefixes of the storage manager's key families (PREFIX + id + suffix, one \
         key per id of a\n     * list key): the adapter accepts them and passes them to the \
         native library, which checks\n     * them.\n     */\n    \
         static final List<String> NATIVE_KEY_FAMILIES = List.of(\n",
    );
    let families: Vec<String> = KEY_FAMILIES
        .iter()
        .map(|family| format!("            {}", java_string(family.prefix)))
        .collect();
    out.push_str(&families.join(",\n"));
    out.push_str(");\n\n    private ConfigKeys() {\n    }\n");
    for (plugin, method, what) in [
        (Plugin::StorageManager, "storageManager", "storage manager"),
        (
            Plugin::MetadataManager,
            "metadataManager",
            "metadata manager",
        ),
    ] {
        let _ = write!(
            out,
            "\n    /** The definitions of the {what}'s keys ({{@code {}.config.*}}). */\n    \
             static ConfigDef {method}() {{\n        ConfigDef def = new ConfigDef();\n",
            prefix(plugin)
        );
        for key in ConfigKey::of(plugin) {
            out.push_str(&java_define(key));
        }
        out.push_str("        return def;\n    }\n");
    }
    out.push_str("}\n");
    out
}

const JAVA_HEADER: &str = "\
/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.util.List;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.ValidString;

/**
 * The plugins' configuration keys: names, types, defaults, valid values, importance and docs.
 *
 * <p>GENERATED from the key table of {@code rust/krabka-jni/src/config/keys.rs}; do not edit.
 * Regenerate with {@code KRABKA_REGENERATE=1 cargo test -p krabka-jni --lib config::render}
 * (or {@code gradle configDocs}). {@code cargo test -p krabka-jni} fails when this file is
 * stale, and {@code ConfigTableTest} compares the {@link ConfigDef}s below with the table of the
 * native library the tests load.
 */
public final class ConfigKeys {
";

/// One `def.define(…);` statement.
fn java_define(key: ConfigKey) -> String {
    let spec = key.spec();
    let java_type = kafka_type(spec.kind).to_ascii_uppercase();
    let default = match spec.kind {
        Kind::Text { default, .. } => default.map_or_else(|| "null".to_owned(), java_string),
        Kind::Secret => "null".to_owned(),
        Kind::Boolean { default } => default.to_string(),
        Kind::Int { default, .. } => default.to_string(),
        Kind::Long { default, .. } => format!("{default}L"),
    };
    let validator = match spec.kind {
        Kind::Text { rule, .. } => match rule {
            TextRule::Any => None,
            TextRule::OneOf(values) => Some(format!(
                "ValidString.in({})",
                values
                    .iter()
                    .map(|value| java_string(value))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            TextRule::Token {
                min_len,
                max_len,
                punctuation,
            } => Some(format!(
                "new ConfigChecks.TokenValidator({min_len}, {max_len}, {})",
                java_string(punctuation)
            )),
        },
        Kind::Secret | Kind::Boolean { .. } => None,
        Kind::Int { range, .. } => Some(java_range(range, "")),
        Kind::Long { range, .. } => Some(java_range(range, "L")),
    };
    let mut arguments = vec![constant(key), format!("Type.{java_type}"), default];
    arguments.extend(validator);
    arguments.push(format!("Importance.{}", importance_name(spec.importance)));
    let one_line = format!("        def.define({},", arguments.join(", "));
    let head = if one_line.len() <= 100 {
        one_line
    } else {
        let (first, rest) = arguments.split_at(3);
        format!(
            "        def.define({},\n                {},",
            first.join(", "),
            rest.join(", ")
        )
    };
    format!("{head}\n{});\n", java_text_block(spec.doc))
}

fn java_range(range: Range, suffix: &str) -> String {
    match range.max {
        None => format!("Range.atLeast({}{suffix})", range.min),
        Some(max) => format!("Range.between({}{suffix}, {max}{suffix})", range.min),
    }
}

/// A Java string literal. The table's names, values and docs hold no `"` or
/// `\` (a test checks), so nothing needs escaping.
fn java_string(text: &str) -> String {
    format!("\"{text}\"")
}

/// `doc` as concatenated string literals of at most `WIDTH` characters,
/// broken after spaces, indented for a `define` argument.
fn java_text_block(doc: &str) -> String {
    const WIDTH: usize = 68;
    let mut chunks = vec![String::new()];
    for (index, word) in doc.split(' ').enumerate() {
        let piece = if index == 0 {
            word.to_owned()
        } else {
            format!(" {word}")
        };
        let last = chunks.len() - 1;
        if !chunks[last].is_empty() && chunks[last].len() + piece.len() > WIDTH {
            // Keep the space at the end of the previous chunk.
            chunks[last].push(' ');
            chunks.push(word.to_owned());
        } else {
            chunks[last].push_str(&piece);
        }
    }
    chunks
        .iter()
        .enumerate()
        .map(|(index, chunk)| {
            if index == 0 {
                format!("                {}", java_string(chunk))
            } else {
                format!("                        + {}", java_string(chunk))
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `document` (`docs/configuration.md`) with each plugin's generated table
/// replaced: the lines between `<!-- BEGIN GENERATED rsm -->` and
/// `<!-- END GENERATED rsm -->`, and the same for `rlmm`.
///
/// # Errors
/// [`RenderError::Markers`] when a section's markers are missing.
pub fn docs(document: &str) -> Result<String, RenderError> {
    let mut out = document.to_owned();
    for plugin in [Plugin::StorageManager, Plugin::MetadataManager] {
        let section = prefix(plugin);
        let begin = format!("<!-- BEGIN GENERATED {section} -->\n");
        let end = format!("<!-- END GENERATED {section} -->");
        let from = out.find(&begin).ok_or(RenderError::Markers { section })? + begin.len();
        let to = out[from..]
            .find(&end)
            .ok_or(RenderError::Markers { section })?
            + from;
        out.replace_range(from..to, &markdown_table(plugin));
    }
    Ok(out)
}

/// A plugin's keys as a Markdown table, sorted by name; the storage
/// manager's key families as one row per member, with `ID` for the id.
fn markdown_table(plugin: Plugin) -> String {
    let mut rows: Vec<(String, String)> = ConfigKey::of(plugin)
        .map(|key| {
            let spec = key.spec();
            let default =
                default_text(spec.kind).map_or_else(String::new, |text| format!("`{text}`"));
            let row = format!(
                "| `{}` | {} | {default} | {} | {} | {} |",
                spec.name,
                kafka_type(spec.kind),
                validator_text(spec.kind)
                    .unwrap_or_default()
                    .replace('|', "\\|"),
                importance_name(spec.importance).to_ascii_lowercase(),
                spec.doc.replace('|', "\\|"),
            );
            (spec.name.to_owned(), row)
        })
        .collect();
    if plugin == Plugin::StorageManager {
        for family in KEY_FAMILIES {
            for (suffix, doc) in family.suffixes.iter().zip(family.docs) {
                let name = format!("{}ID{suffix}", family.prefix);
                let row = format!("| `{name}` | string |  |  | high | {doc} |");
                rows.push((name, row));
            }
        }
    }
    rows.sort();
    let mut out = format!(
        "| Key (`{}.config.<key>`) | Type | Default | Valid values | Importance | Description |\n\
         |---|---|---|---|---|---|\n",
        prefix(plugin)
    );
    for (_, row) in rows {
        let _ = writeln!(out, "{row}");
    }
    out
}

#[cfg(test)]
mod tests;
