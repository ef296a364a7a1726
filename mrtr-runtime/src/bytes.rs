//! The byte-level pieces every binary layout of the runtime is written with (the token's
//! claims, the saved state, the frame): LEB128 varints, length-prefixed byte strings, a reader
//! over them, one unkeyed hash, random bytes and hex. A leaf: it knows no layout.

/// Appends `value` as an unsigned LEB128 varint.
pub(crate) fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads an unsigned LEB128 varint in its shortest form (so each value has one encoding).
pub(crate) fn take_varint(input: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for (index, &byte) in input.iter().enumerate().take(10) {
        let shift = 7 * index as u32;
        let bits = u64::from(byte & 0x7f);
        if shift == 63 && bits > 1 {
            return None;
        }
        value |= bits << shift;
        if byte & 0x80 == 0 {
            if index > 0 && byte == 0 {
                return None;
            }
            *input = &input[index + 1..];
            return Some(value);
        }
    }
    None
}

/// Appends `bytes` with its length.
pub(crate) fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Reads the pieces of a layout off bytes that were verified first (a sealed state).
pub(crate) struct Reader<'a>(pub(crate) &'a [u8]);

impl<'a> Reader<'a> {
    pub(crate) fn byte(&mut self) -> Option<u8> {
        let (&byte, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(byte)
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        let (bytes, rest) = self.0.split_first_chunk::<4>()?;
        self.0 = rest;
        Some(u32::from_be_bytes(*bytes))
    }

    pub(crate) fn u64(&mut self) -> Option<u64> {
        let (bytes, rest) = self.0.split_first_chunk::<8>()?;
        self.0 = rest;
        Some(u64::from_be_bytes(*bytes))
    }

    pub(crate) fn varint(&mut self) -> Option<u64> {
        take_varint(&mut self.0)
    }

    pub(crate) fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = usize::try_from(self.varint()?).ok()?;
        if len > self.0.len() {
            return None;
        }
        let (bytes, rest) = self.0.split_at(len);
        self.0 = rest;
        Some(bytes)
    }

    pub(crate) fn str(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.bytes()?).ok()
    }
}

/// FNV-1a (32 bits) over the concatenated `parts`: a cheap, unkeyed hash that is the same in
/// every build and on every platform. Not a security measure: what it hashes is authenticated
/// elsewhere, or keyed by the caller.
pub(crate) fn fnv1a(parts: &[&[u8]]) -> u32 {
    parts
        .iter()
        .flat_map(|part| part.iter())
        .fold(0x811c_9dc5, |hash, byte| {
            (hash ^ u32::from(*byte)).wrapping_mul(0x0100_0193)
        })
}

/// Fills `buffer` from the operating system's random source: for keys, nonces and ids. A
/// per-thread generator would save a system call per token, but a process that forks would
/// hand its generator's state to the child, and the two would then seal with the same nonces.
///
/// # Panics
///
/// When there is none: every id and key the runtime mints depends on it.
pub(crate) fn fill_random(buffer: &mut [u8]) {
    getrandom::fill(buffer).expect("the operating system's random source is unavailable");
}

/// `bytes` as lowercase hex digits.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_only_in_shortest_form() {
        for value in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, value);
            let mut input = out.as_slice();
            assert_eq!(take_varint(&mut input), Some(value));
            assert!(input.is_empty());
        }
        assert_eq!(take_varint(&mut &[0x80, 0x00][..]), None);
        assert_eq!(take_varint(&mut &[0xff; 11][..]), None);
    }

    #[test]
    fn byte_strings_read_back_and_a_cut_one_does_not() {
        let mut out = Vec::new();
        put_bytes(&mut out, b"abc");
        out.push(7);
        let mut reader = Reader(&out);
        assert_eq!(reader.str(), Some("abc"));
        assert_eq!(reader.byte(), Some(7));
        assert_eq!(reader.byte(), None);
        assert_eq!(Reader(&out[..3]).bytes(), None);
    }

    #[test]
    fn fnv1a_is_the_reference_hash() {
        // The published FNV-1a test vectors.
        assert_eq!(fnv1a(&[]), 0x811c_9dc5);
        assert_eq!(fnv1a(&[b"a"]), 0xe40c_292c);
        assert_eq!(fnv1a(&[b"foo", b"bar"]), fnv1a(&[b"foobar"]));
        assert_eq!(fnv1a(&[b"foobar"]), 0xbf9c_f968);
    }
}
