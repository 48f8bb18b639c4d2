//! The plugin's metrics as they cross JNI: the catalog (names, tags,
//! meanings) once, then one snapshot of every value per read.
//!
//! The counting happens in the tiers ([`TierMetrics`]) and in the durable
//! metadata managers ([`METADATA`], one per process); this module only adds
//! the native side's own gauges (live handles) and lays them out for
//! `io.krabka.remote.storage.PluginMetricsSet`, and renders the table of
//! `docs/metrics.md` from the same catalog.

use {
    crate::{backend::Storage, state},
    krabka_remote_storage::metrics::{MetadataMetrics, MetricDef, MetricKind, TierMetrics},
    std::{
        fmt::Write as _,
        sync::{Arc, LazyLock},
    },
};

/// What every durable metadata manager of the process wrote and read
/// (`metadata-*`): the broker has one metadata manager, configured apart
/// from the storage manager, and both live in this one library, so the
/// storage manager's snapshot carries these process-wide values (0 with
/// the in-memory manager).
pub static METADATA: LazyLock<Arc<MetadataMetrics>> = LazyLock::new(Arc::default);

/// Where the metrics reference lives, from the repository root.
pub const DOCS_PATH: &str = "docs/metrics.md";
/// The command that regenerates the table of [`DOCS_PATH`].
pub const REGENERATE: &str = "KRABKA_REGENERATE=1 cargo test -p krabka-jni --lib metrics";
const BEGIN: &str = "<!-- metrics table: generated from rust/krabka-jni/src/metrics.rs -->";
const END: &str = "<!-- end of metrics table -->";

/// The native side's gauges, after the tier's metrics in a snapshot.
const NATIVE: [MetricDef; 3] = [
    native(
        "native-open-storage-managers",
        "Storage managers open in the native library (one per configured plugin instance).",
    ),
    native(
        "native-open-streams",
        "Fetch streams held by Java through native handles, in the whole process.",
    ),
    native(
        "native-open-copies",
        "Copies held by Java through native handles (running or awaiting their result), in the whole process.",
    ),
];

const fn native(name: &'static str, description: &'static str) -> MetricDef {
    MetricDef {
        name,
        tag: None,
        kind: MetricKind::Gauge,
        description,
    }
}

/// Every metric of the plugin, in snapshot order.
#[must_use]
pub fn catalog() -> Vec<MetricDef> {
    let mut defs = TierMetrics::catalog();
    defs.extend(MetadataMetrics::catalog());
    defs.extend(NATIVE);
    defs
}

/// The value of every metric of `storage`, in the order of [`catalog`].
#[must_use]
pub fn snapshot(storage: &Storage) -> Vec<f64> {
    let mut values: Vec<f64> = storage
        .metrics()
        .snapshot()
        .into_iter()
        .map(|(_, value)| value)
        .collect();
    values.extend(METADATA.snapshot().into_iter().map(|(_, value)| value));
    values.extend(
        [
            state::STORAGE_MANAGERS.len(),
            state::STREAMS.len(),
            state::COPIES.len(),
        ]
        .map(|live| live as f64),
    );
    values
}

/// The catalog for Java: one line per metric, tab-separated name, tag key,
/// tag value (both empty without a tag), kind and description.
#[must_use]
pub fn java_catalog() -> String {
    catalog()
        .iter()
        .map(|def| {
            let (key, value) = def.tag.unwrap_or(("", ""));
            format!(
                "{}\t{key}\t{value}\t{}\t{}\n",
                def.name,
                def.kind.name(),
                def.description
            )
        })
        .collect()
}

/// The Markdown table of every metric, one row per name (the values of its
/// tag listed in one cell).
#[must_use]
pub fn markdown_table() -> String {
    let mut out = String::from("| Name | Tag | Type | Meaning |\n|---|---|---|---|\n");
    let defs = catalog();
    let mut i = 0;
    while i < defs.len() {
        let def = defs[i];
        let same: Vec<&MetricDef> = defs[i..]
            .iter()
            .take_while(|other| other.name == def.name)
            .collect();
        let tag = match def.tag {
            Some((key, _)) => {
                let values: Vec<&str> = same.iter().filter_map(|d| d.tag.map(|(_, v)| v)).collect();
                format!("`{key}`: {}", values.join(", "))
            }
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "| `{}` | {tag} | {} | {} |",
            def.name,
            def.kind.name(),
            def.description
        );
        i += same.len();
    }
    out
}

/// `document` with its generated table replaced by [`markdown_table`];
/// `None` when the document lacks the markers.
#[must_use]
pub fn docs(document: &str) -> Option<String> {
    let start = document.find(BEGIN)? + BEGIN.len();
    let end = start + document[start..].find(END)?;
    Some(format!(
        "{}\n\n{}\n{}",
        &document[..start],
        markdown_table(),
        &document[end..]
    ))
}

#[cfg(test)]
mod tests;
