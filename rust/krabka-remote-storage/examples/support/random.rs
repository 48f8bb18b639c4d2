//! A pseudo-random segment log, shared by the WORM benchmark examples.

use std::{io::Write as _, path::Path};

/// `size` bytes from xorshift64*: incompressible, so no server can store
/// them for less than they are.
pub fn write_random(path: &Path, size: u64) -> Result<(), Box<dyn std::error::Error>> {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut block = vec![0u8; 1024 * 1024];
    let mut written = 0;
    while written < size {
        for word in block.chunks_exact_mut(8) {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            word.copy_from_slice(&state.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
        }
        let n = (size - written).min(block.len() as u64);
        file.write_all(&block[..usize::try_from(n)?])?;
        written += n;
    }
    Ok(file.flush()?)
}
