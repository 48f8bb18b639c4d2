//! `krabka-tier`: reads a tier without a broker.
//!
//! ```text
//! krabka-tier list   (--local DIR | --s3-bucket B [--s3-endpoint URL] [--path-style] [--s3-ca-certificates PEM] | --gcs-bucket B …)
//!                    [--prefix P] [--json]
//! krabka-tier export <source> [--prefix P] --topic T [--partition N] [--from-offset O] [--to-offset O]
//!                    [--from-timestamp MS] [--to-timestamp MS] [--uncommitted] [--utf8]
//!                    [--format json|raw --output-dir DIR] [--verify --key-id K --public-key HEX]
//! krabka-tier fsck   <source> [--prefix P] [--metadata-local DIR] [--live-topics FILE] [--json]
//!                    [--delete-orphans --older-than D [--dry-run]]
//! ```
//!
//! `export` writes JSON lines on stdout and a summary per partition on
//! stderr. Exit codes: 0 everything selected was exported; 1 records were
//! skipped because they could not be read (each problem is printed with its
//! key and offset); 2 the selection has offset gaps no segment holds;
//! 3 the tier could not be read; 64 usage error.
//!
//! `replay` (into a topic of any Kafka cluster) is the Java tool
//! `krabka-tier-replay.jar` (`gradle tierReplayJar`), which reads the tier
//! with this crate's `ReplaySource` over JNI and produces with Kafka's own
//! producer: see docs/tier.md.

mod cli;
mod fsck_command;

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(cli::run(std::env::args_os()))
}
