//! What a token is bound to: the request it was minted for, the deployment and the code that
//! minted it.
//!
//! The bound values are never stored (the request carries them again on every retry): they go
//! into the AEAD associated data or the MAC input, so a token presented with any other value
//! fails its tag. For the log, the header keeps a one-byte hint per binding: a byte of a hash of
//! the value, masked with a pad only the key holder can compute (keyed with the token's nonce or
//! flow id, so hints link nothing across flows). When a tag fails, the first binding whose hint
//! differs is named as the likely reason (unless more than two differ: then the token was
//! altered or sealed with another key); a hint matches by chance one time in 256, and then the
//! log says the tag did not verify.

use crate::bytes::fnv1a;
use hmac::Mac;
use serde_json::Value;

use super::canonical::ArgumentsDigest;
use super::claims::Fingerprint;
use super::error::Rejection;
use super::keys::DerivedKeys;
use super::wire::HINTS_LEN;
/// The request a token is sealed for, and must be presented with.
///
/// ```
/// use mrtr::token::Binding;
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

/// The bound values, length-prefixed, as they enter the associated data or the MAC.
pub(crate) fn bound(audience: &str, binding: &Binding<'_>, fingerprint: Fingerprint) -> Vec<u8> {
    let principal = binding.principal.unwrap_or_default();
    let mut out = Vec::with_capacity(
        96 + audience.len() + binding.method.len() + binding.target.len() + principal.len(),
    );
    for part in [
        audience.as_bytes(),
        binding.method.as_bytes(),
        binding.target.as_bytes(),
        binding.arguments.as_bytes(),
    ] {
        out.extend_from_slice(&(part.len() as u32).to_be_bytes());
        out.extend_from_slice(part);
    }
    match binding.principal {
        Some(principal) => {
            out.push(1);
            out.extend_from_slice(&(principal.len() as u32).to_be_bytes());
            out.extend_from_slice(principal.as_bytes());
        }
        None => out.push(0),
    }
    out.extend_from_slice(fingerprint.as_bytes());
    out
}

/// The six bindings, in the order an operator would look for a mismatch.
const BINDINGS: [Rejection; 6] = [
    Rejection::WrongAudience,
    Rejection::WrongMethod,
    Rejection::WrongTarget,
    Rejection::WrongArguments,
    Rejection::WrongPrincipal,
    Rejection::WrongFingerprint,
];

/// One-byte hints of the six bindings, for the log only (see the module docs).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hints(pub(crate) [u8; HINTS_LEN]);

impl Hints {
    pub(crate) fn compute(
        keys: &DerivedKeys,
        salt: &[u8; 16],
        audience: &str,
        binding: &Binding<'_>,
        fingerprint: Fingerprint,
    ) -> Self {
        let mut mac = keys.binding.clone();
        mac.update(b"hints");
        mac.update(salt);
        let pad = mac.finalize().into_bytes();
        let principal: [&[u8]; 2] = match binding.principal {
            Some(principal) => [b"1", principal.as_bytes()],
            None => [b"0", b""],
        };
        let values: [&[&[u8]]; 6] = [
            &[audience.as_bytes()],
            &[binding.method.as_bytes()],
            &[binding.target.as_bytes()],
            &[binding.arguments.as_bytes()],
            &principal,
            &[fingerprint.as_bytes()],
        ];
        let mut hints = [0u8; HINTS_LEN];
        for (index, parts) in values.iter().enumerate() {
            hints[index] = fnv1a(parts).to_le_bytes()[0] ^ pad[index];
        }
        Self(hints)
    }

    /// The first binding whose hint differs from the presented request's. `None` when none
    /// differs, or more than two do: a request that differs in that many bindings is rare, while
    /// a token sealed with another key, or whose salt was altered, differs in (nearly) all.
    pub(crate) fn first_mismatch(&self, expected: &Self) -> Option<Rejection> {
        let differing = self
            .0
            .iter()
            .zip(expected.0)
            .filter(|(a, b)| **a != *b)
            .count();
        if differing > 2 {
            return None;
        }
        BINDINGS
            .into_iter()
            .zip(self.0.iter().zip(expected.0))
            .find_map(|(rejection, (hint, expected))| (*hint != expected).then_some(rejection))
    }
}
