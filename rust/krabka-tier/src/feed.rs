//! [`ReplaySource`] and [`RecordFeed`]: a partition's committed records in
//! encoded chunks, for a reader that pulls them — the Java replay tool,
//! which produces them with Kafka's own producer and crosses JNI once per
//! chunk, never once per record.
//!
//! A chunk is one `byte[]`, big-endian:
//!
//! ```text
//! chunk   := kind:u8 body
//! kind 1  := count:i32 record{count}                  (records, in offset order)
//! record  := offset:i64 timestamp:i64 key:bytes value:bytes headers:i32 (key:bytes value:bytes){headers}
//! bytes   := length:i32 (-1: null) byte{length}
//! kind 2  := failed:u8 problems:i32 gaps:i32 UTF-8 JSON    (the last chunk)
//!            JSON: {"skipped": n, "summary": ExportSummary} | {"error": "…"} (then failed is 1)
//! ```

use {
    crate::TierAccess,
    crate::{
        Authenticity, ExportRange, ExportSummary, ExportedRecord, PartitionListing, Source,
        TierError, authenticate_partition, export_partition, list_tier, trusted_keys,
    },
    clap::Parser,
    std::sync::{
        Mutex, PoisonError,
        mpsc::{Receiver, SyncSender, sync_channel},
    },
};

/// Chunk kind: records.
pub const CHUNK_RECORDS: u8 = 1;
/// Chunk kind: the end of the partition, with its summary.
pub const CHUNK_END: u8 = 2;

/// Chunks buffered ahead of the reader.
const CHUNKS_AHEAD: usize = 4;

/// Why a replay source cannot be opened or fed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FeedError {
    /// The options were refused (the text says why, with the usage).
    #[error("{0}")]
    Usage(String),
    /// `--help`: the text to print.
    #[error("{0}")]
    Help(String),
    /// The tier could not be read.
    #[error(transparent)]
    Tier(#[from] TierError),
    /// No thread or runtime could be started.
    #[error("starting the reader")]
    Runtime(#[source] std::io::Error),
    /// The partition is not among those selected.
    #[error("partition {0} is not selected")]
    UnknownPartition(i32),
}

/// What to read: the tier and the selection, as `krabka-tier export`
/// takes them.
#[derive(Debug, Parser)]
#[command(name = "krabka-tier-replay", no_binary_name = true)]
struct FeedArgs {
    #[command(flatten)]
    source: Source,
    /// The source topic.
    #[arg(long)]
    topic: String,
    /// Only this partition.
    #[arg(long)]
    partition: Option<i32>,
    /// The first offset.
    #[arg(long)]
    from_offset: Option<i64>,
    /// The last offset (inclusive).
    #[arg(long)]
    to_offset: Option<i64>,
    /// The earliest timestamp (ms).
    #[arg(long)]
    from_timestamp: Option<i64>,
    /// The latest timestamp (ms, inclusive).
    #[arg(long)]
    to_timestamp: Option<i64>,
    /// Authenticate each partition of a write-once archive first; refuse
    /// one that does not verify.
    #[arg(long, requires = "key_ids")]
    verify: bool,
    /// A trusted key id (with `--verify`), paired with the `--public-key`
    /// at the same position.
    #[arg(long = "key-id")]
    key_ids: Vec<String>,
    /// A trusted Ed25519 public key, 64 hex characters.
    #[arg(long = "public-key")]
    public_keys: Vec<String>,
}

/// The partitions of a tier to replay, listed (and with `--verify`
/// authenticated) once.
#[derive(Debug)]
pub struct ReplaySource {
    access: TierAccess,
    range: ExportRange,
    partitions: Vec<PartitionListing>,
    refused: Vec<(i32, Vec<String>)>,
}

impl ReplaySource {
    /// Parses `args` (the source and selection options of `krabka-tier
    /// export`), lists the tier and, with `--verify`, authenticates each
    /// selected partition.
    ///
    /// # Errors
    /// [`FeedError::Usage`] / [`FeedError::Help`] for the options;
    /// [`FeedError::Tier`] when the tier cannot be read or no partition of
    /// the topic is in it.
    pub fn open(args: &[String]) -> Result<Self, FeedError> {
        let args = FeedArgs::try_parse_from(args).map_err(|err| {
            let text = err.render().to_string();
            if err.use_stderr() {
                FeedError::Usage(text)
            } else {
                FeedError::Help(text)
            }
        })?;
        let access = args.source.access().map_err(FeedError::Usage)?;
        let trusted = if args.verify {
            Some(trusted_keys(&args.key_ids, &args.public_keys).map_err(FeedError::Usage)?)
        } else {
            None
        };
        let store = access.store()?;
        let runtime = runtime()?;
        let prefix = args.source.prefix.clone();
        let (partitions, refused) = runtime.block_on(async {
            let listing = list_tier(&*store, prefix.as_deref()).await?;
            let mut partitions = Vec::new();
            let mut refused = Vec::new();
            for partition in listing {
                if partition.topic != args.topic
                    || args.partition.is_some_and(|n| n != partition.partition)
                {
                    continue;
                }
                if let Some(trusted) = &trusted {
                    let verdict = authenticate_partition(
                        &**store.raw(),
                        &partition,
                        trusted,
                        prefix.as_deref(),
                    )
                    .await?;
                    if let Authenticity::Refused(findings) = verdict {
                        refused.push((partition.partition, findings));
                        continue;
                    }
                }
                partitions.push(partition);
            }
            Ok::<_, TierError>((partitions, refused))
        })?;
        if partitions.is_empty() && refused.is_empty() {
            return Err(TierError::NoSuchPartition(format!("topic {}", args.topic)).into());
        }
        Ok(Self {
            access,
            range: ExportRange {
                from_offset: args.from_offset,
                to_offset: args.to_offset,
                from_timestamp: args.from_timestamp,
                to_timestamp: args.to_timestamp,
                uncommitted: false,
            },
            partitions,
            refused,
        })
    }

    /// The partitions to replay, in order.
    #[must_use]
    pub fn partitions(&self) -> Vec<i32> {
        self.partitions.iter().map(|p| p.partition).collect()
    }

    /// Partitions refused by `--verify`, with the findings.
    #[must_use]
    pub fn refused(&self) -> &[(i32, Vec<String>)] {
        &self.refused
    }

    /// [`Self::refused`] as a JSON array of `{"partition", "findings"}`.
    #[must_use]
    pub fn refused_json(&self) -> String {
        let refused: Vec<serde_json::Value> = self
            .refused
            .iter()
            .map(|(partition, findings)| {
                serde_json::json!({ "partition": partition, "findings": findings })
            })
            .collect();
        serde_json::Value::Array(refused).to_string()
    }

    /// Starts reading `partition` on a thread of its own: its committed
    /// records after the first `skip`, in chunks of about `chunk_bytes`.
    ///
    /// # Errors
    /// [`FeedError::UnknownPartition`]; [`FeedError::Runtime`] when the
    /// thread cannot start.
    pub fn feed(
        &self,
        partition: i32,
        skip: u64,
        chunk_bytes: usize,
    ) -> Result<RecordFeed, FeedError> {
        let listing = self
            .partitions
            .iter()
            .find(|p| p.partition == partition)
            .ok_or(FeedError::UnknownPartition(partition))?
            .clone();
        let (sender, chunks) = sync_channel(CHUNKS_AHEAD);
        let access = self.access.clone();
        let range = self.range;
        std::thread::Builder::new()
            .name(format!("krabka-tier-feed-{partition}"))
            .spawn(move || {
                let end = read(&access, &listing, &range, skip, chunk_bytes, &sender);
                let _ = sender.send(end);
            })
            .map_err(FeedError::Runtime)?;
        Ok(RecordFeed {
            chunks: Mutex::new(chunks),
        })
    }
}

/// The chunks of one partition, pulled one at a time.
#[derive(Debug)]
pub struct RecordFeed {
    chunks: Mutex<Receiver<Vec<u8>>>,
}

impl RecordFeed {
    /// The next chunk (blocking), `None` after the end chunk. Dropping the
    /// feed stops its thread at its next chunk.
    #[must_use]
    pub fn next_chunk(&self) -> Option<Vec<u8>> {
        let chunks = self.chunks.lock().unwrap_or_else(PoisonError::into_inner);
        chunks.recv().ok()
    }
}

/// The help text of the source and selection options.
#[must_use]
pub fn replay_source_help() -> String {
    use clap::CommandFactory;
    FeedArgs::command().render_long_help().to_string()
}

fn runtime() -> Result<tokio::runtime::Runtime, FeedError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(FeedError::Runtime)
}

/// Reads the partition into chunks sent to `sender`; returns the end chunk.
fn read(
    access: &TierAccess,
    listing: &PartitionListing,
    range: &ExportRange,
    skip: u64,
    chunk_bytes: usize,
    sender: &SyncSender<Vec<u8>>,
) -> Vec<u8> {
    let exported = (|| {
        let store = access.store()?;
        let runtime = runtime()?;
        let mut chunk = Chunk::default();
        let mut seen = 0u64;
        let mut sink = |record: &ExportedRecord<'_>| {
            seen += 1;
            if seen <= skip {
                return Ok(());
            }
            chunk.push(record);
            if chunk.bytes.len() >= chunk_bytes {
                sender
                    .send(chunk.take())
                    .map_err(|_| std::io::Error::other("the replay stopped reading"))?;
            }
            Ok(())
        };
        let summary: ExportSummary =
            runtime.block_on(export_partition(&*store, listing, range, &mut sink))?;
        if chunk.count > 0 {
            let _ = sender.send(chunk.take());
        }
        Ok::<_, FeedError>(summary)
    })();
    let (failed, problems, gaps) = match &exported {
        Ok(summary) => (0u8, summary.problems.len(), summary.gaps.len()),
        Err(_) => (1, 0, 0),
    };
    let json = match exported {
        Ok(summary) => serde_json::json!({ "skipped": skip, "summary": summary }),
        Err(err) => {
            let mut message = err.to_string();
            let mut source = std::error::Error::source(&err);
            while let Some(cause) = source {
                message.push_str(&format!(": {cause}"));
                source = cause.source();
            }
            serde_json::json!({ "error": message })
        }
    };
    let mut end = vec![CHUNK_END, failed];
    end.extend_from_slice(&i32::try_from(problems).unwrap_or(i32::MAX).to_be_bytes());
    end.extend_from_slice(&i32::try_from(gaps).unwrap_or(i32::MAX).to_be_bytes());
    end.extend(json.to_string().into_bytes());
    end
}

/// A records chunk being filled.
#[derive(Debug, Default)]
struct Chunk {
    bytes: Vec<u8>,
    count: i32,
}

impl Chunk {
    fn push(&mut self, record: &ExportedRecord<'_>) {
        if self.bytes.is_empty() {
            self.bytes.push(CHUNK_RECORDS);
            self.bytes.extend_from_slice(&0i32.to_be_bytes());
        }
        self.count += 1;
        self.bytes.extend_from_slice(&record.offset.to_be_bytes());
        self.bytes
            .extend_from_slice(&record.timestamp.to_be_bytes());
        self.field(record.key);
        self.field(record.value);
        let headers = i32::try_from(record.headers.len()).unwrap_or(i32::MAX);
        self.bytes.extend_from_slice(&headers.to_be_bytes());
        for (key, value) in &record.headers {
            self.field(Some(key));
            self.field(*value);
        }
    }

    fn field(&mut self, bytes: Option<&[u8]>) {
        match bytes {
            None => self.bytes.extend_from_slice(&(-1i32).to_be_bytes()),
            Some(bytes) => {
                // A record's fields are varint-framed inside a batch of at
                // most 256 MiB: every length fits an i32.
                let length = i32::try_from(bytes.len()).unwrap_or(i32::MAX);
                self.bytes.extend_from_slice(&length.to_be_bytes());
                self.bytes.extend_from_slice(bytes);
            }
        }
    }

    fn take(&mut self) -> Vec<u8> {
        let mut bytes = std::mem::take(&mut self.bytes);
        if let Some(count) = bytes.get_mut(1..5) {
            count.copy_from_slice(&self.count.to_be_bytes());
        }
        self.count = 0;
        bytes
    }
}
