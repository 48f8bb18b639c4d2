//! [`export_log_file`]: a partition's record batches as a Kafka `.log`
//! file, streamed to disk.

use {
    crate::{
        ExportRange, ExportSummary, ExportedBatch, PartitionListing, SegmentListing, TierError,
        export_partition_batches,
    },
    object_store::ObjectStore,
    std::{
        fs::File,
        io::{BufWriter, Write},
        path::{Path, PathBuf},
    },
};

/// Writes the batches [`export_partition_batches`] selects to
/// `<dir>/<topic>-<partition>/<first offset, 20 digits>.log`, the layout
/// of a Kafka partition directory (Kafka's `kafka-dump-log.sh` reads it).
/// The file is written under a temporary name and renamed when complete;
/// nothing is left when no batch was selected. Returns the summary and the
/// file written.
///
/// # Errors
/// [`TierError::Output`] when the file cannot be written; those of
/// [`export_partition_batches`].
pub async fn export_log_file(
    store: &dyn ObjectStore,
    partition: &PartitionListing,
    range: &ExportRange,
    dir: &Path,
    progress: &mut dyn FnMut(&SegmentListing, &ExportSummary),
) -> Result<(ExportSummary, Option<PathBuf>), TierError> {
    let target = dir.join(format!("{}-{}", partition.topic, partition.partition));
    std::fs::create_dir_all(&target).map_err(TierError::Output)?;
    let staging = target.join(".export.log.tmp");
    let mut out = BufWriter::new(File::create(&staging).map_err(TierError::Output)?);
    let mut first = None;
    let mut sink = |batch: &ExportedBatch<'_>| {
        first.get_or_insert(batch.base_offset);
        out.write_all(batch.bytes)
    };
    let exported = export_partition_batches(store, partition, range, &mut sink, progress).await;
    let finished = exported.and_then(|summary| {
        let file = out
            .into_inner()
            .map_err(|err| TierError::Output(err.into_error()))?;
        file.sync_all().map_err(TierError::Output)?;
        Ok(summary)
    });
    let summary = match finished {
        Ok(summary) => summary,
        Err(err) => {
            let _ = std::fs::remove_file(&staging);
            return Err(err);
        }
    };
    let Some(first) = first else {
        std::fs::remove_file(&staging).map_err(TierError::Output)?;
        return Ok((summary, None));
    };
    let path = target.join(format!("{first:020}.log"));
    std::fs::rename(&staging, &path).map_err(TierError::Output)?;
    Ok((summary, Some(path)))
}
