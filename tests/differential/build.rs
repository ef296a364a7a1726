//! Generates the differential cases into `OUT_DIR/cases.rs`.

#[path = "gen/generator.rs"]
#[allow(dead_code)]
mod generator;

use std::env;
use std::path::Path;

/// The seed CI runs.
const DEFAULT_SEED: u64 = 0x6d72_7472_2026;
/// The number of bodies CI runs.
const DEFAULT_CASES: u64 = 300;

fn main() {
    for var in [
        "MRTR_DIFF_CASES",
        "MRTR_DIFF_SEED",
        "MRTR_DIFF_FEATURES",
        "MRTR_DIFF_BODIES",
        "MRTR_DIFF_SKIP",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-changed=gen/generator.rs");
    println!("cargo:rerun-if-changed=build.rs");
    let count = number("MRTR_DIFF_CASES").unwrap_or(DEFAULT_CASES);
    let seed = number("MRTR_DIFF_SEED").unwrap_or(DEFAULT_SEED);
    let spec = env::var("MRTR_DIFF_FEATURES").unwrap_or_default();
    let features = generator::Features::parse(&spec).unwrap_or_else(|error| panic!("{error}"));
    let cases = match env::var("MRTR_DIFF_BODIES") {
        // Hand-written bodies (for minimizing a finding): separated by `// ----` lines.
        Ok(path) if !path.is_empty() => {
            println!("cargo:rerun-if-changed={path}");
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|error| panic!("MRTR_DIFF_BODIES={path}: {error}"));
            generator::written_cases(&text, seed)
        }
        _ => generator::cases(seed, count, &features),
    };
    // Bodies left out by number (the long-run script drops bodies the macro refuses by design).
    let skip: Vec<u64> = env::var("MRTR_DIFF_SKIP")
        .unwrap_or_default()
        .split(',')
        .filter(|index| !index.trim().is_empty())
        .map(|index| {
            index
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("MRTR_DIFF_SKIP lists body numbers, got {index:?}"))
        })
        .collect();
    let cases: Vec<_> = cases
        .into_iter()
        .filter(|case| !skip.contains(&case.index))
        .collect();
    let source = generator::emit_cases(&cases, seed, &features);
    let out = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(Path::new(&out).join("cases.rs"), source).expect("OUT_DIR is writable");
}

fn number(var: &str) -> Option<u64> {
    let text = env::var(var).ok()?;
    let text = text.trim();
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("{var} must be a number, got {text:?}")))
}
