//! MurmurHash3 (Austin Appleby's, placed in the public domain): the 32-bit hash for x86 and the
//! 128-bit one for x64, written from the algorithm's definition (its constants, rotations and
//! final mix) and checked against PyPI mmh3, which wraps the original C++.

const C1_32: u32 = 0xcc9e_2d51;
const C2_32: u32 = 0x1b87_3593;

/// The 32-bit finaliser: every input bit reaches every output bit.
fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// MurmurHash3_x86_32 of `data` with `seed`.
pub(super) fn x86_32(data: &[u8], seed: u32) -> u32 {
    let mut h = seed;
    let mut blocks = data.chunks_exact(4);
    for block in &mut blocks {
        let mut k = u32::from_le_bytes(block.try_into().expect("four bytes"));
        k = k.wrapping_mul(C1_32).rotate_left(15).wrapping_mul(C2_32);
        h ^= k;
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let mut k = 0u32;
        for (i, &b) in tail.iter().enumerate() {
            k |= u32::from(b) << (8 * i);
        }
        h ^= k.wrapping_mul(C1_32).rotate_left(15).wrapping_mul(C2_32);
    }
    fmix32(h ^ data.len() as u32)
}

const C1_64: u64 = 0x87c3_7b91_1142_53d5;
const C2_64: u64 = 0x4cf5_ad43_2745_937f;

/// MurmurHash3_x64_128 of `data` with `seed`: its two 64-bit halves `(h1, h2)`.
pub(super) fn x64_128(data: &[u8], seed: u32) -> (u64, u64) {
    let (mut h1, mut h2) = (u64::from(seed), u64::from(seed));
    let mix_k1 = |k: u64| k.wrapping_mul(C1_64).rotate_left(31).wrapping_mul(C2_64);
    let mix_k2 = |k: u64| k.wrapping_mul(C2_64).rotate_left(33).wrapping_mul(C1_64);
    let mut blocks = data.chunks_exact(16);
    for block in &mut blocks {
        let k1 = u64::from_le_bytes(block[..8].try_into().expect("eight bytes"));
        let k2 = u64::from_le_bytes(block[8..].try_into().expect("eight bytes"));
        h1 ^= mix_k1(k1);
        h1 = h1.rotate_left(27).wrapping_add(h2).wrapping_mul(5).wrapping_add(0x52dc_e729);
        h2 ^= mix_k2(k2);
        h2 = h2.rotate_left(31).wrapping_add(h1).wrapping_mul(5).wrapping_add(0x3849_5ab5);
    }
    let tail = blocks.remainder();
    let word = |bytes: &[u8]| bytes.iter().enumerate().fold(0u64, |k, (i, &b)| k | (u64::from(b) << (8 * i)));
    if tail.len() > 8 {
        h2 ^= mix_k2(word(&tail[8..]));
    }
    if !tail.is_empty() {
        h1 ^= mix_k1(word(&tail[..tail.len().min(8)]));
    }
    let len = data.len() as u64;
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    (h1, h2)
}
