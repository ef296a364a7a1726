//! The machine's fingerprint: a 128-bit hash of everything a state depends on (the resume
//! points, the keys asked there, the values kept there) and of the body's source. A state
//! minted by code of another shape is refused instead of being resumed at the wrong place.

/// FNV-1a over `data`, twice with different offsets for 128 bits. Not a security measure (the
/// token's tag is): it only has to tell code versions apart.
pub(crate) fn fingerprint(data: &str) -> [u8; 16] {
    let hash = |offset: u64| {
        data.bytes().fold(offset, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    };
    let (high, low) = (hash(0xcbf2_9ce4_8422_2325), hash(0x6c62_272e_07bb_0142));
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&high.to_be_bytes());
    bytes[8..].copy_from_slice(&low.to_be_bytes());
    bytes
}

#[cfg(test)]
mod tests {
    #[test]
    fn differs_with_the_input() {
        assert_ne!(super::fingerprint("a"), super::fingerprint("b"));
        assert_eq!(super::fingerprint("a"), super::fingerprint("a"));
    }
}
