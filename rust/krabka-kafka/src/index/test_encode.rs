//! Test-only encoders for the formats the decoders read: zigzag varints,
//! magic v2 records and batches, and every codec's stream format.

use {super::Compression, std::io::Write};

/// Appends a zigzag varint.
pub(crate) fn put_varint(out: &mut Vec<u8>, v: i32) {
    let mut raw = u64::from(((v << 1) ^ (v >> 31)).cast_unsigned());
    put_unsigned(out, &mut raw);
}

/// Appends a zigzag varlong.
pub(crate) fn put_varlong(out: &mut Vec<u8>, v: i64) {
    let mut raw = ((v << 1) ^ (v >> 63)).cast_unsigned();
    put_unsigned(out, &mut raw);
}

fn put_unsigned(out: &mut Vec<u8>, raw: &mut u64) {
    loop {
        let byte = (*raw & 0x7f) as u8;
        *raw >>= 7;
        if *raw == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// One record to encode.
#[derive(Debug, Clone, Default)]
pub(crate) struct TestRecord {
    pub(crate) offset_delta: i32,
    pub(crate) timestamp_delta: i64,
    pub(crate) key: Option<Vec<u8>>,
    pub(crate) value: Option<Vec<u8>>,
    pub(crate) headers: Vec<(Vec<u8>, Option<Vec<u8>>)>,
}

impl TestRecord {
    pub(crate) fn new(offset_delta: i32, timestamp_delta: i64, value: &[u8]) -> Self {
        Self {
            offset_delta,
            timestamp_delta,
            key: Some(format!("k{offset_delta}").into_bytes()),
            value: Some(value.to_vec()),
            headers: Vec::new(),
        }
    }

    /// The record's bytes, length prefix included.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut body = vec![0_u8];
        put_varlong(&mut body, self.timestamp_delta);
        put_varint(&mut body, self.offset_delta);
        put_nullable(&mut body, self.key.as_deref());
        put_nullable(&mut body, self.value.as_deref());
        put_varint(&mut body, i32::try_from(self.headers.len()).unwrap());
        for (key, value) in &self.headers {
            put_nullable(&mut body, Some(key));
            put_nullable(&mut body, value.as_deref());
        }
        let mut out = Vec::new();
        put_varint(&mut out, i32::try_from(body.len()).unwrap());
        out.extend_from_slice(&body);
        out
    }
}

fn put_nullable(out: &mut Vec<u8>, bytes: Option<&[u8]>) {
    match bytes {
        None => put_varint(out, -1),
        Some(b) => {
            put_varint(out, i32::try_from(b.len()).unwrap());
            out.extend_from_slice(b);
        }
    }
}

/// One batch to encode; fields default to an uncompressed, non-transactional
/// batch at offset 0.
#[derive(Debug, Clone)]
pub(crate) struct TestBatch {
    pub(crate) base_offset: i64,
    pub(crate) partition_leader_epoch: i32,
    pub(crate) magic: i8,
    pub(crate) compression: Compression,
    /// Attribute bits above the codec (log-append time, transactional, …).
    pub(crate) flags: i16,
    /// `None`: the largest offset delta of the records.
    pub(crate) last_offset_delta: Option<i32>,
    pub(crate) base_timestamp: i64,
    /// `None`: base timestamp plus the largest timestamp delta.
    pub(crate) max_timestamp: Option<i64>,
    pub(crate) producer_id: i64,
    pub(crate) producer_epoch: i16,
    pub(crate) base_sequence: i32,
    /// `None`: the number of records.
    pub(crate) count: Option<i32>,
    pub(crate) records: Vec<TestRecord>,
    /// Raw bytes appended to the (uncompressed) records section.
    pub(crate) trailing: Vec<u8>,
}

impl Default for TestBatch {
    fn default() -> Self {
        Self {
            base_offset: 0,
            partition_leader_epoch: 0,
            magic: 2,
            compression: Compression::None,
            flags: 0,
            last_offset_delta: None,
            base_timestamp: 1_700_000_000_000,
            max_timestamp: None,
            producer_id: -1,
            producer_epoch: -1,
            base_sequence: -1,
            count: None,
            records: Vec::new(),
            trailing: Vec::new(),
        }
    }
}

impl TestBatch {
    /// A batch of `n` records with offset deltas and timestamp deltas
    /// `0..n` (×10 ms).
    pub(crate) fn with_records(base_offset: i64, n: i32) -> Self {
        Self {
            base_offset,
            records: (0..n)
                .map(|i| TestRecord::new(i, 10 * i64::from(i), format!("value-{i}").as_bytes()))
                .collect(),
            ..Self::default()
        }
    }

    /// The batch's bytes with a correct CRC.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut section: Vec<u8> = self.records.iter().flat_map(TestRecord::encode).collect();
        section.extend_from_slice(&self.trailing);
        let records = compress(self.compression, &section);
        let last_delta = self.last_offset_delta.unwrap_or_else(|| {
            self.records
                .iter()
                .map(|r| r.offset_delta)
                .max()
                .unwrap_or(0)
        });
        let max_ts = self.max_timestamp.unwrap_or_else(|| {
            self.base_timestamp
                + self
                    .records
                    .iter()
                    .map(|r| r.timestamp_delta)
                    .max()
                    .unwrap_or(0)
        });
        let count = self
            .count
            .unwrap_or_else(|| i32::try_from(self.records.len()).unwrap());
        let codec_id: i16 = match self.compression {
            Compression::None => 0,
            Compression::Gzip => 1,
            Compression::Snappy => 2,
            Compression::Lz4 => 3,
            Compression::Zstd => 4,
        };
        let mut after_crc = Vec::new();
        after_crc.extend_from_slice(&(codec_id | self.flags).to_be_bytes());
        after_crc.extend_from_slice(&last_delta.to_be_bytes());
        after_crc.extend_from_slice(&self.base_timestamp.to_be_bytes());
        after_crc.extend_from_slice(&max_ts.to_be_bytes());
        after_crc.extend_from_slice(&self.producer_id.to_be_bytes());
        after_crc.extend_from_slice(&self.producer_epoch.to_be_bytes());
        after_crc.extend_from_slice(&self.base_sequence.to_be_bytes());
        after_crc.extend_from_slice(&count.to_be_bytes());
        after_crc.extend_from_slice(&records);
        let mut out = Vec::new();
        out.extend_from_slice(&self.base_offset.to_be_bytes());
        let length = i32::try_from(4 + 1 + 4 + after_crc.len()).unwrap();
        out.extend_from_slice(&length.to_be_bytes());
        out.extend_from_slice(&self.partition_leader_epoch.to_be_bytes());
        out.push(self.magic.cast_unsigned());
        out.extend_from_slice(&crc32c::crc32c(&after_crc).to_be_bytes());
        out.extend_from_slice(&after_crc);
        out
    }
}

/// Recomputes the CRC of the batch at the start of `bytes` in place.
pub(crate) fn fix_crc(bytes: &mut [u8]) {
    let crc = crc32c::crc32c(&bytes[21..]);
    bytes[17..21].copy_from_slice(&crc.to_be_bytes());
}

/// Compresses `data` the way Kafka's producer does for `codec`.
pub(crate) fn compress(codec: Compression, data: &[u8]) -> Vec<u8> {
    match codec {
        Compression::None => data.to_vec(),
        Compression::Gzip => {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            enc.write_all(data).unwrap();
            enc.finish().unwrap()
        }
        Compression::Snappy => {
            // snappy-java's SnappyOutputStream: header, then 32 KiB chunks.
            let mut out = vec![
                0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1,
            ];
            let mut encoder = snap::raw::Encoder::new();
            for chunk in data.chunks(32 * 1024) {
                let block = encoder.compress_vec(chunk).unwrap();
                out.extend_from_slice(&i32::try_from(block.len()).unwrap().to_be_bytes());
                out.extend_from_slice(&block);
            }
            out
        }
        Compression::Lz4 => {
            let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
            enc.write_all(data).unwrap();
            enc.finish().unwrap()
        }
        Compression::Zstd => zstd::stream::encode_all(data, 3).unwrap(),
    }
}
