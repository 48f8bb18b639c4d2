//! [`ArchiveLogConfig`]: the archive log's origin, cadence and witnesses.

use {krabka_worm::tlog::NoteVerifier, std::time::Duration};

/// How often a checkpoint is published at most, by default.
pub const DEFAULT_CHECKPOINT_INTERVAL: Duration = Duration::from_secs(10);

/// How an archive keeps its log: the Merkle tree over every sealed
/// manifest, its signed checkpoints and the witnesses that cosign them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveLogConfig {
    /// The log's origin: the first line of every checkpoint and the name of
    /// its note key (a schema-less URL, e.g. `archive.example.com/orders`).
    /// Every writer of one archive must use the same.
    pub origin: String,
    /// A checkpoint is published at most this often (and after the last
    /// seal before shutdown).
    pub interval: Duration,
    /// Witnesses to submit each new checkpoint to.
    pub witnesses: Vec<WitnessConfig>,
    /// How long one witness request may take.
    pub witness_timeout: Duration,
}

impl ArchiveLogConfig {
    /// A log named `origin`, a checkpoint at most every 10 seconds, no
    /// witness.
    #[must_use]
    pub fn new(origin: impl Into<String>) -> Self {
        Self {
            origin: origin.into(),
            interval: DEFAULT_CHECKPOINT_INTERVAL,
            witnesses: Vec::new(),
            witness_timeout: Duration::from_secs(10),
        }
    }

    /// The same log publishing at most every `interval`.
    #[must_use]
    pub fn with_interval(mut self, interval: Duration) -> Self {
        self.interval = interval;
        self
    }

    /// The same log also submitting its checkpoints to `witness`.
    #[must_use]
    pub fn with_witness(mut self, witness: WitnessConfig) -> Self {
        self.witnesses.push(witness);
        self
    }
}

/// A witness speaking C2SP `tlog-witness`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WitnessConfig {
    /// Its base URL; checkpoints go to `<url>/add-checkpoint`.
    pub url: String,
    /// Its cosignature key (a C2SP verifier key of type `04`), which every
    /// cosignature it returns must verify under before it is stored.
    pub key: NoteVerifier,
}

impl WitnessConfig {
    /// A witness at `url` with the verifier key `vkey`
    /// (`name+hash+base64`).
    ///
    /// # Errors
    /// [`LogError::InvalidKey`](krabka_worm::tlog::LogError::InvalidKey)
    /// for a key that does not parse or is not a cosignature key.
    pub fn new(url: &str, vkey: &str) -> Result<Self, krabka_worm::tlog::LogError> {
        let key = NoteVerifier::parse_cosignature(vkey)?;
        Ok(Self {
            url: url.trim_end_matches('/').to_owned(),
            key,
        })
    }
}
