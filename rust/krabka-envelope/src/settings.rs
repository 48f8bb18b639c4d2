//! How a tier encodes the segments it writes, and the keys it reads with.

use {
    crate::{Cipher, EnvelopeError, KeyRing, Result, envelope},
    std::sync::Arc,
};

/// Default original bytes per chunk: 4 MiB.
pub const DEFAULT_CHUNK_SIZE: u32 = 4 * 1024 * 1024;

/// Default zstd level.
pub const DEFAULT_ZSTD_LEVEL: i32 = 3;

/// zstd compression of chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compression {
    /// The zstd level (1 to 22; negative levels are zstd's fast modes).
    pub level: i32,
    /// Store the log as it is when its record batches are already
    /// compressed by producers (judged on the first chunk's batches).
    pub heuristic: bool,
}

impl Default for Compression {
    fn default() -> Self {
        Self {
            level: DEFAULT_ZSTD_LEVEL,
            heuristic: true,
        }
    }
}

/// The chunked format a tier writes, and the keys it reads and writes
/// with. The default writes Kafka's plain bytes.
#[derive(Debug, Clone)]
pub struct SegmentCodec {
    /// Original bytes per chunk.
    pub chunk_size: u32,
    /// Compression of new segments, if any.
    pub compression: Option<Compression>,
    /// Encryption of new segments, if any (needs [`SegmentCodec::keys`]).
    pub encryption: Option<Cipher>,
    /// The key ring that wraps new data keys and unwraps stored ones; a
    /// tier that writes plain segments may still hold keys to read
    /// encrypted ones.
    pub keys: Option<Arc<dyn KeyRing>>,
}

impl Default for SegmentCodec {
    fn default() -> Self {
        Self {
            chunk_size: DEFAULT_CHUNK_SIZE,
            compression: None,
            encryption: None,
            keys: None,
        }
    }
}

impl SegmentCodec {
    /// Whether new segments are written as Kafka's plain bytes.
    #[must_use]
    pub fn writes_plain(&self) -> bool {
        self.compression.is_none() && self.encryption.is_none()
    }

    /// Checks the settings.
    ///
    /// # Errors
    /// [`EnvelopeError::InvalidSetting`] for a chunk size or zstd level out
    /// of range, or encryption without keys.
    pub fn validate(&self) -> Result<()> {
        if !(envelope::MIN_CHUNK_SIZE..=envelope::MAX_CHUNK_SIZE).contains(&self.chunk_size) {
            return Err(EnvelopeError::InvalidSetting(format!(
                "chunk size {} is outside {}..={} bytes",
                self.chunk_size,
                envelope::MIN_CHUNK_SIZE,
                envelope::MAX_CHUNK_SIZE
            )));
        }
        if let Some(compression) = self.compression {
            let levels = zstd::compression_level_range();
            if !levels.contains(&compression.level) {
                return Err(EnvelopeError::InvalidSetting(format!(
                    "zstd level {} is outside {}..={}",
                    compression.level,
                    levels.start(),
                    levels.end()
                )));
            }
        }
        if self.encryption.is_some() && self.keys.is_none() {
            return Err(EnvelopeError::InvalidSetting(
                "encryption is enabled but no key-encryption keys are configured".to_owned(),
            ));
        }
        Ok(())
    }
}
