//! CKWL WAL objects: produced batches of many partitions in one object.
//!
//! ```text
//! header  (6 bytes)  "CKWL" | version u16 = 1
//! body               concatenated partition runs (raw Kafka batch bytes)
//! footer             N × 48-byte entries:
//!                    topic_id 16 | partition i32 | first_offset i64 | last_offset i64
//!                    | byte_start u64 | byte_len u32
//! trailer (8 bytes)  footer_len u32 | "CKWL"
//! ```
//!
//! All integers little-endian; `byte_start` is absolute within the object,
//! so the first run starts at 6.

use {super::DisklessError, bytes::Bytes, uuid::Uuid};

/// Magic at both ends of a WAL object.
pub const WAL_OBJECT_MAGIC: &[u8; 4] = b"CKWL";

/// The WAL object layout version this build writes and reads.
pub const WAL_OBJECT_VERSION: u16 = 1;

/// Length of the header: magic and version.
pub const WAL_HEADER_LEN: usize = 6;

/// Length of the trailer: footer length and magic.
pub const WAL_TRAILER_LEN: usize = 8;

/// Length of one footer entry.
pub const WAL_FOOTER_ENTRY_LEN: usize = 48;

/// Where one partition run lies in a WAL object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WalObjectEntry {
    /// Topic id.
    pub topic_id: Uuid,
    /// Partition.
    pub partition: i32,
    /// First offset in the run.
    pub first_offset: i64,
    /// Last offset in the run (inclusive).
    pub last_offset: i64,
    /// Offset of the run's first byte within the object.
    pub byte_start: u64,
    /// Length of the run in bytes.
    pub byte_len: u32,
}

impl WalObjectEntry {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.topic_id.as_bytes());
        out.extend_from_slice(&self.partition.to_le_bytes());
        out.extend_from_slice(&self.first_offset.to_le_bytes());
        out.extend_from_slice(&self.last_offset.to_le_bytes());
        out.extend_from_slice(&self.byte_start.to_le_bytes());
        out.extend_from_slice(&self.byte_len.to_le_bytes());
    }

    fn decode(raw: &[u8; WAL_FOOTER_ENTRY_LEN]) -> Self {
        let (topic_id, rest) = split::<16>(raw);
        let (partition, rest) = split::<4>(rest);
        let (first_offset, rest) = split::<8>(rest);
        let (last_offset, rest) = split::<8>(rest);
        let (byte_start, rest) = split::<8>(rest);
        let (byte_len, _) = split::<4>(rest);
        Self {
            topic_id: Uuid::from_bytes(topic_id),
            partition: i32::from_le_bytes(partition),
            first_offset: i64::from_le_bytes(first_offset),
            last_offset: i64::from_le_bytes(last_offset),
            byte_start: u64::from_le_bytes(byte_start),
            byte_len: u32::from_le_bytes(byte_len),
        }
    }

    /// The byte range of the run, if it lies within `[WAL_HEADER_LEN, body_end)`.
    fn range(&self, body_end: usize) -> Option<std::ops::Range<usize>> {
        let start = usize::try_from(self.byte_start).ok()?;
        let end = start.checked_add(usize::try_from(self.byte_len).ok()?)?;
        (start >= WAL_HEADER_LEN && end <= body_end).then_some(start..end)
    }
}

/// The first `N` bytes of `bytes` and the rest; `bytes` is at least `N`
/// long at every call site (fixed-size footer entries).
fn split<const N: usize>(bytes: &[u8]) -> ([u8; N], &[u8]) {
    match bytes.split_first_chunk::<N>() {
        Some((head, rest)) => (*head, rest),
        None => ([0; N], &[]),
    }
}

/// Builds a WAL object run by run.
///
/// ```
/// use krabka_diskless::{WalObjectBuilder, parse_wal_object};
/// use uuid::Uuid;
/// let mut builder = WalObjectBuilder::new();
/// let entry = builder.append_run(Uuid::from_u128(1), 0, 10, 12, b"batch bytes").unwrap();
/// let object = builder.finish();
/// let parsed = parse_wal_object(&object).unwrap();
/// assert_eq!(parsed.entries().collect::<Vec<_>>(), vec![entry]);
/// assert_eq!(parsed.run(&entry), Some(&b"batch bytes"[..]));
/// ```
#[derive(Debug, Clone)]
pub struct WalObjectBuilder {
    object: Vec<u8>,
    footer: Vec<u8>,
}

impl Default for WalObjectBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl WalObjectBuilder {
    /// The most runs one object can hold (the footer length is a `u32`).
    pub const MAX_RUNS: usize = u32::MAX as usize / WAL_FOOTER_ENTRY_LEN;

    /// An empty object: a header and no runs.
    #[must_use]
    pub fn new() -> Self {
        let mut object = Vec::with_capacity(WAL_HEADER_LEN);
        object.extend_from_slice(WAL_OBJECT_MAGIC);
        object.extend_from_slice(&WAL_OBJECT_VERSION.to_le_bytes());
        Self {
            object,
            footer: Vec::new(),
        }
    }

    /// Bytes of runs appended so far.
    #[must_use]
    pub fn body_len(&self) -> u64 {
        u64::try_from(self.object.len() - WAL_HEADER_LEN).unwrap_or(u64::MAX)
    }

    /// Whether no run was appended.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.footer.is_empty()
    }

    /// Appends the run of `partition` of `topic_id` holding offsets
    /// `first_offset..=last_offset` and returns its footer entry.
    ///
    /// # Errors
    /// [`DisklessError::WalEmptyRun`], [`DisklessError::WalRunTooLarge`],
    /// [`DisklessError::WalInvalidRunOffsets`],
    /// [`DisklessError::WalTooManyRuns`].
    pub fn append_run(
        &mut self,
        topic_id: Uuid,
        partition: i32,
        first_offset: i64,
        last_offset: i64,
        run: &[u8],
    ) -> Result<WalObjectEntry, DisklessError> {
        if run.is_empty() {
            return Err(DisklessError::WalEmptyRun);
        }
        let byte_len = u32::try_from(run.len())
            .map_err(|_| DisklessError::WalRunTooLarge { len: run.len() })?;
        if first_offset < 0 || last_offset < first_offset {
            return Err(DisklessError::WalInvalidRunOffsets {
                first_offset,
                last_offset,
            });
        }
        if self.footer.len() / WAL_FOOTER_ENTRY_LEN >= Self::MAX_RUNS {
            return Err(DisklessError::WalTooManyRuns {
                max: Self::MAX_RUNS,
            });
        }
        let entry = WalObjectEntry {
            topic_id,
            partition,
            first_offset,
            last_offset,
            byte_start: u64::try_from(self.object.len()).unwrap_or(u64::MAX),
            byte_len,
        };
        self.object.extend_from_slice(run);
        entry.encode(&mut self.footer);
        Ok(entry)
    }

    /// The finished object: header, runs, footer, trailer.
    #[must_use]
    pub fn finish(self) -> Bytes {
        let Self { mut object, footer } = self;
        // MAX_RUNS keeps the footer length within u32.
        let footer_len = u32::try_from(footer.len()).unwrap_or(u32::MAX);
        object.extend_from_slice(&footer);
        object.extend_from_slice(&footer_len.to_le_bytes());
        object.extend_from_slice(WAL_OBJECT_MAGIC);
        Bytes::from(object)
    }
}

/// A parsed WAL object: a view of the borrowed bytes whose every footer
/// entry was checked to lie within the body.
#[derive(Debug, Clone, Copy)]
pub struct WalObject<'a> {
    object: &'a [u8],
    footer: &'a [u8],
    body_end: usize,
}

impl<'a> WalObject<'a> {
    /// Number of runs.
    #[must_use]
    pub fn len(&self) -> usize {
        self.footer.len() / WAL_FOOTER_ENTRY_LEN
    }

    /// Whether the object holds no run.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.footer.is_empty()
    }

    /// The footer entries, in footer order.
    pub fn entries(&self) -> impl Iterator<Item = WalObjectEntry> + 'a {
        self.footer
            .chunks_exact(WAL_FOOTER_ENTRY_LEN)
            .filter_map(|raw| raw.try_into().ok().map(WalObjectEntry::decode))
    }

    /// The bytes of the run `entry` describes, borrowed from the object;
    /// `None` if `entry` does not lie within this object's body.
    #[must_use]
    pub fn run(&self, entry: &WalObjectEntry) -> Option<&'a [u8]> {
        self.object.get(entry.range(self.body_end)?)
    }

    /// Every run with its entry, in footer order.
    pub fn runs(&self) -> impl Iterator<Item = (WalObjectEntry, &'a [u8])> + 'a {
        let this = *self;
        self.entries()
            .filter_map(move |entry| this.run(&entry).map(|run| (entry, run)))
    }
}

/// Parses a WAL object, checking the header, the trailer and every footer
/// entry. Nothing is copied.
///
/// # Errors
/// [`DisklessError::WalObjectTooShort`], [`DisklessError::WalBadMagic`],
/// [`DisklessError::WalUnsupportedVersion`],
/// [`DisklessError::WalFooterMisaligned`],
/// [`DisklessError::WalFooterOutOfBounds`],
/// [`DisklessError::WalRunOutOfBounds`].
pub fn parse_wal_object(object: &[u8]) -> Result<WalObject<'_>, DisklessError> {
    let too_short = DisklessError::WalObjectTooShort { len: object.len() };
    if object.len() < WAL_HEADER_LEN + WAL_TRAILER_LEN {
        return Err(too_short);
    }
    let (header, rest) = object
        .split_first_chunk::<WAL_HEADER_LEN>()
        .ok_or(too_short)?;
    let (_, trailer) = rest
        .split_last_chunk::<WAL_TRAILER_LEN>()
        .ok_or(DisklessError::WalObjectTooShort { len: object.len() })?;
    let (magic, version) = split::<4>(header);
    if &magic != WAL_OBJECT_MAGIC {
        return Err(DisklessError::WalBadMagic { at: "header" });
    }
    let (footer_len, trailer_magic) = split::<4>(trailer);
    if trailer_magic != WAL_OBJECT_MAGIC {
        return Err(DisklessError::WalBadMagic { at: "trailer" });
    }
    let version = u16::from_le_bytes(split::<2>(version).0);
    if version != WAL_OBJECT_VERSION {
        return Err(DisklessError::WalUnsupportedVersion { found: version });
    }
    let footer_len = u32::from_le_bytes(footer_len);
    let footer_bytes = usize::try_from(footer_len).unwrap_or(usize::MAX);
    if footer_bytes % WAL_FOOTER_ENTRY_LEN != 0 {
        return Err(DisklessError::WalFooterMisaligned { footer_len });
    }
    let body_end = object
        .len()
        .checked_sub(WAL_TRAILER_LEN)
        .and_then(|end| end.checked_sub(footer_bytes))
        .filter(|start| *start >= WAL_HEADER_LEN)
        .ok_or(DisklessError::WalFooterOutOfBounds {
            footer_len,
            object_len: object.len(),
        })?;
    let footer = object.get(body_end..object.len() - WAL_TRAILER_LEN).ok_or(
        DisklessError::WalFooterOutOfBounds {
            footer_len,
            object_len: object.len(),
        },
    )?;
    let parsed = WalObject {
        object,
        footer,
        body_end,
    };
    for (index, entry) in parsed.entries().enumerate() {
        if entry.range(body_end).is_none() {
            return Err(DisklessError::WalRunOutOfBounds {
                index,
                byte_start: entry.byte_start,
                byte_len: entry.byte_len,
                body_end: u64::try_from(body_end).unwrap_or(u64::MAX),
            });
        }
    }
    Ok(parsed)
}

/// The bytes of the run `entry` describes, as a zero-copy slice of `object`.
///
/// # Errors
/// Those of [`parse_wal_object`], and [`DisklessError::WalEntryOutsideObject`]
/// when `entry` is not within the object's body.
pub fn run_bytes(object: &Bytes, entry: &WalObjectEntry) -> Result<Bytes, DisklessError> {
    let parsed = parse_wal_object(object)?;
    let range = entry
        .range(parsed.body_end)
        .ok_or(DisklessError::WalEntryOutsideObject {
            byte_start: entry.byte_start,
            byte_len: entry.byte_len,
            body_end: u64::try_from(parsed.body_end).unwrap_or(u64::MAX),
        })?;
    Ok(object.slice(range))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_runs() -> (Bytes, Vec<WalObjectEntry>) {
        let mut builder = WalObjectBuilder::new();
        assert!(builder.is_empty());
        let a = builder
            .append_run(Uuid::from_u128(1), 0, 0, 4, b"aaaa")
            .unwrap();
        let b = builder
            .append_run(Uuid::from_u128(2), 7, 100, 100, b"bb")
            .unwrap();
        assert_eq!(builder.body_len(), 6);
        (builder.finish(), vec![a, b])
    }

    #[test]
    fn layout_is_pinned() {
        let (object, entries) = two_runs();
        assert_eq!(&object[..6], b"CKWL\x01\x00");
        assert_eq!(&object[6..12], b"aaaabb");
        assert_eq!(entries[0].byte_start, 6);
        assert_eq!(entries[1].byte_start, 10);
        assert_eq!(object.len(), 6 + 6 + 2 * 48 + 8);
        assert_eq!(&object[object.len() - 8..], b"\x60\x00\x00\x00CKWL");
        let first = &object[12..60];
        assert_eq!(&first[..16], Uuid::from_u128(1).as_bytes());
        assert_eq!(&first[16..20], &0i32.to_le_bytes());
        assert_eq!(&first[36..44], &6u64.to_le_bytes());
        assert_eq!(&first[44..48], &4u32.to_le_bytes());
    }

    #[test]
    fn parse_returns_borrowed_runs() {
        let (object, entries) = two_runs();
        let parsed = parse_wal_object(&object).unwrap();
        assert_eq!(parsed.len(), 2);
        let runs: Vec<_> = parsed.runs().collect();
        assert_eq!(
            runs,
            vec![(entries[0], &b"aaaa"[..]), (entries[1], &b"bb"[..])]
        );
        let slice = run_bytes(&object, &entries[1]).unwrap();
        assert_eq!(&slice[..], b"bb");
        assert_eq!(
            slice.as_ptr(),
            object[10..].as_ptr(),
            "slice is not zero-copy"
        );
    }

    #[test]
    fn empty_object_parses() {
        let object = WalObjectBuilder::default().finish();
        assert_eq!(object.len(), 14);
        assert!(parse_wal_object(&object).unwrap().is_empty());
    }

    #[test]
    fn builder_refuses_bad_runs() {
        let mut builder = WalObjectBuilder::new();
        let id = Uuid::nil();
        assert!(matches!(
            builder.append_run(id, 0, 0, 0, b""),
            Err(DisklessError::WalEmptyRun)
        ));
        assert!(matches!(
            builder.append_run(id, 0, 5, 4, b"x"),
            Err(DisklessError::WalInvalidRunOffsets { .. })
        ));
        assert!(matches!(
            builder.append_run(id, 0, -1, 4, b"x"),
            Err(DisklessError::WalInvalidRunOffsets { .. })
        ));
        assert!(builder.is_empty());
    }

    #[test]
    fn run_outside_another_object_is_refused() {
        let (object, _) = two_runs();
        let foreign = WalObjectEntry {
            topic_id: Uuid::nil(),
            partition: 0,
            first_offset: 0,
            last_offset: 0,
            byte_start: 11,
            byte_len: 2,
        };
        assert!(parse_wal_object(&object).unwrap().run(&foreign).is_none());
        assert!(matches!(
            run_bytes(&object, &foreign),
            Err(DisklessError::WalEntryOutsideObject { .. })
        ));
    }
}
