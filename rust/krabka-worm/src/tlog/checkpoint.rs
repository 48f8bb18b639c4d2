//! [`Checkpoint`]: the body of a C2SP `tlog-checkpoint` signed note.

use super::{error::LogError, hash::LogHash, proof::MAX_TREE_SIZE};

/// A checkpoint: the log's origin, its tree size and root hash. Its text
/// (the signed note's body) is `<origin>\n<size>\n<base64 root>\n`; the
/// archive log writes no extension lines and refuses none it reads (they
/// are kept, and signed over, as the note's text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    /// The log's origin: a schema-less URL naming it, the same on every
    /// checkpoint of the log.
    pub origin: String,
    /// Leaves in the tree.
    pub size: u64,
    /// The tree's root.
    pub root: LogHash,
    /// Extension lines after the root, as read.
    pub extensions: Vec<String>,
}

impl Checkpoint {
    /// A checkpoint without extension lines.
    #[must_use]
    pub fn new(origin: &str, size: u64, root: LogHash) -> Self {
        Self {
            origin: origin.to_owned(),
            size,
            root,
            extensions: Vec::new(),
        }
    }

    /// The note text.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut text = format!(
            "{}\n{}\n{}\n",
            self.origin,
            self.size,
            self.root.to_base64()
        );
        for line in &self.extensions {
            text.push_str(line);
            text.push('\n');
        }
        text
    }

    /// Parses a note text.
    ///
    /// # Errors
    /// [`LogError::Malformed`]: fewer than three lines, an empty origin, a
    /// size that is not canonical decimal up to 2^63 − 1, a root that is not
    /// canonical base64 of 32 bytes, an empty extension line.
    pub fn parse(text: &str) -> Result<Self, LogError> {
        let malformed = |reason: &str| LogError::Malformed {
            what: "checkpoint",
            reason: reason.to_owned(),
        };
        let body = text
            .strip_suffix('\n')
            .ok_or_else(|| malformed("it does not end in a newline"))?;
        let mut lines = body.split('\n');
        let (Some(origin), Some(size), Some(root)) = (lines.next(), lines.next(), lines.next())
        else {
            return Err(malformed("fewer than three lines"));
        };
        if origin.is_empty() {
            return Err(malformed("an empty origin"));
        }
        let canonical = !size.is_empty()
            && size.bytes().all(|b| b.is_ascii_digit())
            && (size == "0" || !size.starts_with('0'));
        let size: u64 = size
            .parse()
            .ok()
            .filter(|n| canonical && *n <= MAX_TREE_SIZE)
            .ok_or_else(|| malformed("the tree size is not a decimal number up to 2^63 - 1"))?;
        let root = LogHash::from_base64(root, "checkpoint root hash")?;
        let extensions: Vec<String> = lines.map(str::to_owned).collect();
        if extensions.iter().any(String::is_empty) {
            return Err(malformed("an empty extension line"));
        }
        Ok(Self {
            origin: origin.to_owned(),
            size,
            root,
            extensions,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_round_trips() {
        let checkpoint = Checkpoint::new("example.com/log", 42, LogHash::leaf(b"x"));
        let text = checkpoint.to_text();
        assert_eq!(Checkpoint::parse(&text).unwrap(), checkpoint);
    }

    #[test]
    fn malformed_checkpoints_are_refused() {
        let root = LogHash::leaf(b"x").to_base64();
        for bad in [
            format!("o\n42\n{root}"),
            "o\n42\n".to_owned(),
            format!("\n42\n{root}\n"),
            format!("o\n042\n{root}\n"),
            format!("o\n+42\n{root}\n"),
            format!("o\n9223372036854775808\n{root}\n"),
            "o\n42\nAAAA\n".to_owned(),
            format!("o\n42\n{root}\n\n"),
        ] {
            assert!(Checkpoint::parse(&bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            Checkpoint::parse(&format!("o\n0\n{root}\next\n"))
                .unwrap()
                .extensions,
            vec!["ext".to_owned()]
        );
    }
}
