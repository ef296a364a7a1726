//! Deflate for HMAC-mode payloads over the compression threshold (never used in AEAD mode).

use std::cell::RefCell;

use miniz_oxide::deflate::core::{
    CompressorOxide, TDEFLFlush, TDEFLStatus, compress, create_comp_flags_from_zip_params,
};

use super::error::Rejection;
use super::wire::FLAG_DEFLATED;

/// miniz's default level: on token-sized payloads level 1 saves barely any time and a few bytes.
const LEVEL: i32 = 6;

thread_local! {
    // A compressor is some 300 KiB: allocating one per seal cost a loaded server more CPU
    // than the compression itself (0.78x of the rmcp baseline at 64 flows instead of 1.23x).
    // Boxed and made on first use: a thread that never deflates carries nothing (the struct
    // itself holds 64 KiB inline).
    static COMPRESSOR: RefCell<Option<Box<CompressorOxide>>> = const { RefCell::new(None) };
}

/// `payload` as a raw deflate stream, or `None` if that is not shorter.
pub(super) fn deflate(payload: &[u8]) -> Option<Vec<u8>> {
    let mut out = vec![0; payload.len().checked_sub(1)?];
    let written = COMPRESSOR.with_borrow_mut(|compressor| {
        let compressor = compressor.get_or_insert_with(|| {
            Box::new(CompressorOxide::new(create_comp_flags_from_zip_params(
                LEVEL, -15, 0,
            )))
        });
        compressor.reset();
        match compress(compressor, payload, &mut out, TDEFLFlush::Finish) {
            (TDEFLStatus::Done, _, written) => Some(written),
            // The stream did not fit in fewer bytes than the payload.
            _ => None,
        }
    })?;
    out.truncate(written);
    Some(out)
}

/// The payload as sealed: inflated if the token's `flags` say it was deflated (up to
/// `max_len` bytes), else as is.
pub(super) fn inflate(flags: u8, payload: &[u8], max_len: usize) -> Result<Vec<u8>, Rejection> {
    if flags & FLAG_DEFLATED != 0 {
        miniz_oxide::inflate::decompress_to_vec_with_limit(payload, max_len)
            .map_err(|_| Rejection::BadPayload("deflate stream invalid or too large".into()))
    } else {
        Ok(payload.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_gives_up_when_nothing_is_saved() {
        let text = b"lisbon-1472 (364), lisbon-2847 (344), lisbon-3e84 (568), lisbon-4fe8 (591)";
        let deflated = deflate(text).expect("repetitive text compresses");
        assert!(deflated.len() < text.len());
        assert_eq!(inflate(FLAG_DEFLATED, &deflated, 1024).unwrap(), text);
        // A second use of the thread's compressor starts from a clean state.
        assert_eq!(deflate(text).as_ref(), Some(&deflated));
        assert_eq!(deflate(&[0x5a]), None);
        assert_eq!(deflate(&[]), None);
        let noise: Vec<u8> = (0u32..64)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect();
        assert_eq!(deflate(&noise), None);
        assert!(
            inflate(FLAG_DEFLATED, &deflated, 8).is_err(),
            "over the limit"
        );
    }
}
