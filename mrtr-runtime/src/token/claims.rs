//! What every token asserts about itself: identity, timing and the flow it belongs to. The code
//! that minted it (the fingerprint) and the request it was minted for are bound through the tag,
//! not stored.

use crate::bytes::{put_varint, take_varint};
use std::fmt;

use sha2::{Digest, Sha256};

use crate::bytes::hex;

/// A 128-bit id, unique per sealed token (`jti`): the AEAD nonce, or the HMAC tag. Single-use
/// stores key on it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TokenId([u8; 16]);

/// A random 128-bit id shared by every round of one flow.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct FlowId([u8; 16]);

macro_rules! random_id {
    ($name:ident) => {
        impl $name {
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

impl FlowId {
    pub(crate) fn random() -> Self {
        let mut bytes = [0u8; 16];
        crate::bytes::fill_random(&mut bytes);
        Self(bytes)
    }
}

/// A 128-bit hash identifying the code generation that mints a token. A token is only resumed by
/// code with the same fingerprint.
///
/// For a `#[mrtr::tool]`, `#[mrtr::prompt]` or `#[mrtr::resource]` it is
/// [`Fingerprint::of_version`] of the attribute, the name and the declared `version`: editing
/// the body keeps it, and each resume point is then checked on its own (its identity and the
/// types of what it keeps travel in the state). Bumping `version` refuses every flow in flight.
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

    /// The fingerprint of generated machines: `kind` is the attribute (`tool`, `prompt`,
    /// `resource`), `name` the tool or prompt name or the resource URI, `version` the declared
    /// `version` (1 by default). An operator's tool can compute it to check a token offline.
    pub fn of_version(kind: &str, name: &str, version: u32) -> Self {
        Self::of(format!("mrtr {kind} {name:?} version {version}").as_bytes())
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

/// The claims at the start of every token body:
///
/// ```text
/// claims = flow_id[16] issued_at:varint (expires_at - issued_at):varint
///          (deadline - issued_at):zigzag-varint round:varint
/// ```
///
/// The token id is not stored: it is the AEAD nonce or the HMAC tag. The fingerprint is bound
/// through the tag.
pub(crate) fn encode_claims(claims: &Claims, out: &mut Vec<u8>) {
    out.extend_from_slice(&claims.flow.id.0);
    put_varint(out, claims.issued_at);
    put_varint(out, claims.expires_at.saturating_sub(claims.issued_at));
    let deadline = claims.flow.deadline as i128 - claims.issued_at as i128;
    let zigzag = if deadline < 0 {
        (((-deadline) as u64) << 1) - 1
    } else {
        (deadline as u64) << 1
    };
    put_varint(out, zigzag);
    put_varint(out, u64::from(claims.flow.round));
}

/// Splits a verified body into claims and payload; `token_id` and `fingerprint` come from the
/// envelope and the verifier. `None` if the claims do not decode, which only a bug on the
/// sealing side can cause once the tag has verified.
pub(crate) fn decode_claims(
    body: &[u8],
    token_id: [u8; 16],
    fingerprint: Fingerprint,
) -> Option<(Claims, &[u8])> {
    let (id, mut rest) = body.split_first_chunk::<16>()?;
    let issued_at = take_varint(&mut rest)?;
    let expires_at = issued_at.checked_add(take_varint(&mut rest)?)?;
    let zigzag = take_varint(&mut rest)?;
    let deadline = if zigzag & 1 == 1 {
        issued_at.checked_sub((zigzag >> 1) + 1)?
    } else {
        issued_at.checked_add(zigzag >> 1)?
    };
    let round = u32::try_from(take_varint(&mut rest)?).ok()?;
    let flow = Flow {
        id: FlowId(*id),
        deadline,
        round,
        fingerprint,
    };
    Some((
        Claims {
            token_id: TokenId(token_id),
            issued_at,
            expires_at,
            flow,
        },
        rest,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_round_trip_with_a_deadline_before_issue() {
        let fingerprint = Fingerprint::of(b"f");
        for deadline in [1_000, 5_000] {
            let claims = Claims {
                token_id: TokenId([1; 16]),
                issued_at: 2_000,
                expires_at: 2_600,
                flow: Flow {
                    id: FlowId([2; 16]),
                    deadline,
                    round: 3,
                    fingerprint,
                },
            };
            let mut body = Vec::new();
            encode_claims(&claims, &mut body);
            body.extend_from_slice(b"payload");
            let (decoded, payload) = decode_claims(&body, [1; 16], fingerprint).unwrap();
            assert_eq!(decoded, claims);
            assert_eq!(payload, b"payload");
        }
    }
}
