//! Control records: the records of a control batch, which carry transaction
//! markers (and, in KRaft metadata logs, other control types).

use super::{corruption::Corruption, cursor::Cursor};

/// The type of a control record, from its key (a big-endian `i16` version
/// and a big-endian `i16` type; Kafka's `ControlRecordType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ControlRecordType {
    /// Type 0: the end of an aborted transaction.
    Abort,
    /// Type 1: the end of a committed transaction.
    Commit,
    /// Any other type (KRaft's leader-change, snapshot and voter records,
    /// or a type newer than this decoder).
    Other(i16),
}

impl ControlRecordType {
    /// Parses a control record key. Like Kafka, any key version is
    /// accepted; only the first four bytes are read.
    pub(crate) fn from_key(key: &[u8]) -> Result<Self, Corruption> {
        let mut cursor = Cursor::new(key);
        let short = |_| Corruption::ControlKeyTooShort { len: key.len() };
        let _version = cursor.i16("control record key version").map_err(short)?;
        let kind = cursor.i16("control record key type").map_err(short)?;
        Ok(match kind {
            0 => Self::Abort,
            1 => Self::Commit,
            other => Self::Other(other),
        })
    }
}

/// The value of an abort or commit control record (Kafka's
/// `EndTransactionMarker`): a version and the epoch of the transaction
/// coordinator that wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EndTransactionMarker {
    /// [`ControlRecordType::Abort`] or [`ControlRecordType::Commit`].
    pub kind: ControlRecordType,
    /// The coordinator epoch.
    pub coordinator_epoch: i32,
}

impl EndTransactionMarker {
    /// Parses the value of an end-transaction marker record: a big-endian
    /// `i16` version (0 is the only one; Kafka reads newer versions as
    /// version 0) and a big-endian `i32` coordinator epoch.
    pub(crate) fn from_value(kind: ControlRecordType, value: &[u8]) -> Result<Self, Corruption> {
        let mut cursor = Cursor::new(value);
        let version =
            cursor
                .i16("end transaction marker version")
                .map_err(|_| Corruption::EndTxnMarker {
                    detail: "shorter than its version",
                })?;
        if version < 0 {
            return Err(Corruption::EndTxnMarker {
                detail: "negative version",
            });
        }
        let coordinator_epoch =
            cursor
                .i32("coordinator epoch")
                .map_err(|_| Corruption::EndTxnMarker {
                    detail: "shorter than its coordinator epoch",
                })?;
        Ok(Self {
            kind,
            coordinator_epoch,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_types() {
        assert_eq!(
            ControlRecordType::from_key(&[0, 0, 0, 0]),
            Ok(ControlRecordType::Abort)
        );
        assert_eq!(
            ControlRecordType::from_key(&[0, 0, 0, 1]),
            Ok(ControlRecordType::Commit)
        );
        assert_eq!(
            ControlRecordType::from_key(&[0, 1, 0, 3, 9]),
            Ok(ControlRecordType::Other(3))
        );
        for short in [&[][..], &[0], &[0, 0, 0]] {
            assert_eq!(
                ControlRecordType::from_key(short),
                Err(Corruption::ControlKeyTooShort { len: short.len() })
            );
        }
    }

    #[test]
    fn marker_values() {
        assert_eq!(
            EndTransactionMarker::from_value(ControlRecordType::Abort, &[0, 0, 0, 0, 0, 11]),
            Ok(EndTransactionMarker {
                kind: ControlRecordType::Abort,
                coordinator_epoch: 11
            })
        );
        assert!(matches!(
            EndTransactionMarker::from_value(ControlRecordType::Abort, &[0, 0, 0]),
            Err(Corruption::EndTxnMarker { .. })
        ));
        assert!(matches!(
            EndTransactionMarker::from_value(ControlRecordType::Commit, &[0xff, 0xff, 0, 0, 0, 1]),
            Err(Corruption::EndTxnMarker { .. })
        ));
        assert!(matches!(
            EndTransactionMarker::from_value(ControlRecordType::Commit, &[]),
            Err(Corruption::EndTxnMarker { .. })
        ));
    }
}
