use {
    super::*,
    std::{env, fs, path::PathBuf},
};

use crate::config::keys::KEY_FAMILIES as FAMILIES;

fn repository_file(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(relative)
}

/// Compares a committed generated file with `rendered`, or rewrites it when
/// `KRABKA_REGENERATE` is `1`.
fn check_generated(relative: &str, rendered: &str) {
    let path = repository_file(relative);
    if env::var_os("KRABKA_REGENERATE").is_some_and(|value| value == "1") {
        fs::write(&path, rendered).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    }
    let committed =
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    assert!(
        committed == rendered,
        "{relative} differs from the key table in rust/krabka-jni/src/config/keys.rs; \
         run `{REGENERATE}`\n--- committed\n{committed}\n--- rendered\n{rendered}"
    );
}

#[test]
fn the_generated_java_class_is_up_to_date() {
    check_generated(JAVA_SOURCE_PATH, &java_source());
}

#[test]
fn the_configuration_reference_is_up_to_date() {
    let path = repository_file(DOCS_PATH);
    let document =
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    check_generated(DOCS_PATH, &docs(&document).unwrap());
}

#[test]
fn docs_need_both_sections_and_keep_the_prose() {
    assert_eq!(
        docs("no markers"),
        Err(RenderError::Markers { section: "rsm" })
    );
    let only_rsm = "<!-- BEGIN GENERATED rsm -->\n<!-- END GENERATED rsm -->";
    assert_eq!(
        docs(only_rsm),
        Err(RenderError::Markers { section: "rlmm" })
    );
    let reversed = "<!-- END GENERATED rsm --><!-- BEGIN GENERATED rsm -->\n";
    assert_eq!(docs(reversed), Err(RenderError::Markers { section: "rsm" }));
    let document = "intro\n<!-- BEGIN GENERATED rsm -->\nstale\n<!-- END GENERATED rsm -->\n\
                    middle\n<!-- BEGIN GENERATED rlmm -->\n<!-- END GENERATED rlmm -->\nend\n";
    let rendered = docs(document).unwrap();
    assert!(
        rendered.starts_with("intro\n<!-- BEGIN GENERATED rsm -->\n| Key (`rsm.config.<key>`)")
    );
    assert!(!rendered.contains("stale"));
    assert!(rendered.contains("|\n<!-- END GENERATED rsm -->\nmiddle\n"));
    assert!(rendered.ends_with("|\n<!-- END GENERATED rlmm -->\nend\n"));
    assert_eq!(docs(&rendered).unwrap(), rendered);
}

#[test]
fn markdown_rows_say_what_kafka_prints() {
    let table = markdown_table(Plugin::StorageManager);
    for row in [
        "| `backend` | string | `filesystem` | [filesystem, s3, gcs, azure] | high |",
        "| `max.retries` | int | `10` | [0,...] | low |",
        "| `multipart.threshold.bytes` | long | `16777216` | [1,...,5368709120] | low |",
        "| `s3.secret.access.key` | password |  |  | medium |",
        "| `worm.key.id` | string |  | 1 to 64 characters of [A-Za-z0-9._-] | medium |",
    ] {
        assert!(table.contains(row), "{row}\n{table}");
    }
    let names: Vec<&str> = table
        .lines()
        .skip(2)
        .map(|line| line.split('`').nth(1).unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
    // Every key, and one row per member of each key family.
    let members: usize = FAMILIES.iter().map(|family| family.suffixes.len()).sum();
    assert_eq!(
        names.len(),
        ConfigKey::of(Plugin::StorageManager).count() + members
    );
    assert!(names.contains(&"encryption.key.pairs.ID.private.key.file"));
    assert_eq!(
        markdown_table(Plugin::MetadataManager).lines().count(),
        ConfigKey::of(Plugin::MetadataManager).count() + 2
    );
}

#[test]
fn java_defines_say_what_the_table_says() {
    let source = java_source();
    for lines in [
        "    public static final String S3_SECRET_ACCESS_KEY_CONFIG = \"s3.secret.access.key\";\n",
        "        def.define(BACKEND_CONFIG, Type.STRING, \"filesystem\",\n                \
         ValidString.in(\"filesystem\", \"s3\", \"gcs\", \"azure\"), Importance.HIGH,\n                \
         \"The remote tier: ",
        "        def.define(MULTIPART_THRESHOLD_BYTES_CONFIG, Type.LONG, 16777216L,\n                \
         Range.between(1L, 5368709120L), Importance.LOW,\n",
        "        def.define(MAX_RETRIES_CONFIG, Type.INT, 10, Range.atLeast(0), Importance.LOW,\n",
        "        def.define(S3_SESSION_TOKEN_CONFIG, Type.PASSWORD, null, Importance.LOW,\n",
        "        def.define(WORM_KEY_ID_CONFIG, Type.STRING, null,\n                \
         new ConfigChecks.TokenValidator(1, 64, \"._-\"), Importance.MEDIUM,\n",
    ] {
        assert!(source.contains(lines), "{lines}");
    }
    let native = &source[source.find("NATIVE_KEYS = List.of(").unwrap()..];
    let native = &native[..native.find(");").unwrap()];
    assert!(native.contains("BACKEND_CONFIG"));
    assert!(!native.contains("NATIVE_LIBRARY_PATH_CONFIG"));
    for line in source.lines() {
        assert!(line.len() <= 100, "{line}");
    }
}

#[test]
fn doc_literals_concatenate_to_the_doc() {
    for key in ConfigKey::ALL {
        let block = java_text_block(key.spec().doc);
        let joined: String = block
            .lines()
            .map(|line| {
                let literal = line.trim_start().trim_start_matches("+ ");
                &literal[1..literal.len() - 1]
            })
            .collect();
        assert_eq!(joined, key.spec().doc, "{key}");
        for line in block.lines() {
            assert!(line.len() <= 100, "{line}");
        }
    }
}

#[test]
fn the_java_table_has_one_line_per_plugin_and_key() {
    let table = java_table();
    let lines: Vec<Vec<&str>> = table
        .lines()
        .map(|line| line.split('\t').collect())
        .collect();
    let rows = ConfigKey::of(Plugin::StorageManager).count()
        + ConfigKey::of(Plugin::MetadataManager).count();
    assert_eq!(lines.len(), rows);
    for fields in &lines {
        assert_eq!(fields.len(), 8, "{fields:?}");
    }
    assert!(lines.contains(&vec![
        "rsm",
        "multipart.threshold.bytes",
        "long",
        "16777216",
        "[1,...,5368709120]",
        "LOW",
        "native",
        ConfigKey::MultipartThresholdBytes.spec().doc,
    ]));
    assert!(lines.contains(&vec![
        "rlmm",
        "native.library.path",
        "string",
        "null",
        "null",
        "LOW",
        "loader",
        ConfigKey::NativeLibraryPath.spec().doc,
    ]));
}

#[test]
fn names_and_values_need_no_escaping() {
    for key in ConfigKey::ALL {
        assert!(
            key.name()
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.'),
            "{key}"
        );
        if let Kind::Text {
            rule: TextRule::OneOf(values),
            ..
        } = key.spec().kind
        {
            for value in values {
                assert!(!value.contains(['"', '\\', '\t']), "{key}");
            }
        }
        if let Kind::Text {
            rule: TextRule::Token { punctuation, .. },
            ..
        } = key.spec().kind
        {
            assert!(!punctuation.contains(['"', '\\', ']']), "{key}");
        }
    }
}
