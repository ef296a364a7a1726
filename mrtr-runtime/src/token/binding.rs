//! What a token is bound to: the request it was minted for and the deployment that minted it.
//!
//! The bound values themselves are never stored (the request carries them again on every
//! retry). The token holds one 64-bit keyed commitment per value instead: the tag covers them,
//! the client cannot compute them without the key, and on a mismatch the log can say *which*
//! binding differed.
//!
//! Each commitment is salted with the token's own id, so two tokens of the same principal (or
//! arguments) carry unrelated bytes and cannot be linked by reading HMAC-mode tokens. 64 bits
//! are enough: a commitment is never a secret nor a MAC on its own (the token's tag is), it only
//! has to differ when the bound value differs, and a chance match (2^-64) would still need a
//! valid tag. If the bindings move into the associated data (the token-layout issue), these
//! commitments, and this note, go away.

use hmac::Mac;
use serde_json::Value;

use super::canonical::ArgumentsDigest;
use super::claims::TokenId;
use super::error::Rejection;
use super::keys::DerivedKeys;

/// The request a token is sealed for, and must be presented with.
///
/// ```
/// use mrtr_runtime::token::Binding;
/// use serde_json::json;
/// let args = json!({"location": "Paris"});
/// let binding = Binding::new("tools/call", "get_weather", Some(&args)).principal(Some("alice"));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Binding<'a> {
    method: &'a str,
    target: &'a str,
    arguments: ArgumentsDigest,
    principal: Option<&'a str>,
}

impl<'a> Binding<'a> {
    /// Binds to `method` (`tools/call`, `prompts/get`, `resources/read`), the tool or prompt
    /// name or resource URI, and the arguments (digested with RFC 8785; absent = `{}`).
    pub fn new(method: &'a str, target: &'a str, arguments: Option<&Value>) -> Self {
        Self::with_digest(method, target, ArgumentsDigest::of(arguments))
    }

    /// Like [`Binding::new`] with an argument digest computed earlier.
    pub fn with_digest(method: &'a str, target: &'a str, arguments: ArgumentsDigest) -> Self {
        Self {
            method,
            target,
            arguments,
            principal: None,
        }
    }

    /// Binds to the authenticated principal (`None`: an unauthenticated request).
    #[must_use]
    pub fn principal(mut self, principal: Option<&'a str>) -> Self {
        self.principal = principal;
        self
    }
}

/// Keyed commitments to each bound value, stored in the token.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Commitments {
    audience: [u8; 8],
    method: [u8; 8],
    target: [u8; 8],
    arguments: [u8; 8],
    principal: [u8; 8],
}

impl Commitments {
    pub(crate) const LEN: usize = 5 * 8;

    pub(crate) fn compute(
        keys: &DerivedKeys,
        token: &TokenId,
        audience: &str,
        binding: &Binding<'_>,
    ) -> Self {
        let commit = |label: &[u8], value: &[u8]| -> [u8; 8] {
            let mut mac = keys.binding.clone();
            mac.update(token.as_bytes());
            mac.update(label);
            mac.update(&(value.len() as u64).to_be_bytes());
            mac.update(value);
            let mut out = [0u8; 8];
            out.copy_from_slice(&mac.finalize().into_bytes()[..8]);
            out
        };
        let principal = match binding.principal {
            Some(principal) => commit(b"principal", principal.as_bytes()),
            None => commit(b"anonymous", b""),
        };
        Self {
            audience: commit(b"audience", audience.as_bytes()),
            method: commit(b"method", binding.method.as_bytes()),
            target: commit(b"target", binding.target.as_bytes()),
            arguments: commit(b"arguments", binding.arguments.as_bytes()),
            principal,
        }
    }

    /// The first binding that differs, in the order an operator would look for it.
    pub(crate) fn first_mismatch(&self, expected: &Self) -> Option<Rejection> {
        let checks = [
            (self.audience == expected.audience, Rejection::WrongAudience),
            (self.method == expected.method, Rejection::WrongMethod),
            (self.target == expected.target, Rejection::WrongTarget),
            (
                self.arguments == expected.arguments,
                Rejection::WrongArguments,
            ),
            (
                self.principal == expected.principal,
                Rejection::WrongPrincipal,
            ),
        ];
        checks
            .into_iter()
            .find(|(equal, _)| !equal)
            .map(|(_, rejection)| rejection)
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        for part in [
            self.audience,
            self.method,
            self.target,
            self.arguments,
            self.principal,
        ] {
            out.extend_from_slice(&part);
        }
    }

    /// `bytes` is exactly [`Self::LEN`] long (the caller split it off the claims).
    pub(crate) fn decode(bytes: &[u8]) -> Self {
        let part = |index: usize| -> [u8; 8] {
            bytes[index * 8..index * 8 + 8]
                .try_into()
                .expect("8-byte slice")
        };
        Self {
            audience: part(0),
            method: part(1),
            target: part(2),
            arguments: part(3),
            principal: part(4),
        }
    }
}
