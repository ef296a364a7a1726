//! Keys and the key ring: verify with every known key, sign with exactly one.
//!
//! Rotation across a fleet is three steps, each rolled out everywhere before the next:
//! [`KeyRing::add`] the new key (verify-only), [`KeyRing::promote`] it (it signs, the old one
//! keeps verifying), and once the old tokens have expired, [`KeyRing::retire`] the old key.

use std::fmt;
use std::sync::{Arc, RwLock};

use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use zeroize::Zeroize;

use super::error::KeyError;

/// The environment variable read by [`KeyRing::from_env`] and by a codec built without keys.
pub const KEYS_ENV_VAR: &str = "MRTR_STATE_KEYS";

/// The shortest secret accepted, in bytes.
pub const MIN_KEY_LEN: usize = 32;

/// Longest key id, in bytes.
pub const MAX_KEY_ID_LEN: usize = 32;

/// Secret key material (at least [`MIN_KEY_LEN`] bytes). Zeroed on drop; `Debug` shows nothing.
#[derive(Clone)]
pub struct SecretKey(Vec<u8>);

impl Drop for SecretKey {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

impl SecretKey {
    /// Wraps raw key bytes, refusing keys shorter than [`MIN_KEY_LEN`].
    pub fn from_bytes(bytes: impl Into<Vec<u8>>) -> Result<Self, KeyError> {
        let bytes = bytes.into();
        if bytes.len() < MIN_KEY_LEN {
            return Err(KeyError::TooShort { len: bytes.len() });
        }
        Ok(Self(bytes))
    }

    /// Decodes a key written in base64 (standard or URL-safe alphabet, padding optional).
    pub fn from_base64(text: &str) -> Result<Self, KeyError> {
        use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
        let trimmed = text.trim().trim_end_matches('=');
        let bytes = URL_SAFE_NO_PAD
            .decode(trimmed)
            .or_else(|_| STANDARD_NO_PAD.decode(trimmed))
            .map_err(|_| KeyError::NotBase64)?;
        Self::from_bytes(bytes)
    }

    /// A fresh random 32-byte key from the operating system.
    pub fn random() -> Self {
        let mut bytes = vec![0u8; MIN_KEY_LEN];
        crate::bytes::fill_random(&mut bytes);
        Self(bytes)
    }

    /// Purpose-separated subkeys, so one secret never serves two algorithms directly.
    pub(crate) fn derive(&self) -> DerivedKeys {
        let derive = |label: &[u8]| -> [u8; 32] {
            let mut mac =
                Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes any key length");
            mac.update(label);
            mac.finalize().into_bytes().into()
        };
        let keyed = |label: &[u8]| {
            let mut subkey = derive(label);
            let mac = Hmac::<Sha256>::new_from_slice(&subkey).expect("HMAC takes any key length");
            subkey.zeroize();
            mac
        };
        DerivedKeys {
            aead: derive(b"mrtr/state/v1/aead"),
            mac: keyed(b"mrtr/state/v1/hmac"),
            binding: keyed(b"mrtr/state/v1/binding"),
        }
    }
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretKey(..)")
    }
}

/// Subkeys derived from one [`SecretKey`]. The two HMAC keys are kept as keyed HMAC states,
/// cloned for each use: that saves the key setup (two of the four compressions of a short
/// HMAC) on the six HMACs of every seal and open. The `hmac` crate cannot zero those states;
/// the configured secret and the AEAD key are zeroed on drop.
pub(crate) struct DerivedKeys {
    pub(crate) aead: [u8; 32],
    pub(crate) mac: Hmac<Sha256>,
    pub(crate) binding: Hmac<Sha256>,
}

impl Drop for DerivedKeys {
    fn drop(&mut self) {
        self.aead.zeroize();
    }
}

/// A key's name, carried in every token so the verifier knows which key to try.
///
/// One to [`MAX_KEY_ID_LEN`] bytes of `A-Z a-z 0-9 . _ -`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct KeyId(String);

impl KeyId {
    /// Validates a key id.
    pub fn new(id: impl Into<String>) -> Result<Self, KeyError> {
        let id = id.into();
        let valid_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        if id.is_empty() || id.len() > MAX_KEY_ID_LEN || !id.chars().all(valid_char) {
            return Err(KeyError::InvalidKeyId { id });
        }
        Ok(Self(id))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyId({})", self.0)
    }
}

impl fmt::Display for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Default)]
struct RingState {
    signer: Option<KeyId>,
    keys: Vec<(KeyId, Arc<DerivedKeys>)>,
}

impl RingState {
    fn position(&self, id: &str) -> Option<usize> {
        self.keys.iter().position(|(kid, _)| kid.as_str() == id)
    }
}

/// The set of keys a codec verifies with, one of which signs.
///
/// A `KeyRing` is a cheap, shareable handle: clones see the same keys, so a ring kept by the
/// application can be rotated while codecs built from it keep serving requests.
#[derive(Clone, Default)]
pub struct KeyRing {
    state: Arc<RwLock<RingState>>,
}

impl KeyRing {
    /// An empty ring. Add a key and promote it before building a codec with it.
    pub fn new() -> Self {
        Self::default()
    }

    /// A ring holding one key, which signs.
    pub fn with_signing_key(id: KeyId, key: SecretKey) -> Self {
        let ring = Self::new();
        ring.write().keys.push((id.clone(), Arc::new(key.derive())));
        ring.write().signer = Some(id);
        ring
    }

    /// Parses `id:base64key[,id:base64key…]`; the first key signs, the others only verify.
    ///
    /// ```
    /// use mrtr::token::KeyRing;
    /// let ring = KeyRing::parse(
    ///     "2026-12:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8,\
    ///      2026-11:HyAhIiMkJSYnKCkqKywtLi8wMTIzNDU2Nzg5Ojs8PT4",
    /// ).unwrap();
    /// assert_eq!(ring.signing_key_id().unwrap().as_str(), "2026-12");
    /// assert_eq!(ring.key_ids().len(), 2);
    /// ```
    pub fn parse(config: &str) -> Result<Self, KeyError> {
        let ring = Self::new();
        let entries = config
            .split(',')
            .map(str::trim)
            .filter(|entry| !entry.is_empty());
        for (index, entry) in entries.enumerate() {
            // Never echo the entry: it holds key material.
            let (id, key) = entry.split_once(':').ok_or_else(|| KeyError::Config {
                reason: format!("entry {} is not of the form `id:base64key`", index + 1),
            })?;
            let id = KeyId::new(id.trim()).map_err(|_| KeyError::Config {
                reason: format!(
                    "entry {} has an invalid key id (1 to {MAX_KEY_ID_LEN} characters of \
                     A-Z a-z 0-9 . _ -); is it written `id:base64key`?",
                    index + 1
                ),
            })?;
            ring.add(id, SecretKey::from_base64(key)?)?;
        }
        let first = ring
            .key_ids()
            .into_iter()
            .next()
            .ok_or(KeyError::NoSigningKey)?;
        ring.promote(&first)?;
        Ok(ring)
    }

    /// Reads [`KEYS_ENV_VAR`] in the format of [`KeyRing::parse`]; `Ok(None)` when it is unset.
    pub fn from_env() -> Result<Option<Self>, KeyError> {
        match std::env::var(KEYS_ENV_VAR) {
            Ok(config) => Self::parse(&config).map(Some),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => Err(KeyError::Config {
                reason: format!("{KEYS_ENV_VAR} is not valid UTF-8"),
            }),
        }
    }

    /// Adds a key that verifies but does not sign.
    pub fn add(&self, id: KeyId, key: SecretKey) -> Result<(), KeyError> {
        let mut state = self.write();
        if state.position(id.as_str()).is_some() {
            return Err(KeyError::DuplicateKeyId { id: id.0 });
        }
        state.keys.push((id, Arc::new(key.derive())));
        Ok(())
    }

    /// Makes a known key the signing key; the previous signing key keeps verifying.
    pub fn promote(&self, id: &KeyId) -> Result<(), KeyError> {
        let mut state = self.write();
        if state.position(id.as_str()).is_none() {
            return Err(KeyError::UnknownKeyId { id: id.0.clone() });
        }
        state.signer = Some(id.clone());
        Ok(())
    }

    /// Forgets a key: tokens it sealed no longer open. The signing key cannot be retired;
    /// promote another one first.
    pub fn retire(&self, id: &KeyId) -> Result<(), KeyError> {
        let mut state = self.write();
        if state.signer.as_ref() == Some(id) {
            return Err(KeyError::RetireSigningKey { id: id.0.clone() });
        }
        let index = state
            .position(id.as_str())
            .ok_or_else(|| KeyError::UnknownKeyId { id: id.0.clone() })?;
        state.keys.remove(index);
        Ok(())
    }

    /// Replaces every key of this ring (and of its clones) with those of `other`, atomically.
    pub fn reload(&self, other: &KeyRing) -> Result<(), KeyError> {
        let (signer, keys) = {
            let source = other.read();
            (source.signer.clone(), source.keys.clone())
        };
        if signer.is_none() {
            return Err(KeyError::NoSigningKey);
        }
        let mut state = self.write();
        state.signer = signer;
        state.keys = keys;
        Ok(())
    }

    /// Re-reads [`KEYS_ENV_VAR`] and replaces this ring's keys with it.
    pub fn reload_from_env(&self) -> Result<(), KeyError> {
        let fresh = Self::from_env()?.ok_or(KeyError::Config {
            reason: format!("{KEYS_ENV_VAR} is not set"),
        })?;
        self.reload(&fresh)
    }

    /// The id of the key that signs new tokens, if one was promoted.
    pub fn signing_key_id(&self) -> Option<KeyId> {
        self.read().signer.clone()
    }

    /// Every key id in the ring, in the order they were added.
    pub fn key_ids(&self) -> Vec<KeyId> {
        self.read().keys.iter().map(|(id, _)| id.clone()).collect()
    }

    pub(crate) fn signer(&self) -> Option<(KeyId, Arc<DerivedKeys>)> {
        let state = self.read();
        let signer = state.signer.as_ref()?;
        let index = state.position(signer.as_str())?;
        Some(state.keys[index].clone())
    }

    pub(crate) fn find(&self, id: &str) -> Option<Arc<DerivedKeys>> {
        let state = self.read();
        state
            .position(id)
            .map(|index| Arc::clone(&state.keys[index].1))
    }

    // A poisoned lock only means another thread panicked mid-update of a Vec push/remove,
    // which leaves the ring consistent, so recovering the guard is safe.
    fn read(&self) -> std::sync::RwLockReadGuard<'_, RingState> {
        self.state
            .read()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, RingState> {
        self.state
            .write()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

impl fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.read();
        f.debug_struct("KeyRing")
            .field("signer", &state.signer)
            .field(
                "keys",
                &state.keys.iter().map(|(id, _)| id).collect::<Vec<_>>(),
            )
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(byte: u8) -> SecretKey {
        SecretKey::from_bytes(vec![byte; 32]).unwrap()
    }

    #[test]
    fn short_keys_and_bad_ids_are_refused() {
        assert!(matches!(
            SecretKey::from_bytes(vec![0; 31]),
            Err(KeyError::TooShort { len: 31 })
        ));
        assert!(KeyId::new("").is_err());
        assert!(KeyId::new("has space").is_err());
        assert!(KeyId::new("x".repeat(33)).is_err());
        assert!(KeyId::new("2026-12_a.b").is_ok());
    }

    #[test]
    fn rotation_moves_the_signer_and_keeps_old_keys_verifying() {
        let k1 = KeyId::new("k1").unwrap();
        let k2 = KeyId::new("k2").unwrap();
        let ring = KeyRing::with_signing_key(k1.clone(), key(1));
        ring.add(k2.clone(), key(2)).unwrap();
        assert_eq!(ring.signing_key_id(), Some(k1.clone()));
        ring.promote(&k2).unwrap();
        assert_eq!(ring.signing_key_id(), Some(k2.clone()));
        assert!(ring.find("k1").is_some());
        assert!(matches!(
            ring.retire(&k2),
            Err(KeyError::RetireSigningKey { .. })
        ));
        ring.retire(&k1).unwrap();
        assert!(ring.find("k1").is_none());
        assert!(matches!(
            ring.add(k2, key(3)),
            Err(KeyError::DuplicateKeyId { .. })
        ));
    }

    #[test]
    fn parse_redacts_key_material_in_errors() {
        let error = KeyRing::parse("k1=AAAAsecretmaterial").unwrap_err();
        assert!(!error.to_string().contains("secret"), "{error}");
        assert!(matches!(KeyRing::parse(" , "), Err(KeyError::NoSigningKey)));
        assert!(matches!(
            KeyRing::parse("k1:AAAA"),
            Err(KeyError::TooShort { len: 3 })
        ));
    }

    #[test]
    fn an_entry_written_backwards_does_not_echo_the_key() {
        let key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
        for config in [format!("{key}:k1"), format!("k0:{key},{key}:k1")] {
            let error = KeyRing::parse(&config).unwrap_err().to_string();
            assert!(!error.contains(&key[..8]), "{error}");
            assert!(error.contains("invalid key id"), "{error}");
        }
    }

    #[test]
    fn reload_replaces_keys_for_every_clone() {
        let ring = KeyRing::with_signing_key(KeyId::new("old").unwrap(), key(1));
        let clone = ring.clone();
        ring.reload(&KeyRing::with_signing_key(
            KeyId::new("new").unwrap(),
            key(2),
        ))
        .unwrap();
        assert_eq!(clone.signing_key_id().unwrap().as_str(), "new");
        assert!(clone.find("old").is_none());
        assert!(matches!(
            ring.reload(&KeyRing::new()),
            Err(KeyError::NoSigningKey)
        ));
    }
}
