//! What every token asserts about itself: identity, timing, the flow it belongs to, the code
//! that minted it, and commitments to the request it was minted for.

use std::fmt;

use sha2::{Digest, Sha256};

use super::binding::Commitments;
use super::hex;

/// A random 128-bit id, unique per sealed token (`jti`). Single-use stores key on it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TokenId([u8; 16]);

/// A random 128-bit id shared by every round of one flow.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct FlowId([u8; 16]);

macro_rules! random_id {
    ($name:ident) => {
        impl $name {
            pub(crate) fn random() -> Self {
                let mut bytes = [0u8; 16];
                super::fill_random(&mut bytes);
                Self(bytes)
            }

            /// The 16 raw bytes.
            pub fn as_bytes(&self) -> &[u8; 16] {
                &self.0
            }

            /// An id from its 16 raw bytes (a store reading ids back, a benchmark).
            pub const fn from_bytes(bytes: [u8; 16]) -> Self {
                Self(bytes)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&hex(&self.0))
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "({})"), self)
            }
        }
    };
}

random_id!(TokenId);
random_id!(FlowId);

/// A 128-bit hash identifying the shape of the code that mints a token (for a tool: its resume
/// points, kept slots, keys and body source). A token is only resumed by code with the same
/// fingerprint.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint([u8; 16]);

impl Fingerprint {
    /// Wraps precomputed bytes (the macro computes them at compile time).
    pub const fn from_bytes(bytes: [u8; 16]) -> Self {
        Self(bytes)
    }

    /// The first 16 bytes of SHA-256 over `description`.
    pub fn of(description: &[u8]) -> Self {
        let digest = Sha256::digest(description);
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&digest[..16]);
        Self(bytes)
    }

    /// The 16 raw bytes.
    pub fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({})", hex(&self.0))
    }
}

/// The part of the claims that stays the same, or advances by one, from round to round.
///
/// Start one with [`StateCodec::start_flow`](super::StateCodec::start_flow); a verified token
/// hands it back in [`Claims::flow`], and [`Flow::next_round`] continues it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flow {
    pub(crate) id: FlowId,
    pub(crate) deadline: u64,
    pub(crate) round: u32,
    pub(crate) fingerprint: Fingerprint,
}

impl Flow {
    /// The flow's id, the same in every round.
    pub fn id(&self) -> FlowId {
        self.id
    }

    /// Absolute deadline of the whole flow, in seconds since the epoch.
    pub fn deadline(&self) -> u64 {
        self.deadline
    }

    /// The round this token was sealed at the end of: 1 for the first `input_required`.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Fingerprint of the code that minted the flow.
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// The same flow, one round further.
    #[must_use]
    pub fn next_round(&self) -> Self {
        Self {
            round: self.round.saturating_add(1),
            ..*self
        }
    }
}

/// Everything a verified token asserts, apart from its payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claims {
    pub(crate) token_id: TokenId,
    pub(crate) issued_at: u64,
    pub(crate) expires_at: u64,
    pub(crate) flow: Flow,
}

impl Claims {
    /// This token's unique id (`jti`).
    pub fn token_id(&self) -> TokenId {
        self.token_id
    }

    /// When it was sealed, in seconds since the epoch.
    pub fn issued_at(&self) -> u64 {
        self.issued_at
    }

    /// When this round's token stops being accepted, in seconds since the epoch.
    pub fn expires_at(&self) -> u64 {
        self.expires_at
    }

    /// The flow it belongs to.
    pub fn flow(&self) -> Flow {
        self.flow
    }
}

/// Fixed-size binary layout of the claims at the start of every token body.
pub(crate) const CLAIMS_LEN: usize = 16 + 16 + 8 + 8 + 8 + 4 + 16 + Commitments::LEN;

pub(crate) fn encode_claims(claims: &Claims, commitments: &Commitments, out: &mut Vec<u8>) {
    out.extend_from_slice(&claims.token_id.0);
    out.extend_from_slice(&claims.flow.id.0);
    out.extend_from_slice(&claims.issued_at.to_be_bytes());
    out.extend_from_slice(&claims.expires_at.to_be_bytes());
    out.extend_from_slice(&claims.flow.deadline.to_be_bytes());
    out.extend_from_slice(&claims.flow.round.to_be_bytes());
    out.extend_from_slice(&claims.flow.fingerprint.0);
    commitments.encode(out);
}

/// Splits a verified body into claims, commitments and payload. `None` if it is too short,
/// which only a bug on the sealing side can cause once the tag has verified.
pub(crate) fn decode_claims(body: &[u8]) -> Option<(Claims, Commitments, &[u8])> {
    if body.len() < CLAIMS_LEN {
        return None;
    }
    let (fixed, payload) = body.split_at(CLAIMS_LEN);
    let mut reader = Reader(fixed);
    let token_id = TokenId(reader.array());
    let id = FlowId(reader.array());
    let issued_at = u64::from_be_bytes(reader.array());
    let expires_at = u64::from_be_bytes(reader.array());
    let deadline = u64::from_be_bytes(reader.array());
    let round = u32::from_be_bytes(reader.array());
    let fingerprint = Fingerprint(reader.array());
    let commitments = Commitments::decode(reader.0);
    let flow = Flow {
        id,
        deadline,
        round,
        fingerprint,
    };
    Some((
        Claims {
            token_id,
            issued_at,
            expires_at,
            flow,
        },
        commitments,
        payload,
    ))
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn array<const N: usize>(&mut self) -> [u8; N] {
        let (head, rest) = self.0.split_at(N);
        self.0 = rest;
        head.try_into().expect("split_at returned N bytes")
    }
}
