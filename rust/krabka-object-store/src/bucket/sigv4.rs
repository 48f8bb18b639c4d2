//! A minimal AWS Signature Version 4 signer for the few bucket-level GETs
//! (`?versioning`, `?object-lock`, `?versions`) `object_store` has no API
//! for. Header-based signing of bodiless requests only.

use {
    hmac::{Hmac, KeyInit, Mac},
    sha2::{Digest, Sha256},
};

/// SHA-256 of the empty payload.
pub const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// Credentials to sign with.
#[derive(Clone)]
pub struct SigningCredentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
}

/// HMAC-SHA256 (RFC 2104).
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    // HMAC accepts keys of any length, so `new_from_slice` cannot fail.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    mac.update(message);
    mac.finalize().into_bytes().into()
}

/// `bytes` in lowercase hexadecimal.
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut text, byte| {
            let _ = write!(text, "{byte:02x}");
            text
        })
}

/// `YYYYMMDD'T'HHMMSS'Z'` of a Unix time in seconds.
pub fn amz_date(unix_secs: u64) -> String {
    let days = unix_secs / 86_400;
    let rem = unix_secs % 86_400;
    let (y, m, d) = civil_from_days(i64::try_from(days).unwrap_or(0));
    format!(
        "{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Howard Hinnant's days-to-civil algorithm.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        u32::try_from(m).unwrap_or(1),
        u32::try_from(d).unwrap_or(1),
    )
}

/// RFC 3986 encoding as SigV4 wants it (unreserved characters verbatim).
pub fn uri_encode(text: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(byte));
            }
            b'/' if keep_slash => out.push('/'),
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

/// The headers (name, value) that sign a bodiless GET of `path` with the
/// already encoded and sorted canonical `query`.
pub fn sign_get(
    credentials: &SigningCredentials,
    region: &str,
    host: &str,
    path: &str,
    query: &str,
    unix_secs: u64,
) -> Vec<(String, String)> {
    sign("GET", credentials, region, host, path, query, unix_secs)
}

/// As [`sign_get`] for any bodiless method.
pub fn sign(
    method: &str,
    credentials: &SigningCredentials,
    region: &str,
    host: &str,
    path: &str,
    query: &str,
    unix_secs: u64,
) -> Vec<(String, String)> {
    let date_time = amz_date(unix_secs);
    let date = date_time.get(..8).unwrap_or_default().to_owned();
    let mut headers = vec![
        ("host".to_owned(), host.to_owned()),
        ("x-amz-content-sha256".to_owned(), EMPTY_SHA256.to_owned()),
        ("x-amz-date".to_owned(), date_time.clone()),
    ];
    if let Some(token) = &credentials.session_token {
        headers.push(("x-amz-security-token".to_owned(), token.clone()));
    }
    let canonical_headers: String = headers
        .iter()
        .map(|(name, value)| format!("{name}:{}\n", value.trim()))
        .collect();
    let signed_headers = headers
        .iter()
        .map(|(name, _)| name.as_str())
        .collect::<Vec<_>>()
        .join(";");
    let canonical_request =
        format!("{method}\n{path}\n{query}\n{canonical_headers}\n{signed_headers}\n{EMPTY_SHA256}");
    let scope = format!("{date}/{region}/s3/aws4_request");
    let string_to_sign = format!(
        "AWS4-HMAC-SHA256\n{date_time}\n{scope}\n{}",
        hex(&Sha256::digest(canonical_request.as_bytes()))
    );
    let key = [region.as_bytes(), b"s3", b"aws4_request"].iter().fold(
        hmac_sha256(
            format!("AWS4{}", credentials.secret_access_key).as_bytes(),
            date.as_bytes(),
        ),
        |key, part| hmac_sha256(&key, part),
    );
    let signature = hex(&hmac_sha256(&key, string_to_sign.as_bytes()));
    headers.push((
        "authorization".to_owned(),
        format!(
            "AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders={signed_headers}, Signature={signature}",
            credentials.access_key_id
        ),
    ));
    headers.retain(|(name, _)| name != "host");
    headers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231_case_2() {
        let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(
            hex(&mac),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn hmac_hashes_long_keys() {
        // RFC 4231 case 6: a 131-byte key.
        let mac = hmac_sha256(
            &[0xaa; 131],
            b"Test Using Larger Than Block-Size Key - Hash Key First",
        );
        assert_eq!(
            hex(&mac),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn amz_date_formats_unix_time() {
        assert_eq!(amz_date(0), "19700101T000000Z");
        assert_eq!(amz_date(1_440_938_160), "20150830T123600Z");
        assert_eq!(amz_date(951_782_400), "20000229T000000Z");
    }

    #[test]
    fn signature_matches_the_aws_get_bucket_lifecycle_example() {
        // AWS SigV4 documentation example: GET /?lifecycle on examplebucket,
        // 20130524T000000Z, key AKIAIOSFODNN7EXAMPLE.
        let credentials = SigningCredentials {
            access_key_id: "AKIAIOSFODNN7EXAMPLE".to_owned(),
            secret_access_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".to_owned(),
            session_token: None,
        };
        let headers = sign_get(
            &credentials,
            "us-east-1",
            "examplebucket.s3.amazonaws.com",
            "/",
            "lifecycle=",
            1_369_353_600,
        );
        let auth = headers
            .iter()
            .find(|(name, _)| name == "authorization")
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        assert!(
            auth.ends_with(
                "Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"
            ),
            "{auth}"
        );
    }

    #[test]
    fn uri_encoding_keeps_unreserved_characters() {
        assert_eq!(uri_encode("a b/c~", true), "a%20b/c~");
        assert_eq!(uri_encode("a/b", false), "a%2Fb");
    }
}
