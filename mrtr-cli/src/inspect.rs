//! `mrtr inspect <token>`: what a `requestState` holds and whether the server would accept it.
//!
//! The header (mode, key id) reads without a key. An HMAC token's claims and payload are signed,
//! not encrypted, so they read without a key too; an AEAD token's take its key. Either way the
//! tag covers the request the token was sealed for, so what is shown stays **unauthenticated**
//! (and is labelled so) until `--tool` (with `--audience`, `--arguments`, `--principal` as the
//! request had them) and the keys are given: then the server's checks run in the server's order
//! and the first that refuses is named, the reason the server only logs.
//!
//! Keys come from `--keys-file PATH` or `MRTR_STATE_KEYS`; `--keys` still works, with a
//! warning: a command line ends up in shell histories and process lists.
//!
//! Everything printed from a token is escaped: a token is whatever its sender wrote, and a
//! terminal would act on control characters and escape sequences instead of showing them.
//!
//! Exit codes: 0 valid (the server's checks all pass for the request given), 1 refused (a check
//! fails), 2 unreadable (not a token of this mrtr version), 3 not verified (readable, or sealed,
//! but its tag was not checked: no key or no request given), 64 a command line that cannot be
//! run.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mrtr_runtime::token::{
    Binding, Claims, Fingerprint, KEYS_ENV_VAR, KeyRing, Mode, Opened, Rejection, StateCodec,
    TokenHeader,
};
use serde_json::{Map, Value, json};

use crate::civil::rfc3339;
use crate::escape;

/// The exit code of a token a check refuses.
const REFUSED: u8 = 1;
/// The exit code of something that is not a token this version reads.
const UNREADABLE: u8 = 2;
/// The exit code of a token whose tag was not checked, so that nothing it says is verified.
const UNVERIFIED: u8 = 3;

/// The command line of `mrtr inspect`.
#[derive(Default)]
struct Options {
    token: Option<String>,
    keys: Option<String>,
    keys_file: Option<PathBuf>,
    tool: Option<String>,
    arguments: Option<String>,
    principal: Option<String>,
    audience: Option<String>,
    version: u32,
    json: bool,
}

fn parse(args: Vec<OsString>) -> Result<Options, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut options = Options {
        version: 1,
        ..Options::default()
    };
    let text = |parser: &mut lexopt::Parser| -> Result<String, String> {
        let value = parser.value().map_err(|error| error.to_string())?;
        value
            .into_string()
            .map_err(|value| format!("{value:?} is not UTF-8"))
    };
    while let Some(arg) = parser.next().map_err(|error| error.to_string())? {
        match arg {
            Long("keys") => options.keys = Some(text(&mut parser)?),
            Long("keys-file") => {
                let path = parser.value().map_err(|error| error.to_string())?;
                options.keys_file = Some(PathBuf::from(path));
            }
            Long("tool") => options.tool = Some(text(&mut parser)?),
            Long("arguments") => options.arguments = Some(text(&mut parser)?),
            Long("principal") => options.principal = Some(text(&mut parser)?),
            Long("audience") => options.audience = Some(text(&mut parser)?),
            Long("version") => {
                let version = text(&mut parser)?;
                options.version = version
                    .parse()
                    .map_err(|_| format!("--version {version:?}: expected a number such as 2"))?;
            }
            Long("json") => options.json = true,
            Value(token) if options.token.is_none() => {
                options.token = Some(
                    token
                        .into_string()
                        .map_err(|_| "the token is not UTF-8".to_owned())?,
                );
            }
            other => return Err(other.unexpected().to_string()),
        }
    }
    Ok(options)
}

/// The key configuration (`id:base64key,..`), from the first of `--keys-file`, `--keys` and
/// `MRTR_STATE_KEYS` that is given; `None` if none is.
fn key_config(options: &Options) -> Result<Option<String>, String> {
    match (&options.keys_file, &options.keys) {
        (Some(_), Some(_)) => Err("give the keys once: --keys-file or --keys, not both".into()),
        (Some(path), None) => read_keys_file(path).map(Some),
        (None, Some(keys)) => {
            eprintln!(
                "mrtr: warning: keys given with --keys stay in the shell history and show in \
                 the process list; use --keys-file PATH or {KEYS_ENV_VAR}"
            );
            Ok(Some(keys.clone()))
        }
        (None, None) => match std::env::var(KEYS_ENV_VAR) {
            Ok(keys) => Ok(Some(keys)),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => Err(format!("{KEYS_ENV_VAR} is not UTF-8")),
        },
    }
}

/// A keys file holds what `MRTR_STATE_KEYS` would, its entries separated by commas or lines.
fn read_keys_file(path: &Path) -> Result<String, String> {
    let shown = escape::quoted(&path.display().to_string());
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("--keys-file {shown}: cannot read it: {error}"))?;
    warn_if_others_can_read(path, &shown);
    Ok(text.lines().collect::<Vec<_>>().join(","))
}

#[cfg(unix)]
fn warn_if_others_can_read(path: &Path, shown: &str) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(metadata) = std::fs::metadata(path)
        && metadata.permissions().mode() & 0o077 != 0
    {
        eprintln!("mrtr: warning: the keys file {shown} can be read by other users (chmod 600 it)");
    }
}

#[cfg(not(unix))]
fn warn_if_others_can_read(_: &Path, _: &str) {}

/// What the command found, for either output.
struct Report {
    header: TokenHeader,
    body: Option<Opened<Value>>,
    tag: Tag,
    verdict: Verdict,
}

/// What is known of the token's tag, and so of whether its body is authentic.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tag {
    /// Not checked: no key, or no request (the tag covers the request).
    NotChecked,
    /// Checked against the keys and the request, and it does not match.
    Mismatch,
    /// Checked, and it matches: the body is as the server sealed it.
    Matches,
}

enum Verdict {
    /// The server would accept it for the request given.
    Accepted,
    /// Readable and within its times by its own (unauthenticated) claims; no key or no
    /// request was given to check its tag.
    Unchecked,
    /// Readable only in part: an AEAD token without its key.
    Sealed,
    Refused(Rejection),
}

pub(crate) fn run(args: Vec<OsString>) -> Result<ExitCode, String> {
    let options = parse(args)?;
    let token = options
        .token
        .as_deref()
        .ok_or("inspect needs a token: mrtr inspect <token>")?
        .trim();
    let keys = key_config(&options)?;
    let header = match TokenHeader::read(token) {
        Ok(header) => header,
        Err(rejection) => {
            eprintln!(
                "mrtr: unreadable: {}",
                escape::escaped(&unreadable(token, &rejection))
            );
            return Ok(ExitCode::from(UNREADABLE));
        }
    };
    let report = report(token, header, keys, &options)?;
    if options.json {
        println!("{}", escape::json(&json_report(&report).to_string()));
    } else {
        print!("{}", human_report(&report));
    }
    Ok(match report.verdict {
        Verdict::Accepted => ExitCode::SUCCESS,
        Verdict::Refused(_) => ExitCode::from(REFUSED),
        Verdict::Unchecked | Verdict::Sealed => ExitCode::from(UNVERIFIED),
    })
}

/// Why `token` is not one this version reads, saying so when it comes from another version.
fn unreadable(token: &str, rejection: &Rejection) -> String {
    let other_layout = token
        .split_once('.')
        .is_some_and(|(prefix, _)| prefix.len() == 2 && prefix.starts_with('m') && prefix != "m2");
    if other_layout {
        format!(
            "a token of another mrtr version (layout {:?}, this one reads \"m2\"): read it with \
             that version's `mrtr`",
            &token[..2]
        )
    } else {
        rejection.to_string()
    }
}

/// Whether a check that refused ran after the tag matched: the body is then authentic.
fn after_the_tag(rejection: &Rejection) -> bool {
    matches!(
        rejection,
        // The header decoded already, so a malformed token here is claims that do not.
        Rejection::Malformed(_)
            | Rejection::IssuedInFuture
            | Rejection::Expired
            | Rejection::FlowExpired
            | Rejection::BadPayload(_)
    )
}

/// A body that does not decode, when its tag was not checked, was not written by this
/// version's server (every state it seals decodes): it was altered, which is what the server
/// would find at the tag. Other refusals stand as they are.
fn unopened(rejection: &Rejection) -> Rejection {
    match rejection {
        // The header decoded already, so a malformed token here is a body that does not.
        Rejection::Malformed(_) | Rejection::BadPayload(_) => Rejection::BadTag,
        other => other.clone(),
    }
}

fn report(
    token: &str,
    header: TokenHeader,
    keys: Option<String>,
    options: &Options,
) -> Result<Report, String> {
    let codec = keys
        .map(|keys| {
            let ring = KeyRing::parse(&keys).map_err(|error| format!("the keys: {error}"))?;
            StateCodec::builder()
                .mode(header.mode)
                .key_ring(ring)
                .audience(options.audience.clone().unwrap_or_default())
                .build()
                .map_err(|error| format!("the keys: {error}"))
        })
        .transpose()?;

    if let Some(tool) = &options.tool {
        let Some(codec) = &codec else {
            return Err(format!(
                "checking a token needs the key that sealed it (key id {}): pass --keys-file \
                 PATH or set {KEYS_ENV_VAR}",
                escape::quoted(&header.key_id)
            ));
        };
        return checked(token, header, codec, tool, options);
    }

    // No request: the tag, which covers the request, cannot be checked.
    let read = match &codec {
        Some(codec) => codec
            .inspect(token)
            .map(Some)
            .map_err(|invalid| invalid.reason().clone()),
        None => TokenHeader::read_signed_body(token),
    };
    let (body, verdict) = match read {
        Ok(Some(opened)) => {
            let verdict = match expired(&opened.claims) {
                Some(rejection) => Verdict::Refused(rejection),
                None => Verdict::Unchecked,
            };
            (Some(opened), verdict)
        }
        Ok(None) => (None, Verdict::Sealed),
        Err(rejection) => {
            // An unknown key id still leaves an HMAC body to show.
            let body = TokenHeader::read_signed_body(token).ok().flatten();
            (body, Verdict::Refused(unopened(&rejection)))
        }
    };
    Ok(Report {
        header,
        body,
        tag: Tag::NotChecked,
        verdict,
    })
}

/// Runs the server's checks for `tools/call` of `tool` as `options` describe the request.
fn checked(
    token: &str,
    header: TokenHeader,
    codec: &StateCodec,
    tool: &str,
    options: &Options,
) -> Result<Report, String> {
    if options.audience.is_none() {
        return Err(
            "checking a token needs --audience: the server's audience (its name, \
                    unless it sets another)"
                .into(),
        );
    }
    let arguments: Value = match &options.arguments {
        Some(text) => serde_json::from_str(text)
            .map_err(|error| format!("--arguments is not JSON: {error}"))?,
        None => json!({}),
    };
    let binding =
        Binding::new("tools/call", tool, Some(&arguments)).principal(options.principal.as_deref());
    let fingerprint = Fingerprint::of_version("tool", tool, options.version);
    let check = codec.check(token, &binding, fingerprint);
    let tag = match &check {
        Ok(()) => Tag::Matches,
        Err(rejection) if after_the_tag(rejection) => Tag::Matches,
        // Refused before the tag: the key is unknown, or the token is too long.
        Err(Rejection::UnknownKeyId(_) | Rejection::Oversized { .. }) => Tag::NotChecked,
        Err(_) => Tag::Mismatch,
    };
    let body = codec.inspect(token);
    let verdict = match (check, &body) {
        (Ok(()), Ok(_)) => Verdict::Accepted,
        // Authentic, yet its state does not decode: the server refuses it at the payload.
        (Ok(()), Err(invalid)) => Verdict::Refused(invalid.reason().clone()),
        (Err(rejection), _) => Verdict::Refused(rejection),
    };
    let body = body
        .ok()
        .or_else(|| TokenHeader::read_signed_body(token).ok().flatten());
    Ok(Report {
        header,
        body,
        tag,
        verdict,
    })
}

/// The time checks, which need no request: the server's clock is this machine's.
fn expired(claims: &Claims) -> Option<Rejection> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    if now > claims.flow().deadline() {
        Some(Rejection::FlowExpired)
    } else if now > claims.expires_at() {
        Some(Rejection::Expired)
    } else {
        None
    }
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Aead => "AEAD",
        Mode::Hmac => "HMAC",
    }
}

/// The resume point of an engine state, as the server logs it.
fn resume_point(payload: &Value) -> Option<String> {
    payload["p"].as_u64().map(|id| format!("{id:08x}"))
}

/// Printed as JSON (escaped by the caller, after serializing).
fn json_report(report: &Report) -> Value {
    let mut out = Map::new();
    out.insert("mode".into(), mode_name(report.header.mode).into());
    out.insert("key_id".into(), report.header.key_id.clone().into());
    out.insert("engine_state".into(), report.header.engine_state.into());
    out.insert("authenticated".into(), (report.tag == Tag::Matches).into());
    if let Some(Opened { claims, payload }) = &report.body {
        let flow = claims.flow();
        out.insert("round".into(), flow.round().into());
        out.insert("flow_id".into(), flow.id().to_string().into());
        out.insert("issued_at".into(), claims.issued_at().into());
        out.insert("expires_at".into(), claims.expires_at().into());
        out.insert("deadline".into(), flow.deadline().into());
        if report.header.engine_state {
            out.insert("resume_point".into(), resume_point(payload).into());
            out.insert("kept".into(), payload["f"].clone());
            out.insert("pending".into(), pending(payload).into());
        } else {
            out.insert("payload".into(), payload.clone());
        }
    }
    let verdict = match &report.verdict {
        Verdict::Accepted => json!({"status": "valid"}),
        Verdict::Unchecked => json!({"status": "unchecked"}),
        Verdict::Sealed => json!({"status": "sealed"}),
        Verdict::Refused(rejection) => json!({
            "status": "refused",
            "check": rejection.check(),
            "reason": rejection.to_string(),
        }),
    };
    out.insert("verdict".into(), verdict);
    Value::Object(out)
}

/// The pending questions of an engine state: `{key: request}`.
fn pending(payload: &Value) -> Map<String, Value> {
    payload["q"]
        .as_object()
        .map(|questions| {
            questions
                .iter()
                .map(|(key, question)| (key.clone(), question["r"].clone()))
                .collect()
        })
        .unwrap_or_default()
}

fn human_report(report: &Report) -> String {
    let header = &report.header;
    let mut lines: Vec<(&str, String)> = vec![(
        "token",
        format!(
            "{}, key {}{}",
            mode_name(header.mode),
            escape::quoted(&header.key_id),
            if header.engine_state {
                ", engine state"
            } else {
                ", JSON payload"
            }
        ),
    )];
    let time = |seconds: u64| format!("{} ({seconds})", rfc3339(seconds));
    let json_text = |value: &Value| escape::json(&value.to_string());
    match &report.body {
        Some(Opened { claims, payload }) => {
            lines.push((
                "body",
                match report.tag {
                    Tag::Matches => "authenticated: its tag matches the key and the request",
                    Tag::Mismatch => {
                        "UNAUTHENTICATED: its tag does not match the key and the request, so \
                         anyone could have written what follows"
                    }
                    Tag::NotChecked => {
                        "UNAUTHENTICATED: its tag was not checked, so anyone could have \
                         written what follows"
                    }
                }
                .into(),
            ));
            let flow = claims.flow();
            lines.push(("round", flow.round().to_string()));
            lines.push(("flow", flow.id().to_string()));
            lines.push(("issued", time(claims.issued_at())));
            lines.push(("expires", time(claims.expires_at())));
            lines.push(("deadline", time(flow.deadline())));
            if header.engine_state {
                if let Some(point) = resume_point(payload) {
                    lines.push(("resume", format!("point {point}")));
                }
                lines.push(("kept", json_text(&payload["f"])));
                for (key, request) in pending(payload) {
                    let message = request["params"]["message"].as_str().unwrap_or_default();
                    let method = request["method"].as_str().unwrap_or_default();
                    lines.push((
                        "pending",
                        format!(
                            "{}: {} {}",
                            escape::name(&key),
                            escape::name(method),
                            escape::quoted(message)
                        ),
                    ));
                }
            } else {
                lines.push(("payload", json_text(payload)));
            }
        }
        None => lines.push((
            "body",
            match (&report.verdict, header.mode) {
                (Verdict::Sealed, _) => format!(
                    "sealed (AEAD): give the keys (--keys-file PATH or {KEYS_ENV_VAR}) with key \
                     {} to read it",
                    escape::quoted(&header.key_id)
                ),
                (_, Mode::Aead) => "sealed (AEAD), not opened: see the verdict".into(),
                (_, Mode::Hmac) => "does not decode: see the verdict".into(),
            },
        )),
    }
    let unauthenticated = report.tag != Tag::Matches && report.body.is_some();
    lines.push((
        "verdict",
        match &report.verdict {
            Verdict::Accepted => "valid: the server would accept it for this request".into(),
            Verdict::Unchecked => "not verified: give the keys and the request (--tool, \
                 --audience, --arguments, --principal) to run the server's checks"
                .into(),
            Verdict::Sealed => "not verified: the body is sealed".into(),
            Verdict::Refused(rejection) => format!(
                "refused ({}): {}{}",
                rejection.check(),
                escape::escaped(&rejection.to_string()),
                match rejection {
                    Rejection::Expired | Rejection::FlowExpired if unauthenticated => {
                        ", by its unauthenticated claims"
                    }
                    _ => "",
                }
            ),
        },
    ));
    lines
        .iter()
        .map(|(field, value)| format!("{field:<10}{value}\n"))
        .collect()
}
