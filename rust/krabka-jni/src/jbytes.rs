//! Byte slices as Java `byte[]` elements.

#![allow(unsafe_code)] // One reinterpretation of u8 as i8; see the SAFETY note.

/// `bytes` viewed as `jbyte`s, for `JByteArray::set_region`.
#[must_use]
pub fn as_jbytes(bytes: &[u8]) -> &[i8] {
    // SAFETY: u8 and i8 have the same size (1), alignment (1) and validity
    // (every bit pattern), so a `[u8]` is a valid `[i8]` of the same length;
    // the lifetime is carried over unchanged.
    unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<i8>(), bytes.len()) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn bytes_keep_their_bit_patterns() {
        assert_eq!(
            super::as_jbytes(&[0, 1, 127, 128, 255]),
            &[0, 1, 127, -128, -1]
        );
    }
}
