//! One exported record as a line of JSON.

use {
    crate::ExportedRecord,
    base64::{Engine, engine::general_purpose::STANDARD},
    serde_json::{Map, Value, json},
};

/// How keys, values and header values are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValueEncoding {
    /// Always base64 (`"key": "<base64>"`): every byte survives.
    #[default]
    Base64,
    /// A JSON string when the bytes are UTF-8, else `{"base64": "…"}`.
    Utf8,
}

impl ValueEncoding {
    fn bytes(self, bytes: Option<&[u8]>) -> Value {
        match (self, bytes) {
            (_, None) => Value::Null,
            (Self::Base64, Some(bytes)) => Value::String(STANDARD.encode(bytes)),
            (Self::Utf8, Some(bytes)) => match std::str::from_utf8(bytes) {
                Ok(text) => Value::String(text.to_owned()),
                Err(_) => json!({ "base64": STANDARD.encode(bytes) }),
            },
        }
    }
}

/// `record` as one JSON object: `topic`, `partition`, `offset`,
/// `timestamp`, `key`, `value`, `headers` (`[{"key": …, "value": …}]`, the
/// header key as UTF-8 text, lossily).
#[must_use]
pub fn record_json(record: &ExportedRecord<'_>, encoding: ValueEncoding) -> Value {
    let headers: Vec<Value> = record
        .headers
        .iter()
        .map(|(key, value)| {
            json!({
                "key": String::from_utf8_lossy(key),
                "value": encoding.bytes(*value),
            })
        })
        .collect();
    let mut object = Map::new();
    object.insert("topic".into(), json!(record.topic));
    object.insert("partition".into(), json!(record.partition));
    object.insert("offset".into(), json!(record.offset));
    object.insert("timestamp".into(), json!(record.timestamp));
    object.insert("key".into(), encoding.bytes(record.key));
    object.insert("value".into(), encoding.bytes(record.value));
    object.insert("headers".into(), Value::Array(headers));
    Value::Object(object)
}
