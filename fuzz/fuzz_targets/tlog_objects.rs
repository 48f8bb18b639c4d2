//! The archive log's readers (signed notes, checkpoints, signature lines,
//! verifier keys, log entries, hash tiles, entry bundles): never panic; what
//! they accept encodes back to the same bytes.
#![no_main]

use {
    krabka_worm::tlog::{
        Checkpoint, LogEntry, NoteSignature, NoteVerifier, SignedNote,
        tile::{decode_bundle, decode_tile, encode_bundle, encode_tile},
    },
    libfuzzer_sys::fuzz_target,
};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    match selector % 6 {
        0 => {
            if let Ok(note) = SignedNote::parse(rest) {
                assert_eq!(note.to_text().as_bytes(), rest);
                let _ = Checkpoint::parse(&note.text);
            }
        }
        1 => {
            if let Ok(text) = std::str::from_utf8(rest) {
                if let Ok(checkpoint) = Checkpoint::parse(text) {
                    assert_eq!(checkpoint.to_text(), text);
                }
                if let Ok(line) = NoteSignature::parse_line(text) {
                    let _ = line.line();
                }
                if let Ok(key) = NoteVerifier::parse(text) {
                    assert_eq!(key.to_string(), text);
                }
            }
        }
        2 => {
            if let Ok(entry) = LogEntry::from_bytes(rest) {
                assert_eq!(entry.to_bytes().unwrap(), rest);
            }
        }
        3 => {
            let width = u16::from(rest.first().copied().unwrap_or(1)).max(1);
            if let Ok(hashes) = decode_tile(rest.get(1..).unwrap_or_default(), width) {
                assert_eq!(encode_tile(&hashes), rest.get(1..).unwrap_or_default());
            }
        }
        _ => {
            let width = u16::from(rest.first().copied().unwrap_or(1)).max(1);
            let bytes = rest.get(1..).unwrap_or_default();
            if let Ok(entries) = decode_bundle(bytes, width) {
                assert_eq!(encode_bundle(&entries).unwrap(), bytes);
            }
        }
    }
});
