//! Poly1305 (RFC 8439, section 2.5), the one-time authenticator of the token's AEAD.
//!
//! Why not the `poly1305` crate: its x86 build always takes an AVX2 backend when the CPU has
//! one, and that backend's set-up and finish cost about 1.3 µs per message (measured against
//! its own portable backend, which a library cannot select: it is a `--cfg` for the final
//! build). A `requestState` is a few hundred bytes, so that fixed cost was most of the
//! AEAD's, twice per round. This is the classic 64-bit form (three limbs of 44, 44 and 42
//! bits, products in `u128`): no branches or table lookups on secret data, so it runs in
//! constant time. `aead::tests` checks it against the `poly1305` crate on random and edge
//! inputs, and against RFC 8439's vectors.

/// The length of a Poly1305 tag and of its blocks.
pub(crate) const BLOCK: usize = 16;

use zeroize::Zeroize;

const MASK_44: u64 = (1 << 44) - 1;
const MASK_42: u64 = (1 << 42) - 1;

fn le_u64(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes.try_into().expect("8 bytes"))
}

/// An incremental Poly1305 under one single-use key.
pub(crate) struct Poly1305 {
    /// The clamped multiplier `r`, in limbs.
    r: [u64; 3],
    /// `r1` and `r2` times 20 (4 × 5): the top limbs' products wrap around 2^130 as × 5.
    r_times_20: [u64; 2],
    /// The accumulator `h`, in limbs.
    h: [u64; 3],
    /// The key's second half, added at the end.
    pad: [u64; 2],
    /// Bytes not yet making up a whole block.
    buffer: [u8; BLOCK],
    buffered: usize,
}

impl Poly1305 {
    /// A fresh authenticator under `key` (`r` then `s`, as RFC 8439 lays them out).
    pub(crate) fn new(key: &[u8; 32]) -> Self {
        let (t0, t1) = (le_u64(&key[0..8]), le_u64(&key[8..16]));
        // Clamping: the bits RFC 8439 clears in `r`, in limb form.
        let r0 = t0 & 0xffc_0fff_ffff;
        let r1 = ((t0 >> 44) | (t1 << 20)) & 0xfff_ffc0_ffff;
        let r2 = (t1 >> 24) & 0x00f_ffff_fc0f;
        Self {
            r: [r0, r1, r2],
            r_times_20: [r1 * 20, r2 * 20],
            h: [0; 3],
            pad: [le_u64(&key[16..24]), le_u64(&key[24..32])],
            buffer: [0; BLOCK],
            buffered: 0,
        }
    }

    /// Feeds `data`, in any number of pieces.
    pub(crate) fn update(&mut self, mut data: &[u8]) {
        if self.buffered > 0 {
            let take = (BLOCK - self.buffered).min(data.len());
            self.buffer[self.buffered..self.buffered + take].copy_from_slice(&data[..take]);
            self.buffered += take;
            data = &data[take..];
            if self.buffered < BLOCK {
                return;
            }
            let block = self.buffer;
            self.block(&block, 1 << 40);
            self.buffered = 0;
        }
        let mut blocks = data.chunks_exact(BLOCK);
        for block in &mut blocks {
            self.block(block.try_into().expect("16 bytes"), 1 << 40);
        }
        let rest = blocks.remainder();
        self.buffer[..rest.len()].copy_from_slice(rest);
        self.buffered = rest.len();
    }

    /// Zero-fills what is buffered to a whole block, as the AEAD construction does after the
    /// associated data and after the ciphertext.
    pub(crate) fn pad_to_block(&mut self) {
        if self.buffered > 0 {
            self.buffer[self.buffered..].fill(0);
            let block = self.buffer;
            self.block(&block, 1 << 40);
            self.buffered = 0;
        }
    }

    /// The tag. The key and the accumulator are wiped when `self` drops.
    pub(crate) fn finish(mut self) -> [u8; BLOCK] {
        if self.buffered > 0 {
            // A final partial block gets its 1 bit right after its last byte, not at 2^128.
            let mut block = [0u8; BLOCK];
            block[..self.buffered].copy_from_slice(&self.buffer[..self.buffered]);
            block[self.buffered] = 1;
            self.block(&block, 0);
        }
        let [mut h0, mut h1, mut h2] = self.h;

        // Carry fully, twice round, so each limb is within its width.
        for _ in 0..2 {
            let carry = h1 >> 44;
            h1 &= MASK_44;
            h2 += carry;
            let carry = h2 >> 42;
            h2 &= MASK_42;
            h0 += carry * 5;
            let carry = h0 >> 44;
            h0 &= MASK_44;
            h1 += carry;
        }

        // g = h + 5 - 2^130; take g when it did not go below zero (h >= p), without a branch.
        let mut g0 = h0 + 5;
        let mut carry = g0 >> 44;
        g0 &= MASK_44;
        let mut g1 = h1 + carry;
        carry = g1 >> 44;
        g1 &= MASK_44;
        let g2 = (h2 + carry).wrapping_sub(1 << 42);
        let take_g = (g2 >> 63).wrapping_sub(1);
        h0 = (h0 & !take_g) | (g0 & take_g);
        h1 = (h1 & !take_g) | (g1 & take_g);
        h2 = (h2 & !take_g) | (g2 & take_g);

        // h + s, modulo 2^128.
        let [s0, s1] = self.pad;
        h0 += s0 & MASK_44;
        carry = h0 >> 44;
        h0 &= MASK_44;
        h1 += (((s0 >> 44) | (s1 << 20)) & MASK_44) + carry;
        carry = h1 >> 44;
        h1 &= MASK_44;
        h2 += ((s1 >> 24) & MASK_42) + carry;
        h2 &= MASK_42;

        let mut tag = [0u8; BLOCK];
        tag[..8].copy_from_slice(&(h0 | (h1 << 44)).to_le_bytes());
        tag[8..].copy_from_slice(&((h1 >> 20) | (h2 << 24)).to_le_bytes());
        tag
    }

    /// h = (h + block + high_bit) × r, partly reduced modulo 2^130 - 5.
    fn block(&mut self, block: &[u8; BLOCK], high_bit: u64) {
        let (t0, t1) = (le_u64(&block[0..8]), le_u64(&block[8..16]));
        let [r0, r1, r2] = self.r.map(u128::from);
        let [s1, s2] = self.r_times_20.map(u128::from);
        let h0 = u128::from(self.h[0] + (t0 & MASK_44));
        let h1 = u128::from(self.h[1] + (((t0 >> 44) | (t1 << 20)) & MASK_44));
        let h2 = u128::from(self.h[2] + (((t1 >> 24) & MASK_42) | high_bit));

        let d0 = h0 * r0 + h1 * s2 + h2 * s1;
        let mut d1 = h0 * r1 + h1 * r0 + h2 * s2;
        let mut d2 = h0 * r2 + h1 * r1 + h2 * r0;

        let mut carry = d0 >> 44;
        let mut h0 = d0 as u64 & MASK_44;
        d1 += carry;
        carry = d1 >> 44;
        let mut h1 = d1 as u64 & MASK_44;
        d2 += carry;
        let carry = (d2 >> 42) as u64;
        let h2 = d2 as u64 & MASK_42;
        h0 += carry * 5;
        let carry = h0 >> 44;
        h0 &= MASK_44;
        h1 += carry;
        self.h = [h0, h1, h2];
    }
}

impl Drop for Poly1305 {
    fn drop(&mut self) {
        self.r.zeroize();
        self.r_times_20.zeroize();
        self.h.zeroize();
        self.pad.zeroize();
        self.buffer.zeroize();
    }
}
