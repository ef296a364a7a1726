//! XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha, RFC 8439's AEAD under an HChaCha20 subkey),
//! sealing and opening in place. The cipher is the `chacha20` crate's; the authenticator is
//! [`super::poly1305`], for the reason given there. The bytes are those of the
//! `chacha20poly1305` crate, which the tests check.

use chacha20::XChaCha20;
use chacha20::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use super::poly1305::{BLOCK, Poly1305};

/// The stream at `nonce`, with block 0 (the authenticator's key) taken off.
fn stream(key: &[u8; 32], nonce: &[u8; 24]) -> (XChaCha20, Poly1305) {
    let mut cipher = XChaCha20::new(key.into(), nonce.into());
    let mut poly_key = [0u8; 32];
    cipher.apply_keystream(&mut poly_key);
    // The message starts at block 1; the rest of block 0 is not used.
    cipher.seek(64u64);
    let poly = Poly1305::new(&poly_key);
    poly_key.zeroize();
    (cipher, poly)
}

/// The tag over `associated` (given in pieces, taken as one) and `ciphertext`.
fn tag(mut poly: Poly1305, associated: &[&[u8]], ciphertext: &[u8]) -> [u8; BLOCK] {
    let mut associated_len = 0u64;
    for piece in associated {
        poly.update(piece);
        associated_len += piece.len() as u64;
    }
    poly.pad_to_block();
    poly.update(ciphertext);
    poly.pad_to_block();
    poly.update(&associated_len.to_le_bytes());
    poly.update(&(ciphertext.len() as u64).to_le_bytes());
    poly.finish()
}

/// Encrypts `message` in place and returns its tag.
pub(crate) fn seal(
    key: &[u8; 32],
    nonce: &[u8; 24],
    associated: &[&[u8]],
    message: &mut [u8],
) -> [u8; BLOCK] {
    let (mut cipher, poly) = stream(key, nonce);
    cipher.apply_keystream(message);
    tag(poly, associated, message)
}

/// The tag did not match: the token was not sealed under this key with this associated data.
#[derive(Debug)]
pub(crate) struct BadTag;

/// Checks `expected` over `ciphertext` in constant time, then decrypts it in place. Nothing is
/// decrypted when the tag does not match.
pub(crate) fn open(
    key: &[u8; 32],
    nonce: &[u8; 24],
    associated: &[&[u8]],
    ciphertext: &mut [u8],
    expected: &[u8; BLOCK],
) -> Result<(), BadTag> {
    let (mut cipher, poly) = stream(key, nonce);
    let actual = tag(poly, associated, ciphertext);
    if !bool::from(actual.ct_eq(expected)) {
        return Err(BadTag);
    }
    cipher.apply_keystream(ciphertext);
    Ok(())
}

/// Decrypts `ciphertext` in place **without checking its tag**: for inspecting a token whose
/// associated data the caller cannot rebuild, never for trusting it.
pub(crate) fn decrypt_unauthenticated(key: &[u8; 32], nonce: &[u8; 24], ciphertext: &mut [u8]) {
    stream(key, nonce).0.apply_keystream(ciphertext);
}

#[cfg(test)]
mod tests {
    use chacha20poly1305::aead::{AeadInPlace, KeyInit};
    use chacha20poly1305::{Tag, XChaCha20Poly1305};

    use super::*;

    /// A deterministic byte source (xorshift), so a failure names its case.
    struct Bytes(u64);

    impl Bytes {
        fn fill(&mut self, out: &mut [u8]) {
            for byte in out {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                *byte = self.0 as u8;
            }
        }

        fn vec(&mut self, len: usize) -> Vec<u8> {
            let mut out = vec![0; len];
            self.fill(&mut out);
            out
        }
    }

    fn theirs(key: &[u8; 32], message: &[u8]) -> [u8; 16] {
        poly1305::Poly1305::new(key.into())
            .compute_unpadded(message)
            .into()
    }

    fn ours(key: &[u8; 32], message: &[u8]) -> [u8; 16] {
        let mut poly = Poly1305::new(key);
        poly.update(message);
        poly.finish()
    }

    #[test]
    fn poly1305_matches_rfc_8439() {
        // Section 2.5.2.
        let key = from_hex("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b");
        let tag = ours(
            &key.try_into().unwrap(),
            b"Cryptographic Forum Research Group",
        );
        assert_eq!(tag.to_vec(), from_hex("a8061dc1305136c6c22b8baf0c0127a9"));
    }

    #[test]
    fn poly1305_matches_the_crate_on_random_inputs_fed_in_pieces() {
        let mut bytes = Bytes(0x9e37_79b9_7f4a_7c15);
        for len in (0..=300).chain([1_000, 4_099, 65_536]) {
            let mut key = [0u8; 32];
            bytes.fill(&mut key);
            // Every third key has all of r's clamped bits set, the largest multiplier.
            if len % 3 == 0 {
                key[..16].fill(0xff);
            }
            let message = bytes.vec(len);
            let expected = theirs(&key, &message);
            assert_eq!(ours(&key, &message), expected, "length {len}");
            // The same message, fed in uneven pieces, some longer than a block.
            let mut poly = Poly1305::new(&key);
            for piece in message.chunks(1 + len % 37) {
                poly.update(piece);
            }
            assert_eq!(poly.finish(), expected, "length {len} in pieces");
        }
    }

    /// Keys and messages of all-ones and all-zeros bytes drive the accumulator to and past the
    /// modulus, where the final reduction and the carries must get every bit right.
    #[test]
    fn poly1305_matches_the_crate_at_the_edges() {
        let keys = [[0xffu8; 32], [0u8; 32], {
            let mut key = [0xffu8; 32];
            key[16..].fill(0);
            key
        }];
        for key in keys {
            for len in [0, 1, 15, 16, 17, 32, 64, 255] {
                for fill in [0x00, 0xff, 0xfe] {
                    let message = vec![fill; len];
                    assert_eq!(ours(&key, &message), theirs(&key, &message));
                }
            }
        }
    }

    /// RFC 8439, appendix A.3: vectors 1 and 4 to 11 (2 and 3 repeat 4's text under other
    /// keys). 5 to 11 are built so that the sum lands on, or just past, p = 2^130 - 5 and
    /// through every carry, which random inputs never reach; the last row is a sum of exactly
    /// p (tag 0).
    #[test]
    fn poly1305_matches_rfc_8439_appendix_a3() {
        let jabberwocky =
            b"'Twas brillig, and the slithy toves\nDid gyre and gimble in the wabe:\n\
            All mimsy were the borogoves,\nAnd the mome raths outgrabe.";
        let ones = "ffffffffffffffffffffffffffffffff";
        let r1 = "01000000000000000000000000000000";
        let r2 = "02000000000000000000000000000000";
        let r1_4 = "01000000000000000400000000000000";
        let zero = "00000000000000000000000000000000";
        let cases: [(&str, &str, Vec<u8>, &str); 10] = [
            (zero, zero, vec![0; 64], zero),
            (
                "1c9240a5eb55d38af333888604f6b5f0",
                "473917c1402b80099dca5cbc207075c0",
                jabberwocky.to_vec(),
                "4541669a7eaaee61e708dc7cbcc5eb62",
            ),
            (r2, zero, from_hex(ones), "03000000000000000000000000000000"),
            (r2, ones, from_hex(r2), "03000000000000000000000000000000"),
            (
                r1,
                zero,
                from_hex(&format!(
                    "{ones}f0ffffffffffffffffffffffffffffff11000000000000000000000000000000"
                )),
                "05000000000000000000000000000000",
            ),
            (
                r1,
                zero,
                from_hex(&format!(
                    "{ones}fbfefefefefefefefefefefefefefefe01010101010101010101010101010101"
                )),
                zero,
            ),
            (
                r2,
                zero,
                from_hex("fdffffffffffffffffffffffffffffff"),
                "faffffffffffffffffffffffffffffff",
            ),
            (
                r1_4,
                zero,
                from_hex(
                    "e33594d7505e43b900000000000000003394d7505e4379cd01000000000000000000000000000000\
                     000000000000000001000000000000000000000000000000",
                ),
                "14000000000000005500000000000000",
            ),
            (
                r1_4,
                zero,
                from_hex(
                    "e33594d7505e43b900000000000000003394d7505e4379cd01000000000000000000000000000000\
                     0000000000000000",
                ),
                "13000000000000000000000000000000",
            ),
            (
                r1,
                zero,
                from_hex(&format!("{ones}fcffffffffffffffffffffffffffffff")),
                zero,
            ),
        ];
        for (r, s, message, tag) in cases {
            let key: [u8; 32] = from_hex(&format!("{r}{s}")).try_into().unwrap();
            assert_eq!(
                ours(&key, &message).to_vec(),
                from_hex(tag),
                "r {r}, tag {tag}"
            );
            assert_eq!(
                theirs(&key, &message).to_vec(),
                from_hex(tag),
                "the crate: r {r}"
            );
        }
    }

    /// draft-irtf-cfrg-xchacha-03, A.3.1: the AEAD's own test vector, the associated data given
    /// in three pieces (one empty).
    #[test]
    fn xchacha20_poly1305_matches_the_draft() {
        let key: [u8; 32] = std::array::from_fn(|i| 0x80 + i as u8);
        let nonce: [u8; 24] = std::array::from_fn(|i| 0x40 + i as u8);
        let associated = from_hex("50515253c0c1c2c3c4c5c6c7");
        let plain = b"Ladies and Gentlemen of the class of '99: If I could offer you only one \
            tip for the future, sunscreen would be it.";
        let mut text = plain.to_vec();
        let tag = seal(
            &key,
            &nonce,
            &[&associated[..5], &[], &associated[5..]],
            &mut text,
        );
        assert_eq!(
            text,
            from_hex(
                "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa644\
                 0bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e\
                 3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52e"
            )
        );
        assert_eq!(tag.to_vec(), from_hex("c0875924c1c7987947deafd8780acf49"));
        open(&key, &nonce, &[&associated], &mut text, &tag).unwrap();
        assert_eq!(text, plain);
    }

    #[test]
    fn sealing_gives_the_crates_bytes_and_opening_takes_them_back() {
        let mut bytes = Bytes(0x2545_f491_4f6c_dd1d);
        for len in [0, 1, 15, 16, 17, 63, 64, 65, 300, 1000] {
            let mut key = [0u8; 32];
            let mut nonce = [0u8; 24];
            bytes.fill(&mut key);
            bytes.fill(&mut nonce);
            let (head, bound) = (bytes.vec(len % 40), bytes.vec(33));
            let plain = bytes.vec(len);

            let mut ours = plain.clone();
            let tag = seal(&key, &nonce, &[&head, &bound], &mut ours);

            let mut theirs = plain.clone();
            let associated = [head.as_slice(), &bound].concat();
            let their_tag = XChaCha20Poly1305::new((&key).into())
                .encrypt_in_place_detached((&nonce).into(), &associated, &mut theirs)
                .unwrap();
            assert_eq!(
                (ours.as_slice(), tag),
                (theirs.as_slice(), their_tag.into())
            );

            open(&key, &nonce, &[&head, &bound], &mut ours, &tag).unwrap();
            assert_eq!(ours, plain);
        }
    }

    #[test]
    fn opening_refuses_any_changed_bit_and_decrypts_nothing() {
        let (key, nonce) = ([7u8; 32], [9u8; 24]);
        let mut sealed = b"kept values".to_vec();
        let tag = seal(&key, &nonce, &[b"head"], &mut sealed);
        let ciphertext = sealed.clone();

        let mut changed_tag = tag;
        changed_tag[15] ^= 1;
        let mut changed_text = ciphertext.clone();
        changed_text[0] ^= 0x80;
        let mut other_key = key;
        other_key[0] ^= 1;
        // (key, ciphertext, associated data, tag), each with one thing changed.
        let cases = [
            (&key, &ciphertext, &b"head"[..], &changed_tag),
            (&key, &changed_text, b"head", &tag),
            (&key, &ciphertext, b"heaD", &tag),
            (&other_key, &ciphertext, b"head", &tag),
        ];
        for (key, text, associated, tag) in cases {
            let mut text = text.clone();
            let before = text.clone();
            assert!(open(key, &nonce, &[associated], &mut text, tag).is_err());
            assert_eq!(text, before, "nothing is decrypted");
        }
        // The RustCrypto AEAD agrees that the untouched token opens.
        let mut theirs = ciphertext;
        XChaCha20Poly1305::new((&key).into())
            .decrypt_in_place_detached((&nonce).into(), b"head", &mut theirs, Tag::from_slice(&tag))
            .unwrap();
        assert_eq!(theirs, b"kept values");
    }

    fn from_hex(text: &str) -> Vec<u8> {
        let text: String = text.split_whitespace().collect();
        (0..text.len() / 2)
            .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).unwrap())
            .collect()
    }
}
