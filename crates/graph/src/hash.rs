//! A small, fast hasher for the compiler's own keys (names, ids, cache keys).

use std::hash::{BuildHasherDefault, Hasher};

/// Hash sets and maps keyed by the compiler's own data.
pub type FxBuildHasher = BuildHasherDefault<FxHasher>;

/// The multiply-rotate hash of rustc's `FxHasher`: not DoS-resistant, which a cache key of
/// our own data does not need, and several times faster than SipHash on short strings.
#[derive(Default, Clone, Copy, Debug)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

/// The 1 to 7 bytes of `rest` as a zero-padded little-endian word, from two overlapping reads
/// (a copy into a buffer would call `memcpy` for every short name).
fn tail_word(rest: &[u8]) -> u64 {
    let n = rest.len();
    let u16_at = |i: usize| u64::from(u16::from_le_bytes([rest[i], rest[i + 1]]));
    let u32_at = |i: usize| {
        u64::from(u32::from_le_bytes(
            rest[i..i + 4].try_into().unwrap_or_default(),
        ))
    };
    match n {
        0 => 0,
        1 => u64::from(rest[0]),
        2 | 3 => u16_at(0) | (u16_at(n - 2) << (8 * (n - 2))),
        _ => u32_at(0) | (u32_at(n - 4) << (8 * (n - 4))),
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap_or_default()));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            self.add(tail_word(rest));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tail word equals the zero-padded little-endian word of the remaining bytes.
    #[test]
    fn tail_is_the_zero_padded_word() {
        let bytes: Vec<u8> = (1..=23u8).map(|b| b.wrapping_mul(37)).collect();
        for len in 0..bytes.len() {
            let mut h = FxHasher::default();
            h.write(&bytes[..len]);
            let mut expected = FxHasher::default();
            for c in bytes[..len].chunks(8) {
                let mut buf = [0u8; 8];
                buf[..c.len()].copy_from_slice(c);
                expected.add(u64::from_le_bytes(buf));
            }
            assert_eq!(h.finish(), expected.finish(), "length {len}");
        }
    }
}
