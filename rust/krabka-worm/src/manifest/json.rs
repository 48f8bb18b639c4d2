//! The canonical JSON writer of a [`SegmentManifest`], written out field by
//! field so that the stored form is defined here and in
//! `docs/worm-format.md`, not by a serializer's defaults.

use {
    super::{ManifestSignature, ObjectEntry, SegmentIdentity, SegmentManifest},
    crate::hex,
    std::fmt::Display,
};

/// Builds one JSON object; the first field is written without a comma.
struct Object<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
}

impl<'a> Object<'a> {
    fn open(out: &'a mut Vec<u8>) -> Self {
        out.push(b'{');
        Self { out, first: true }
    }

    fn key(&mut self, name: &str) -> &mut Vec<u8> {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        string(self.out, name);
        self.out.push(b':');
        self.out
    }

    fn number(&mut self, name: &str, value: impl Display) {
        let out = self.key(name);
        out.extend_from_slice(value.to_string().as_bytes());
    }

    fn bool(&mut self, name: &str, value: bool) {
        let out = self.key(name);
        out.extend_from_slice(if value { b"true" } else { b"false" });
    }

    fn string(&mut self, name: &str, value: &str) {
        let out = self.key(name);
        string(out, value);
    }

    fn opt_string(&mut self, name: &str, value: Option<&str>) {
        let out = self.key(name);
        match value {
            Some(value) => string(out, value),
            None => out.extend_from_slice(b"null"),
        }
    }

    fn close(self) {
        self.out.push(b'}');
    }
}

/// A JSON string: escapes only `"`, `\` and U+0000–U+001F.
fn string(out: &mut Vec<u8>, value: &str) {
    out.push(b'"');
    for byte in value.bytes() {
        match byte {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x09 => out.extend_from_slice(b"\\t"),
            0x0a => out.extend_from_slice(b"\\n"),
            0x0c => out.extend_from_slice(b"\\f"),
            0x0d => out.extend_from_slice(b"\\r"),
            0x00..=0x1f => {
                out.extend_from_slice(b"\\u00");
                out.extend_from_slice(hex::encode(&[byte]).as_bytes());
            }
            _ => out.push(byte),
        }
    }
    out.push(b'"');
}

fn segment(out: &mut Vec<u8>, segment: &SegmentIdentity) {
    let mut object = Object::open(out);
    object.string("topic", &segment.topic);
    object.string("topic_id", &segment.topic_id.hyphenated().to_string());
    object.number("partition", segment.partition);
    object.string("segment_id", &segment.segment_id.hyphenated().to_string());
    object.number("start_offset", segment.start_offset);
    object.number("end_offset", segment.end_offset);
    object.number("max_timestamp_ms", segment.max_timestamp_ms);
    object.number("broker_id", segment.broker_id);
    object.number("event_timestamp_ms", segment.event_timestamp_ms);
    object.number("segment_size_bytes", segment.segment_size_bytes);
    let out = object.key("leader_epochs");
    out.push(b'[');
    for (index, (epoch, start_offset)) in segment.leader_epochs.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        let mut entry = Object::open(out);
        entry.number("epoch", epoch);
        entry.number("start_offset", start_offset);
        entry.close();
    }
    out.push(b']');
    object.bool("txn_index_empty", segment.txn_index_empty);
    object.close();
}

fn object_entry(out: &mut Vec<u8>, entry: &ObjectEntry) {
    let mut object = Object::open(out);
    object.string("suffix", &entry.suffix);
    object.string("key", &entry.key);
    object.number("size_bytes", entry.size_bytes);
    object.string("sha256", &entry.sha256.to_string());
    object.opt_string("e_tag", entry.e_tag.as_deref());
    object.opt_string("version_id", entry.version_id.as_deref());
    object.bool("create_precondition", entry.create_precondition);
    object.close();
}

fn signature(out: &mut Vec<u8>, signature: &ManifestSignature) {
    let mut object = Object::open(out);
    object.string("key_id", &signature.key_id);
    object.string("public_key", &signature.public_key.to_string());
    object.string("signature", &signature.signature.to_string());
    object.close();
}

/// The canonical JSON bytes of `manifest`.
pub(super) fn manifest_json(manifest: &SegmentManifest) -> Vec<u8> {
    let mut out = Vec::with_capacity(1024);
    let mut root = Object::open(&mut out);
    {
        let body = &manifest.body;
        let out = root.key("body");
        let mut object = Object::open(out);
        object.number("format_version", body.format_version);
        segment(object.key("segment"), &body.segment);
        let out = object.key("objects");
        out.push(b'[');
        for (index, entry) in body.objects.iter().enumerate() {
            if index > 0 {
                out.push(b',');
            }
            object_entry(out, entry);
        }
        out.push(b']');
        let mut chain = Object::open(object.key("chain"));
        chain.string("epoch_id", &body.chain.epoch_id.to_string());
        chain.number("seq", body.chain.seq);
        chain.string("prev_head", &body.chain.prev_head.to_string());
        chain.close();
        object.close();
    }
    match &manifest.signature {
        Some(sig) => signature(root.key("signature"), sig),
        None => root.key("signature").extend_from_slice(b"null"),
    }
    root.close();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(value: &str) -> String {
        let mut out = Vec::new();
        string(&mut out, value);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn strings_escape_exactly_what_json_requires() {
        assert_eq!(escaped("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(escaped("\u{8}\t\n\u{c}\r"), r#""\b\t\n\f\r""#);
        assert_eq!(escaped("\u{0}\u{1f}"), r#""\u0000\u001f""#);
        assert_eq!(escaped("/é\u{7f}\u{2028}"), "\"/é\u{7f}\u{2028}\"");
    }

    #[test]
    fn string_escapes_agree_with_serde_json() {
        let all: String = (0u32..0x80).filter_map(char::from_u32).collect();
        let sample = format!("{all}é€😀");
        assert_eq!(escaped(&sample), serde_json::to_string(&sample).unwrap());
    }
}
