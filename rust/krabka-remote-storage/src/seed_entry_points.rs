//! Entry points the crate's original API names on [`S3RemoteStorage`] that
//! lead to another tier. They stay for callers of that API; neither tier
//! module imports the other, this facade module joins them.

use {
    crate::{
        archive::{WormConfig, WormRemoteStorage},
        object_tier::S3RemoteStorage,
    },
    krabka_kafka::Result,
    krabka_worm::ManifestSigner,
};

impl S3RemoteStorage {
    /// The write-once archive tier on this tier's bucket, prefix and tuning:
    /// [`WormRemoteStorage::open`] (which proves the bucket write-once first
    /// and refuses a tier built over a bare store or a local directory).
    ///
    /// # Errors
    /// Those of [`WormRemoteStorage::open`].
    /// The archive stores copies as this tier's codec says
    /// ([`S3RemoteStorage::with_codec`]).
    pub fn with_worm(self, config: WormConfig) -> Result<WormRemoteStorage> {
        let codec = self.codec().clone();
        WormRemoteStorage::open(self.into_store(), config)?.with_codec(codec)
    }

    /// [`WormRemoteStorage::unchecked`] on this tier's bucket: the archive
    /// without the bucket proof, for tests over in-memory stores and callers
    /// that proved the protection some other way.
    #[must_use]
    pub fn with_worm_unchecked(
        self,
        signer: ManifestSigner,
        write_only: bool,
        evidence: String,
    ) -> WormRemoteStorage {
        let codec = self.codec().clone();
        let archive = WormRemoteStorage::unchecked(self.into_store(), signer, write_only, evidence);
        // A fresh archive takes a codec the tier already validated.
        match archive.with_codec(codec) {
            Ok(archive) => archive,
            Err(err) => unreachable!("a fresh archive refused its tier's codec: {err}"),
        }
    }
}
