//! Rendering of events: the message, then `name=value` fields, with secret
//! fields and credentials inside text replaced.

use {
    super::queue::truncate,
    std::fmt::{self, Write},
    tracing::field::{Field, Visit},
};

/// What replaces a secret.
pub const REDACTED: &str = "<redacted>";

/// Field names (lowercase substrings) whose values are never printed.
const SECRET_FIELDS: &[&str] = &[
    "secret",
    "password",
    "passwd",
    "token",
    "credential",
    "private_key",
    "signature",
    "authorization",
    "sas",
];

/// Whether a field named `name` holds a secret.
#[must_use]
pub fn is_secret_field(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    SECRET_FIELDS.iter().any(|secret| name.contains(secret))
}

/// Collects an event's or a span's fields: the `message` field as the
/// message, every other one as ` name=value`.
#[derive(Debug, Default)]
pub struct FieldWriter {
    /// The `message` field.
    pub message: String,
    /// The other fields, each with a leading space.
    pub fields: String,
}

impl FieldWriter {
    fn field(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else if is_secret_field(field.name()) {
            let _ = write!(self.fields, " {}={REDACTED}", field.name());
        } else {
            let _ = write!(self.fields, " {}={value:?}", field.name());
        }
    }
}

impl Visit for FieldWriter {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.field(field, &format_args!("{value}"));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.field(field, value);
    }

    /// An error passed as `&dyn Error` prints with its cause chain: a log
    /// line is an edge of the stack.
    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        let chain = crate::boundary::message_with_causes(value);
        self.field(field, &format_args!("{chain}"));
    }
}

/// Collects only an event's `message` field (what makes a WARN's kind),
/// leaving its other fields unformatted.
#[derive(Debug, Default)]
pub struct MessageWriter(pub String);

impl Visit for MessageWriter {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0.push_str(value);
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        }
    }
}

/// The final form of a rendered message: scrubbed of credentials, cut at
/// `max` bytes.
#[must_use]
pub fn finish(message: String, max: usize) -> String {
    let mut message = scrub(&message);
    if message.len() > max {
        let cut = truncate(&message, max).len();
        message.truncate(cut);
        message.push_str(" … (truncated)");
    }
    message
}

/// Keys after which a credential follows in text, lowercase, with the
/// characters that may separate key and value.
const SECRET_KEYS: &[&str] = &[
    "authorization",
    "x-amz-security-token",
    "x-amz-signature",
    "x-amz-credential",
    "x-goog-signature",
    "x-goog-credential",
    "aws_secret_access_key",
    "secret_access_key",
    "session_token",
    "private_key",
    "client_secret",
    "sig",
    "password",
];

/// `text` with credentials a library may print replaced by [`REDACTED`]:
/// the value after any of the keys above (`key: value`, `key=value`,
/// `"key": "value"`, up to the end of the line, a `&`, a quote or a comma)
/// and every PEM block.
#[must_use]
pub fn scrub(text: &str) -> String {
    let text = scrub_pem(text);
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut at = 0;
    while at < text.len() {
        let Some((key_end, value_start, value_end)) = secret_at(&text, &lower, at) else {
            at += text[at..].chars().next().map_or(1, char::len_utf8);
            continue;
        };
        out.push_str(&text[copied..value_start]);
        out.push_str(REDACTED);
        copied = value_end;
        at = value_end.max(key_end);
    }
    out.push_str(&text[copied..]);
    out
}

/// A secret key starting at byte `at`: the key's end and the value's range.
fn secret_at(text: &str, lower: &str, at: usize) -> Option<(usize, usize, usize)> {
    let before = lower[..at].chars().next_back();
    if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return None;
    }
    let key = SECRET_KEYS
        .iter()
        .find(|key| lower[at..].starts_with(*key))?;
    let key_end = at + key.len();
    let rest = &text[key_end..];
    // The separator: optional quote, spaces, then `:` or `=`, spaces, optional quote.
    let mut i = 0;
    let bytes = rest.as_bytes();
    if bytes.first() == Some(&b'"') {
        i += 1;
    }
    while bytes.get(i) == Some(&b' ') {
        i += 1;
    }
    if !matches!(bytes.get(i), Some(b':' | b'=')) {
        return None;
    }
    i += 1;
    while bytes.get(i) == Some(&b' ') {
        i += 1;
    }
    let quoted = bytes.get(i) == Some(&b'"');
    if quoted {
        i += 1;
    }
    let value_start = key_end + i;
    let value_len = rest[i..]
        .find(|c: char| {
            if quoted {
                c == '"'
            } else if *key == "authorization" {
                // The header's value has spaces and commas
                // ("AWS4-HMAC-SHA256 Credential=…, Signature=…").
                matches!(c, '\n' | '\r' | '"')
            } else {
                matches!(c, '\n' | '\r' | '&' | '"' | ',' | '}' | ')' | ']')
            }
        })
        .unwrap_or(rest.len() - i);
    // An `Authorization:` header runs to the end of the line; any other
    // unquoted value ends at a space.
    let value_len = if quoted || *key == "authorization" {
        value_len
    } else {
        rest[i..i + value_len].find(' ').unwrap_or(value_len)
    };
    (value_len > 0).then_some((key_end, value_start, value_start + value_len))
}

/// `text` with every `-----BEGIN …-----` … `-----END …-----` block
/// replaced (an unterminated one up to the end).
fn scrub_pem(text: &str) -> String {
    const BEGIN: &str = "-----BEGIN ";
    const END: &str = "-----END ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(BEGIN) {
        out.push_str(&rest[..start]);
        out.push_str(REDACTED);
        let after = &rest[start + BEGIN.len()..];
        rest = match after.find(END) {
            Some(end) => {
                let tail = &after[end + END.len()..];
                // Past the closing `-----` of the END line.
                match tail.find("-----") {
                    Some(close) => &tail[close + 5..],
                    None => "",
                }
            }
            None => "",
        };
    }
    out.push_str(rest);
    out
}
