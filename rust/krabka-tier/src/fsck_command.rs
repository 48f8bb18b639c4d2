//! `krabka-tier fsck`: reads the metadata histories, compares them with the
//! tier listing, prints what it found and, when asked, deletes orphans.

use {
    crate::cli::{OK, USAGE, fail},
    krabka_object_store::{
        ObjectStoreConfig, build_object_store,
        store::{StoreHandle, delete::delete_keys},
    },
    krabka_remote_storage::{HistoryView, UnreadableHistory, read_histories},
    krabka_tier::{
        FsckInput, FsckReport, PartitionListing, TierError, check_tier, holds_archive, parse_age,
        parse_live_topics,
    },
    object_store::{ObjectStore, path::Path},
    std::{path::PathBuf, sync::Arc},
};

/// Exit code: the tier and its metadata disagree (orphans, missing
/// objects, leftovers of deleted topics) and nothing was deleted.
pub const FINDINGS: u8 = 1;

/// What `fsck` was asked.
#[derive(Debug)]
pub struct FsckRequest {
    /// The tier's store configuration (its histories are read from it
    /// unless `metadata_local` names another directory).
    pub tier_config: ObjectStoreConfig,
    /// The tier's key prefix.
    pub prefix: Option<String>,
    /// Read the histories from this directory instead (e.g. Kafka's
    /// topic-based metadata imported into a scratch directory).
    pub metadata_local: Option<PathBuf>,
    /// The histories' directory under the prefix.
    pub metadata_root: String,
    /// A file of the cluster's live topic ids.
    pub live_topics: Option<PathBuf>,
    /// Delete orphans (and deleted topics' histories, with the live topics)
    /// older than this, e.g. `6h`.
    pub delete_older_than: Option<String>,
    /// With `delete_older_than`: say what would go, delete nothing.
    pub dry_run: bool,
    /// Machine-readable output.
    pub json: bool,
}

/// Runs `fsck` over a tier already listed.
pub async fn fsck(
    store: &Arc<dyn ObjectStore>,
    listing: &[PartitionListing],
    request: FsckRequest,
) -> u8 {
    let live = match &request.live_topics {
        None => None,
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|err| err.to_string())
            .and_then(|text| parse_live_topics(&text))
        {
            Ok(ids) => Some(ids),
            Err(message) => {
                eprintln!("krabka-tier: --live-topics {}: {message}", path.display());
                return USAGE;
            }
        },
    };
    let older_than_ms = match request.delete_older_than.as_deref().map(parse_age) {
        None => None,
        Some(Ok(ms)) => Some(ms),
        Some(Err(message)) => {
            eprintln!("krabka-tier: --older-than {message}");
            return USAGE;
        }
    };
    let archive = match holds_archive(store.as_ref(), request.prefix.as_deref()).await {
        Ok(archive) => archive,
        Err(err) => return fail(&err),
    };
    if archive && older_than_ms.is_some() {
        eprintln!(
            "krabka-tier: refusing to delete: the tier is a write-once archive (it holds the archive's create-only probes); what no record names is retained by the bucket's retention, and the archive's history is kept whole (docs/worm.md)"
        );
        return USAGE;
    }
    // Read after the tier listing: every object listed had its record
    // written before it, so a history read now names it.
    let histories = match histories(&request).await {
        Ok(read) => read,
        Err(err) => return fail(&err),
    };
    let (histories, unreadable) = histories;
    if histories.is_empty()
        && unreadable.is_empty()
        && listing.iter().any(|p| !p.segments.is_empty())
    {
        eprintln!(
            "krabka-tier: no metadata history under {}: fsck compares the tier with the histories of krabka's metadata manager (for a tier whose metadata is in Kafka's __remote_log_metadata, import it into a directory and give that with --metadata-local: docs/tier.md)",
            request.metadata_root
        );
        return USAGE;
    }
    let now_ms = i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_millis()),
    )
    .unwrap_or(i64::MAX);
    let report = check_tier(FsckInput {
        tier: listing,
        histories: &histories,
        live_topics: live.as_ref(),
        archive,
        now_ms,
    });
    print_report(&report, &unreadable, archive, request.json);
    let Some(older_than_ms) = older_than_ms else {
        return if report.is_clean() && unreadable.is_empty() {
            OK
        } else {
            FINDINGS
        };
    };
    let doomed = doomed(&report, older_than_ms);
    let verb = if request.dry_run {
        "would delete"
    } else {
        "deleting"
    };
    eprintln!(
        "krabka-tier: {verb} {} object(s) of {} orphaned segment copies and {} deleted topics' histories older than {}",
        doomed.keys.len(),
        doomed.copies,
        doomed.histories,
        request.delete_older_than.as_deref().unwrap_or_default()
    );
    if request.dry_run {
        for key in &doomed.keys {
            println!("{key}");
        }
        return if report.is_clean() { OK } else { FINDINGS };
    }
    let keys: Vec<Path> = doomed
        .keys
        .iter()
        .map(|key| Path::from(key.as_str()))
        .collect();
    if let Err(err) = delete_keys(Arc::clone(store), keys, "orphaned objects").await {
        return fail(&err);
    }
    eprintln!("krabka-tier: deleted {} object(s)", doomed.keys.len());
    OK
}

/// The histories, read on a thread of their own (the store handle blocks on
/// its own runtime).
async fn histories(
    request: &FsckRequest,
) -> Result<(Vec<HistoryView>, Vec<UnreadableHistory>), TierError> {
    let (config, prefix) = match &request.metadata_local {
        Some(dir) => (ObjectStoreConfig::Local { root: dir.clone() }, None),
        None => (request.tier_config.clone(), request.prefix.clone()),
    };
    let root = request.metadata_root.clone();
    tokio::task::spawn_blocking(move || {
        let store = build_object_store(&config).map_err(TierError::Config)?;
        let handle = StoreHandle::new(store, prefix)
            .map_err(|err| TierError::Refused(format!("the metadata store: {err}")))?;
        read_histories(&handle, &root)
            .map_err(|err| TierError::Refused(format!("reading the metadata histories: {err}")))
    })
    .await
    .map_err(|err| TierError::Refused(format!("the metadata reader failed: {err}")))?
}

/// What a deletion removes.
struct Doomed {
    keys: Vec<String>,
    copies: usize,
    histories: usize,
}

fn doomed(report: &FsckReport, older_than_ms: i64) -> Doomed {
    let mut doomed = Doomed {
        keys: Vec::new(),
        copies: 0,
        histories: 0,
    };
    for orphan in report.orphans.iter().filter(|o| o.age_ms >= older_than_ms) {
        doomed.copies += 1;
        doomed.keys.extend(orphan.keys.iter().cloned());
    }
    // A deleted topic's history goes only once none of its segments is
    // named as live: otherwise its leader is still deleting them.
    for history in report
        .deleted_topic_histories
        .iter()
        .filter(|h| h.age_ms >= older_than_ms && h.live_segments == 0)
    {
        doomed.histories += 1;
        doomed.keys.extend(history.keys.iter().cloned());
    }
    doomed
}

fn print_report(report: &FsckReport, unreadable: &[UnreadableHistory], archive: bool, json: bool) {
    if json {
        let value = serde_json::json!({
            "archive": archive,
            "report": report,
            "unreadable_histories": unreadable
                .iter()
                .map(|u| serde_json::json!({"dir": u.dir, "reason": u.reason}))
                .collect::<Vec<_>>(),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&value).unwrap_or_default()
        );
        return;
    }
    println!(
        "{} partition(s), {} segment copies in the tier; {} metadata histories naming {} live segment(s){}",
        report.tier_partitions,
        report.tier_segments,
        report.histories,
        report.live_segments,
        if archive {
            "; a write-once archive"
        } else {
            ""
        }
    );
    println!("orphans: {}", report.orphans.len());
    for orphan in &report.orphans {
        println!(
            "  orphan {}/{:020}-{} ({} object(s), {} old{})",
            orphan.dir,
            orphan.start_offset,
            orphan.segment_id,
            orphan.keys.len(),
            age(orphan.age_ms),
            if orphan.topic_deleted {
                ", its topic was deleted"
            } else {
                ""
            }
        );
    }
    if archive {
        println!(
            "retained by the archive (no live record names them): {}",
            report.retained
        );
    }
    println!("missing: {}", report.missing.len());
    for missing in &report.missing {
        println!(
            "  missing {} segment {} (offsets {}..={}): no log in the tier{}",
            missing.partition,
            missing.segment_id,
            missing.start_offset,
            missing.end_offset,
            if missing.present.is_empty() {
                String::new()
            } else {
                format!(", only {}", missing.present.join(" "))
            }
        );
    }
    println!("unfinished copies: {}", report.unfinished.len());
    for unfinished in &report.unfinished {
        println!(
            "  unfinished {} segment {} from offset {}: started by broker {} {} ago, {} object(s) in the tier",
            unfinished.partition,
            unfinished.segment_id,
            unfinished.start_offset,
            unfinished.broker_id,
            age(unfinished.age_ms),
            unfinished.objects_present
        );
    }
    println!(
        "histories of deleted topics: {}",
        report.deleted_topic_histories.len()
    );
    for history in &report.deleted_topic_histories {
        println!(
            "  deleted topic's history {}: {} object(s), {} old, {} segment(s) still named",
            history.partition,
            history.keys.len(),
            age(history.age_ms),
            history.live_segments
        );
    }
    if !report.empty_histories.is_empty() {
        println!(
            "histories naming no live segment (give --live-topics to tell deleted topics): {}",
            report.empty_histories.join(" ")
        );
    }
    for history in unreadable {
        println!("unreadable history {}: {}", history.dir, history.reason);
    }
}

/// `ms` as the largest whole unit.
fn age(ms: i64) -> String {
    let s = ms / 1000;
    match s {
        s if s >= 86_400 => format!("{}d", s / 86_400),
        s if s >= 3_600 => format!("{}h", s / 3_600),
        s if s >= 60 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}
