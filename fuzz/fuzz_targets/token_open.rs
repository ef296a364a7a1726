//! Opening attacker-controlled `requestState` in both modes must never panic: arbitrary
//! strings, arbitrary decoded bytes behind the right prefix, and valid tokens with bytes
//! flipped.
#![no_main]

use std::sync::LazyLock;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use libfuzzer_sys::fuzz_target;
use mrtr::token::{Binding, Fingerprint, KeyId, KeyRing, Mode, SecretKey, StateCodec};
use serde_json::{Value, json};

struct Target {
    codec: StateCodec,
    valid: Vec<u8>,
}

static TARGETS: LazyLock<Vec<Target>> = LazyLock::new(|| {
    [Mode::Aead, Mode::Hmac]
        .into_iter()
        .map(|mode| {
            let ring = KeyRing::with_signing_key(KeyId::new("fuzz").unwrap(), SecretKey::from_bytes(vec![9; 32]).unwrap());
            let codec = StateCodec::builder().mode(mode).key_ring(ring).compress_above(Some(16)).build().unwrap();
            let payload = json!({"p": 1, "f": {"kept": "a value that is long enough to be compressed in HMAC mode"}, "s": 1});
            let token = codec.seal(&codec.start_flow(fingerprint()), &binding(), &payload).unwrap();
            let valid = URL_SAFE_NO_PAD.decode(&token[3..]).unwrap();
            Target { codec, valid }
        })
        .collect()
});

fn binding() -> Binding<'static> {
    Binding::new("tools/call", "fuzz", None)
}

fn fingerprint() -> Fingerprint {
    Fingerprint::of(b"fuzz")
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    for target in TARGETS.iter() {
        let token = match selector % 3 {
            0 => String::from_utf8_lossy(rest).into_owned(),
            1 => format!("m2.{}", URL_SAFE_NO_PAD.encode(rest)),
            _ => {
                let mut bytes = target.valid.clone();
                for pair in rest.chunks(2) {
                    if let [position, flip] = pair {
                        let index = usize::from(*position) % bytes.len();
                        bytes[index] ^= flip;
                    }
                }
                format!("m2.{}", URL_SAFE_NO_PAD.encode(&bytes))
            }
        };
        let opened = target.codec.open::<Value>(&token, &binding(), fingerprint());
        if selector % 3 == 2 && rest.chunks(2).all(|pair| pair.len() < 2 || pair[1] == 0) {
            assert!(opened.is_ok(), "an unmodified token must open");
        }
        let _ = target.codec.inspect(&token);
    }
});
