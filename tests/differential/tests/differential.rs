//! The differential test of `#[mrtr::tool]`'s lowering: every generated body run as a plain
//! `async fn` and as a machine driven through `mrtr::testing::Harness`, with the same scripted
//! answers, must give the same result and the same trace of side effects.
//!
//! `MRTR_DIFF_CASES=N MRTR_DIFF_SEED=S MRTR_DIFF_FEATURES=spec cargo test -p mrtr-differential`
//! runs other bodies (see `gen/generator.rs` for the feature names).

use std::future::Future;
use std::pin::Pin;

type Run = fn(u64) -> Pin<Box<dyn Future<Output = (String, Vec<String>)>>>;

/// One generated body, with both versions.
struct Case {
    index: u64,
    seed: u64,
    source: &'static str,
    plain: Run,
    tool: Run,
}

#[allow(dead_code)]
mod generated {
    use super::Case;
    include!(concat!(env!("OUT_DIR"), "/cases.rs"));
}

fn report(case: &Case, plain: &(String, Vec<String>), tool: &(String, Vec<String>)) -> String {
    let first_difference = plain
        .1
        .iter()
        .zip(&tool.1)
        .position(|(a, b)| a != b)
        .unwrap_or(plain.1.len().min(tool.1.len()));
    format!(
        "==== MISMATCH: seed {:#x}, case {} (case seed {:#x}), features {}\n\
         ---- body:\n{}\n\
         ---- plain result: {}\n---- tool result:  {}\n\
         ---- traces differ from line {}\n---- plain trace:\n  {}\n---- tool trace:\n  {}\n",
        generated::SEED,
        case.index,
        case.seed,
        generated::FEATURES,
        case.source,
        plain.0,
        tool.0,
        first_difference,
        plain.1.join("\n  "),
        tool.1.join("\n  "),
    )
}

#[test]
fn the_machine_behaves_like_the_plain_function() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let mut mismatches = Vec::new();
    let (mut rounds, mut asked) = (0usize, 0usize);
    let mut histogram = [0usize; 10];
    let mut errors = 0;
    for case in generated::CASES {
        let plain = runtime.block_on((case.plain)(case.seed));
        let tool = runtime.block_on((case.tool)(case.seed));
        asked += plain
            .1
            .iter()
            .filter(|line| line.starts_with("ask "))
            .count();
        rounds += tool
            .1
            .iter()
            .filter(|line| line.starts_with("ask ") || *line == "recheck")
            .count();
        let questions = plain
            .1
            .iter()
            .filter(|line| line.starts_with("ask ") || *line == "recheck")
            .count();
        histogram[questions.min(9)] += 1;
        errors += usize::from(plain.0.starts_with("Err"));
        if plain != tool {
            eprintln!(
                "mismatch in case {}: plain {:.100} / tool {:.160}",
                case.index, plain.0, tool.0
            );
            mismatches.push(report(case, &plain, &tool));
        }
    }
    eprintln!(
        "differential: {} bodies, seed {:#x}, {} questions answered, {} mismatches",
        generated::CASES.len(),
        generated::SEED,
        asked.max(rounds),
        mismatches.len()
    );
    eprintln!(
        "differential: bodies by questions asked (0..9+): {histogram:?}; {errors} ended in a tool error"
    );
    for mismatch in mismatches.iter().take(5) {
        eprintln!("{mismatch}");
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} bodies behave differently as machines (first ones above)",
        mismatches.len(),
        generated::CASES.len()
    );
}
