//! Segment stream natives: bulk reads into a Java `byte[]`, and close.

use {
    crate::{boundary, error::BridgeError, jbytes::as_jbytes, state::STREAMS},
    jni::{
        EnvUnowned,
        objects::{JByteArray, JClass},
        sys::{jint, jlong},
    },
};

/// `int streamRead(long stream, byte[] dst, int off, int len)`: reads up to
/// `len` bytes (at most 1 MiB) into `dst[off..]`; -1 at the end of the stream.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_streamRead<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    stream: jlong,
    dst: JByteArray<'local>,
    off: jint,
    len: jint,
) -> jint {
    boundary::call(&mut env, |env| {
        let segment = STREAMS.get(stream)?;
        let capacity = dst.len(env)?;
        let (Ok(start), Ok(want)) = (usize::try_from(off), usize::try_from(len)) else {
            return Err(BridgeError::InvalidArgument(format!(
                "negative offset {off} or length {len}"
            )));
        };
        if start.checked_add(want).is_none_or(|end| end > capacity) {
            return Err(BridgeError::InvalidArgument(format!(
                "range {off}+{len} is outside a byte[{capacity}]"
            )));
        }
        if want == 0 {
            return Ok(0);
        }
        let read = segment.read_chunk::<BridgeError>(want, |offset, piece| {
            // `off + offset` lies within `off..off + len`, checked above to fit the array.
            let at = off.saturating_add(jint::try_from(offset).unwrap_or(jint::MAX));
            Ok(dst.set_region(env, at, as_jbytes(piece))?)
        })?;
        Ok(if read == 0 {
            -1
        } else {
            jint::try_from(read).unwrap_or(jint::MAX)
        })
    })
}

/// `void streamClose(long stream)`: stops the transfer (once a read in flight
/// returns) and frees the stream.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_streamClose<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    stream: jlong,
) {
    boundary::call(&mut env, |_| {
        STREAMS.remove(stream);
        Ok(())
    });
}
